package io.forgeflow.adapter.postgres;

import io.forgeflow.domain.id.Ids;
import io.forgeflow.domain.port.TenantDirectory;
import org.jdbi.v3.core.Jdbi;

import java.util.Objects;
import java.util.Optional;

/** {@link TenantDirectory} by primary key: one index probe of jobs, runs or batches. Plain reads, no locks. */
public final class PostgresTenantDirectory implements TenantDirectory {
    private static final String JOB_TENANT = "SELECT tenant FROM jobs WHERE id = CAST(:id AS uuid)";
    private static final String RUN_TENANT = "SELECT tenant FROM runs WHERE id = CAST(:id AS uuid)";
    private static final String BATCH_TENANT = "SELECT tenant FROM batches WHERE id = CAST(:id AS uuid)";
    private static final String JOB_TENANTS = "SELECT CAST(id AS text) AS id, tenant FROM jobs "
            + "WHERE id = ANY (CAST(:ids AS uuid[]))";
    private final Jdbi jdbi;

    public PostgresTenantDirectory(Jdbi jdbi) {
        this.jdbi = Objects.requireNonNull(jdbi, "jdbi");
    }

    @Override
    public Optional<String> tenantOf(Kind kind, String id) {
        if (id == null || !Ids.isWellFormed(id)) {
            return Optional.empty();
        }
        return jdbi.withHandle(h -> (switch (kind) {
            case JOB -> h.createQuery(JOB_TENANT);
            case RUN -> h.createQuery(RUN_TENANT);
            case BATCH -> h.createQuery(BATCH_TENANT);
        }).bind("id", id).mapTo(String.class).findOne());
    }

    /** Jobs in one statement (the event streams of a tenant resolve a batch of events at once); others one by one. */
    @Override
    public java.util.Map<String, String> tenantsOf(Kind kind, java.util.Collection<String> ids) {
        java.util.List<String> wellFormed = ids.stream().filter(id -> id != null && Ids.isWellFormed(id)).distinct()
                .toList();
        if (kind != Kind.JOB || wellFormed.isEmpty()) {
            return kind == Kind.JOB ? java.util.Map.of() : TenantDirectory.super.tenantsOf(kind, wellFormed);
        }
        java.util.Map<String, String> byLowerCase = new java.util.HashMap<>();
        jdbi.useHandle(h -> h.createQuery(JOB_TENANTS).bind("ids", wellFormed.toArray(new String[0]))
                .map((rs, ctx) -> java.util.Map.entry(rs.getString("id"), rs.getString("tenant")))
                .forEach(e -> byLowerCase.put(e.getKey(), e.getValue())));
        java.util.Map<String, String> tenants = new java.util.HashMap<>();
        for (String id : wellFormed) {
            String tenant = byLowerCase.get(id.toLowerCase(java.util.Locale.ROOT));
            if (tenant != null) {
                tenants.put(id, tenant);
            }
        }
        return tenants;
    }
}
