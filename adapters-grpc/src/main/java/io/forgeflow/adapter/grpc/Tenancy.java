package io.forgeflow.adapter.grpc;

import com.google.rpc.Code;
import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.tenant.Tenants;
import io.grpc.Context;
import io.grpc.Metadata;
import io.grpc.StatusRuntimeException;

/**
 * The tenant a call acts in (README "Tenants"), as {@link TenantMethods} decided it: a tenant-bound token's own
 * tenant, else the {@value #METADATA} metadata's, else none (cluster-wide: lists show every tenant, submissions go to
 * {@value Tenants#DEFAULT}). REST's rules, REST's words.
 *
 * @param tenant the tenant, or null for none
 * @param bound  the token is bound to {@code tenant}: it may name no other
 */
record Tenancy(String tenant, boolean bound) {
    static final String METADATA = "x-forgeflow-tenant";
    static final Metadata.Key<String> KEY = Metadata.Key.of(METADATA, Metadata.ASCII_STRING_MARSHALLER);
    static final Context.Key<Tenancy> CURRENT = Context.key("forgeflow-tenancy");
    static final Tenancy CLUSTER = new Tenancy(null, false);

    /** The current call's tenancy ({@link #CLUSTER} outside a call that went through {@link TenantMethods}). */
    static Tenancy current() {
        Tenancy t = CURRENT.get();
        return t == null ? CLUSTER : t;
    }

    /**
     * The tenant a submission goes to: the request's {@code tenant} field ({@code named}, empty when not given), else
     * the call's, else the default. A bound token naming another is PERMISSION_DENIED; a field that contradicts the
     * metadata is INVALID_ARGUMENT.
     */
    String forSubmission(String named) {
        if (named == null || named.isEmpty()) {
            return tenant == null ? Tenants.DEFAULT : tenant;
        }
        return checked(named);
    }

    /** The tenant a list shows: the request's {@code tenant} field, else the call's (null: every tenant). */
    String forList(String named) {
        if (named == null || named.isEmpty()) {
            return tenant;
        }
        return checked(named);
    }

    private String checked(String named) {
        Tenants.require("tenant", named);
        if (tenant != null && !tenant.equals(named)) {
            if (bound) {
                throw forbidden(tenant, named);
            }
            throw new ValidationException("tenant", "tenant '" + named + "' differs from the " + METADATA
                    + " metadata's '" + tenant + "': name the tenant once, in the request or in the metadata");
        }
        return named;
    }

    static StatusRuntimeException forbidden(String own, String named) {
        return GrpcErrors.status(Code.PERMISSION_DENIED, "this token acts in tenant '" + own + "' only and may not "
                + "name tenant '" + named + "': use a token of that tenant, or a cluster-wide one ("
                + Authentication.VARIABLE + ")", "tenant_forbidden", "tenant");
    }
}
