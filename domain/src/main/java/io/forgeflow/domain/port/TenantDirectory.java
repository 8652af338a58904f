package io.forgeflow.domain.port;

import java.util.Optional;

/**
 * Which tenant a job, run or batch belongs to (README "Tenants"): what the API asks before it lets a request that acts
 * in one tenant touch an object by id. A tenant never changes, so an answer cannot go stale. Empty when there is no
 * such object (or the id cannot name one).
 */
public interface TenantDirectory {
    /** What a request names by id. */
    enum Kind { JOB, RUN, BATCH }

    Optional<String> tenantOf(Kind kind, String id);

    /** The tenants of several objects of one kind, by id as given; ids of no object are left out. */
    default java.util.Map<String, String> tenantsOf(Kind kind, java.util.Collection<String> ids) {
        java.util.Map<String, String> tenants = new java.util.HashMap<>();
        for (String id : ids) {
            tenantOf(kind, id).ifPresent(tenant -> tenants.put(id, tenant));
        }
        return tenants;
    }
}
