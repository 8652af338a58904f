package io.forgeflow.adapter.rest;

import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.port.TenantDirectory;
import io.forgeflow.domain.tenant.Tenants;
import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * Decides the tenant every request acts in ({@link Tenancy}) and keeps it there (README "Tenants"), after the token is
 * known and before any resource runs:
 * <ul>
 *   <li>a tenant-bound token acts in its tenant; a {@value Tenancy#HEADER} header naming another is refused (403
 *       {@code tenant_forbidden}), and so is every route {@link TenantRoutes} calls cluster-wide;</li>
 *   <li>a cluster-wide token acts in the header's tenant, or in none;</li>
 *   <li>a request acting in a tenant that names a job, run or batch of another tenant by id is answered 404, exactly
 *       as if there were no such object: nothing tells it exists.</li>
 * </ul>
 * One filter for every route, so no resource method decides isolation on its own.
 */
@PreMatching
@Priority(Priorities.AUTHORIZATION + 10)
public final class TenantFilter implements ContainerRequestFilter {
    private final TenantDirectory directory;

    public TenantFilter(TenantDirectory directory) {
        this.directory = Objects.requireNonNull(directory, "directory");
    }

    @Override
    public void filter(ContainerRequestContext request) {
        ApiPrincipal principal = request.getSecurityContext() != null
                && request.getSecurityContext().getUserPrincipal() instanceof ApiPrincipal p ? p : null;
        String bound = principal == null ? null : principal.tenant();
        String named = header(request);
        if (bound != null && named != null && !bound.equals(named)) {
            throw Tenancy.forbidden(bound, named);
        }
        Tenancy tenancy = bound != null ? new Tenancy(bound, true) : named != null ? new Tenancy(named, false)
                : Tenancy.CLUSTER;
        String jobId = request.getUriInfo().getQueryParameters().getFirst("job_id");
        TenantRoutes.Route route = TenantRoutes.of(request.getMethod(), request.getUriInfo().getPath(), jobId);
        if (tenancy.bound() && !route.tenantScoped()) {
            throw new ApiException(403, "this token acts in tenant '" + bound + "' only, and "
                    + request.getMethod() + " /" + JsonBody.shorten(request.getUriInfo().getPath()) + " is cluster-wide: "
                    + "use a cluster-wide token (" + ApiTokens.VARIABLE + ")", null, ErrorCodes.TENANT_FORBIDDEN);
        }
        if (tenancy.tenant() != null && route.kind() != null) {
            Optional<String> owner = directory.tenantOf(route.kind(), route.id());
            if (owner.isPresent() && !owner.get().equals(tenancy.tenant())) {
                String kind = route.kind().name().toLowerCase(Locale.ROOT);
                throw new io.forgeflow.domain.error.NotFoundException(kind, JsonBody.shorten(route.id()));
            }
        }
        request.setProperty(Tenancy.PROPERTY, tenancy);
    }

    private static String header(ContainerRequestContext request) {
        List<String> values = request.getHeaders().get(Tenancy.HEADER);
        if (values == null || values.isEmpty()) {
            return null;
        }
        if (values.size() > 1) {
            throw new ValidationException("tenant", "send the " + Tenancy.HEADER + " header once");
        }
        return Tenants.require("tenant", values.get(0).strip());
    }
}
