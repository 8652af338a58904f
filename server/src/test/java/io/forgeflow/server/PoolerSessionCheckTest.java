package io.forgeflow.server;

import io.forgeflow.adapter.postgres.SessionLimits;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

class PoolerSessionCheckTest {
    static final SessionLimits WANTED = new SessionLimits(Duration.ofSeconds(30), Duration.ofSeconds(5),
            Duration.ofSeconds(60), Duration.ZERO);

    @Test
    void sessionsWithTheSchemaAndTheLimitsPass() {
        PoolerSessionCheck.Found found = new PoolerSessionCheck.Found("forgeflow", "db", "app", 30_000, 5_000, 60_000);
        assertThat(PoolerSessionCheck.refusals(found, "forgeflow", WANTED)).isEmpty();
        assertThat(PoolerSessionCheck.differs(found, WANTED)).isFalse();
    }

    @Test
    void anotherSchemaOrNoTimeoutIsRefusedAndOtherValuesOnlyDiffer() {
        PoolerSessionCheck.Found bare = new PoolerSessionCheck.Found("public", "db", "app", 0, 0, 0);
        assertThat(PoolerSessionCheck.refusals(bare, "forgeflow", WANTED)).hasSize(3)
                .anySatisfy(r -> assertThat(r).contains("public").contains("forgeflow"))
                .anySatisfy(r -> assertThat(r).contains("statement_timeout"))
                .anySatisfy(r -> assertThat(r).contains("lock_timeout"));
        PoolerSessionCheck.Found other = new PoolerSessionCheck.Found("forgeflow", "db", "app", 10_000, 5_000, 60_000);
        assertThat(PoolerSessionCheck.refusals(other, "forgeflow", WANTED)).isEmpty();
        assertThat(PoolerSessionCheck.differs(other, WANTED)).isTrue();
        assertThat(PoolerSessionCheck.differs(new PoolerSessionCheck.Found("forgeflow", "db", "app", 30_000, 1, 60_000),
                WANTED)).isTrue();
        assertThat(PoolerSessionCheck.differs(new PoolerSessionCheck.Found("forgeflow", "db", "app", 30_000, 5_000, 1),
                WANTED)).isTrue();
        assertThat(PoolerSessionCheck.refusals(new PoolerSessionCheck.Found(null, "db", "app", 1, 1, 1), "forgeflow",
                WANTED)).singleElement().asString().contains("(none)");
    }

    @Test
    void theFixSetsEachOnTheRoleInTheDatabaseQuoted() {
        String fix = PoolerSessionCheck.fix(new PoolerSessionCheck.Found("public", "my\"db", "app", 0, 0, 0),
                "forgeflow", WANTED);
        assertThat(fix).contains("ALTER ROLE \"app\" IN DATABASE \"my\"\"db\" SET search_path = \"forgeflow\";")
                .contains("statement_timeout = '30000ms';").contains("lock_timeout = '5000ms';")
                .contains("idle_in_transaction_session_timeout = '60000ms';");
    }
}
