package io.forgeflow.adapter.rest;

import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.tenant.Tenants;
import jakarta.ws.rs.container.ContainerRequestContext;

/**
 * The tenant a request acts in (README "Tenants"), as {@link TenantFilter} decided it: a tenant-bound token's own
 * tenant, else the {@value #HEADER} header's, else none (a cluster-wide request: lists show every tenant, submissions
 * go to {@value Tenants#DEFAULT}).
 *
 * @param tenant the tenant, or null for none
 * @param bound  the token is bound to {@code tenant}: it may name no other
 */
record Tenancy(String tenant, boolean bound) {
    static final String HEADER = "X-ForgeFlow-Tenant";
    static final String PROPERTY = "forgeflow.tenancy";
    static final Tenancy CLUSTER = new Tenancy(null, false);

    /** The request's tenancy ({@link #CLUSTER} when the filter did not run: a resource test without it). */
    static Tenancy of(ContainerRequestContext request) {
        Object value = request == null ? null : request.getProperty(PROPERTY);
        return value instanceof Tenancy t ? t : CLUSTER;
    }

    /**
     * The tenant a submission goes to: the body's {@code tenant} field ({@code named}, null when not given), else the
     * request's, else the default. A bound token naming another tenant is refused (403 {@code tenant_forbidden}), and
     * so is a body that contradicts the header (422).
     */
    String forSubmission(String named) {
        if (named == null) {
            return tenant == null ? Tenants.DEFAULT : tenant;
        }
        Tenants.require("tenant", named);
        if (tenant != null && !tenant.equals(named)) {
            if (bound) {
                throw forbidden(tenant, named);
            }
            throw new ValidationException("tenant", "tenant '" + named + "' differs from the " + HEADER + " header's '"
                    + tenant + "': name the tenant once, in the body or in the header");
        }
        return named;
    }

    /** The tenant a list shows: its {@code ?tenant=} ({@code named}, null when not given), else the request's. */
    String forList(String named) {
        if (named == null) {
            return tenant;
        }
        Tenants.require("tenant", named);
        if (bound && !tenant.equals(named)) {
            throw forbidden(tenant, named);
        }
        if (tenant != null && !tenant.equals(named)) {
            throw new ValidationException("tenant", "tenant '" + named + "' differs from the " + HEADER + " header's '"
                    + tenant + "': name the tenant once, in the query or in the header");
        }
        return named;
    }

    static ApiException forbidden(String own, String named) {
        return new ApiException(403, "this token acts in tenant '" + own + "' only and may not name tenant '"
                + named + "': use a token of that tenant, or a cluster-wide one (" + ApiTokens.VARIABLE + ")",
                "tenant", ErrorCodes.TENANT_FORBIDDEN);
    }
}
