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
}
