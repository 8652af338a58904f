package io.forgeflow.server;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Issue 46: a node's pool size from its roles and slots, overridable; its session connections by mode. */
class ConnectionBudgetTest {

    static ForgeFlowConfiguration apply(Map<String, String> env) {
        ForgeFlowConfiguration config = new ForgeFlowConfiguration();
        EnvironmentOverrides.apply(config, env);
        return config;
    }

    static int poolOf(Map<String, String> env) {
        ForgeFlowConfiguration config = apply(env);
        return ConnectionBudget.poolSize(config.forgeflow(), config.database().getMaxSize());
    }

    @Test
    void theFormulaAddsEachRolesShare() {
        assertThat(ConnectionBudget.poolSize(Set.of("api"), 16)).isEqualTo(8);
        assertThat(ConnectionBudget.poolSize(Set.of("scheduler"), 16)).isEqualTo(4);
        assertThat(ConnectionBudget.poolSize(Set.of("worker"), 16)).isEqualTo(4 + 8);
        assertThat(ConnectionBudget.poolSize(Set.of("worker"), 1)).isEqualTo(5);
        assertThat(ConnectionBudget.poolSize(Set.of("worker"), 5)).as("half the slots, rounded up").isEqualTo(7);
        assertThat(ConnectionBudget.poolSize(Set.of("worker"), 200)).isEqualTo(104);
        assertThat(ConnectionBudget.poolSize(Set.of("api", "scheduler", "worker"), 16))
                .as("the defaults keep the pool of 24 nodes had").isEqualTo(24);
        assertThat(ConnectionBudget.poolSize(Set.of(), 16)).as("never below 2").isEqualTo(2);
    }

    @Test
    void aNodesPoolDerivesFromItsSettingsUnlessOverridden() {
        assertThat(poolOf(Map.of())).isEqualTo(24);
        assertThat(poolOf(Map.of("FORGEFLOW_ROLES", "worker", "FORGEFLOW_CONCURRENCY", "64"))).isEqualTo(4 + 32);
        assertThat(poolOf(Map.of("FORGEFLOW_ROLES", "api"))).isEqualTo(8);
        assertThat(poolOf(Map.of("FORGEFLOW_ROLES", "worker", "FORGEFLOW_CONCURRENCY", "4",
                "FORGEFLOW_QUEUES", "reports=10,*"))).as("every slot of the lanes").isEqualTo(4 + 7);
        assertThat(poolOf(Map.of("FORGEFLOW_ROLES", "api", "FORGEFLOW_DATABASE_POOL_SIZE", "24")))
                .as("the variable wins, even at the built-in value").isEqualTo(24);
        assertThat(poolOf(Map.of("FORGEFLOW_ROLES", "worker", "FORGEFLOW_DATABASE_POOL_SIZE", "3"))).isEqualTo(3);

        ForgeFlowConfiguration yaml = new ForgeFlowConfiguration();
        yaml.database().setMaxSize(50);
        yaml.forgeflow().roles = List.of("api");
        EnvironmentOverrides.apply(yaml, Map.of());
        assertThat(ConnectionBudget.poolSize(yaml.forgeflow(), yaml.database().getMaxSize()))
                .as("a YAML database.maxSize other than the built-in one").isEqualTo(50);
    }

    @Test
    void theModeIsChosenFromThePoolingAndTheSessionUrl() {
        assertThat(DatabaseSettings.mode(apply(Map.of()).forgeflow())).isEqualTo(DatabaseSettings.Mode.DIRECT);
        assertThat(DatabaseSettings.mode(apply(Map.of("FORGEFLOW_DATABASE_SESSION_URL", "postgresql://db/ff"))
                .forgeflow())).isEqualTo(DatabaseSettings.Mode.SESSIONS);
        assertThat(DatabaseSettings.mode(apply(Map.of("FORGEFLOW_DATABASE_SESSION_URL", "postgresql://db/ff",
                "FORGEFLOW_DATABASE_POOLING", "transaction")).forgeflow())).isEqualTo(DatabaseSettings.Mode.SESSIONS);
        assertThat(DatabaseSettings.mode(apply(Map.of("FORGEFLOW_DATABASE_POOLING", "transaction")).forgeflow()))
                .isEqualTo(DatabaseSettings.Mode.POLLING);
        assertThat(DatabaseSettings.mode(apply(Map.of("FORGEFLOW_DATABASE_POOLING", "direct")).forgeflow()))
                .isEqualTo(DatabaseSettings.Mode.DIRECT);
        assertThatThrownBy(() -> apply(Map.of("FORGEFLOW_DATABASE_POOLING", "session")))
                .hasMessageContaining("FORGEFLOW_DATABASE_POOLING");
        assertThatThrownBy(() -> apply(Map.of("FORGEFLOW_DATABASE_POOLING", "direct",
                "FORGEFLOW_DATABASE_SESSION_URL", "postgresql://db/ff"))).hasMessageContaining("FORGEFLOW_DATABASE_POOLING");
    }

    @Test
    void sessionConnectionsAreListenAndTheLeadersLockOrNone() {
        assertThat(ConnectionBudget.sessions(Set.of("api", "scheduler", "worker"), DatabaseSettings.Mode.SESSIONS))
                .isEqualTo(2);
        assertThat(ConnectionBudget.sessions(Set.of("worker"), DatabaseSettings.Mode.SESSIONS)).isEqualTo(1);
        assertThat(ConnectionBudget.sessions(Set.of("api", "scheduler", "worker"), DatabaseSettings.Mode.POLLING))
                .isZero();
    }
}
