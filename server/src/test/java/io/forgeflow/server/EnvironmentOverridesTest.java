package io.forgeflow.server;

import io.dropwizard.core.server.DefaultServerFactory;
import io.dropwizard.jetty.HttpConnectorFactory;
import io.dropwizard.util.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EnvironmentOverridesTest {

    @Test
    void theDefaultsAreSafeAndCompleteWithoutAnyConfiguration() {
        ForgeFlowConfiguration config = new ForgeFlowConfiguration();
        EnvironmentOverrides.apply(config, Map.of());
        DefaultServerFactory server = (DefaultServerFactory) config.getServerFactory();
        HttpConnectorFactory app = (HttpConnectorFactory) server.getApplicationConnectors().get(0);
        HttpConnectorFactory admin = (HttpConnectorFactory) server.getAdminConnectors().get(0);
        assertThat(app.getBindHost()).isEqualTo("127.0.0.1");
        assertThat(app.getPort()).isEqualTo(8080);
        assertThat(admin.getBindHost()).isEqualTo("127.0.0.1");
        assertThat(admin.getPort()).isEqualTo(8081);
        assertThat(server.getRegisterDefaultExceptionMappers()).isFalse();
        ForgeFlowSettings s = config.forgeflow();
        assertThat(s.roles).containsExactly("api", "scheduler", "worker");
        assertThat(s.concurrency).isEqualTo(16);
        assertThat(s.leaseDuration).isEqualTo(Duration.seconds(30));
        assertThat(s.heartbeatInterval).isEqualTo(Duration.seconds(10));
        assertThat(s.retryBase).isEqualTo(Duration.seconds(5));
        assertThat(s.databaseUrl).isEmpty();
        assertThat(s.listByteBudget).isEqualTo(4 * 1024 * 1024);
    }

    @Test
    void theListByteBudgetHasAVariable() {
        ForgeFlowConfiguration config = new ForgeFlowConfiguration();
        EnvironmentOverrides.apply(config, Map.of("FORGEFLOW_LIST_BYTE_BUDGET", "1048576"));
        assertThat(config.forgeflow().listByteBudget).isEqualTo(1024 * 1024);
    }

    @Test
    void theSlowClientLimitsHaveDefaultsAndVariables() {
        ForgeFlowConfiguration defaults = new ForgeFlowConfiguration();
        EnvironmentOverrides.apply(defaults, Map.of());
        assertThat(defaults.forgeflow().maxConnectionsPerAddress).isEqualTo(1024);
        assertThat(defaults.forgeflow().minRequestDataRate).isEqualTo(8192);
        assertThat(defaults.forgeflow().requestBodyGrace).isEqualTo(Duration.seconds(3));
        ForgeFlowConfiguration config = new ForgeFlowConfiguration();
        EnvironmentOverrides.apply(config, Map.of("FORGEFLOW_MAX_CONNECTIONS_PER_ADDRESS", "1000",
                "FORGEFLOW_MIN_REQUEST_DATA_RATE", "0", "FORGEFLOW_REQUEST_BODY_GRACE", "10s"));
        assertThat(config.forgeflow().maxConnectionsPerAddress).isEqualTo(1000);
        assertThat(config.forgeflow().minRequestDataRate).isZero();
        assertThat(config.forgeflow().requestBodyGrace).isEqualTo(Duration.seconds(10));
        assertThatThrownBy(() -> EnvironmentOverrides.apply(new ForgeFlowConfiguration(),
                Map.of("FORGEFLOW_MAX_CONNECTIONS_PER_ADDRESS", "0")))
                .hasMessageContaining("FORGEFLOW_MAX_CONNECTIONS_PER_ADDRESS");
    }

    @Test
    void everyVariableOverridesItsSetting() {
        ForgeFlowConfiguration config = new ForgeFlowConfiguration();
        EnvironmentOverrides.apply(config, Map.ofEntries(
                Map.entry("FORGEFLOW_DATABASE_URL", "postgresql://u:p@db:5432/ff"),
                Map.entry("FORGEFLOW_ROLES", "worker, api"),
                Map.entry("FORGEFLOW_LISTEN_ADDR", "0.0.0.0:9090"),
                Map.entry("FORGEFLOW_ADMIN_LISTEN_ADDR", "[::1]:9091"),
                Map.entry("FORGEFLOW_WORKER_ID", "w-7"),
                Map.entry("FORGEFLOW_CONCURRENCY", "4"),
                Map.entry("FORGEFLOW_POLL_INTERVAL", "500ms"),
                Map.entry("FORGEFLOW_LEASE_DURATION", "1m"),
                Map.entry("FORGEFLOW_HEARTBEAT_INTERVAL", "20s"),
                Map.entry("FORGEFLOW_SCHEDULER_TICK", "2s"),
                Map.entry("FORGEFLOW_RETRY_BASE", "1s"),
                Map.entry("FORGEFLOW_DRAIN_GRACE", "5s"),
                Map.entry("FORGEFLOW_EXECUTORS", "http,noop")));
        ForgeFlowSettings s = config.forgeflow();
        assertThat(s.databaseUrl).isEqualTo("postgresql://u:p@db:5432/ff");
        assertThat(s.roles).containsExactly("worker", "api");
        assertThat(s.workerId).isEqualTo("w-7");
        assertThat(s.concurrency).isEqualTo(4);
        assertThat(s.pollInterval).isEqualTo(Duration.milliseconds(500));
        assertThat(s.leaseDuration).isEqualTo(Duration.minutes(1));
        assertThat(s.heartbeatInterval).isEqualTo(Duration.seconds(20));
        assertThat(s.schedulerTick).isEqualTo(Duration.seconds(2));
        assertThat(s.retryBase).isEqualTo(Duration.seconds(1));
        assertThat(s.drainGrace).isEqualTo(Duration.seconds(5));
        assertThat(s.executors).isEqualTo(List.of("http", "noop"));
        DefaultServerFactory server = (DefaultServerFactory) config.getServerFactory();
        HttpConnectorFactory app = (HttpConnectorFactory) server.getApplicationConnectors().get(0);
        HttpConnectorFactory admin = (HttpConnectorFactory) server.getAdminConnectors().get(0);
        assertThat(app.getBindHost()).isEqualTo("0.0.0.0");
        assertThat(app.getPort()).isEqualTo(9090);
        assertThat(admin.getBindHost()).isEqualTo("::1");
        assertThat(admin.getPort()).isEqualTo(9091);
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', value = {
            "FORGEFLOW_CONCURRENCY        | many  | whole number",
            "FORGEFLOW_CONCURRENCY        | 0     | between 1 and 1000",
            "FORGEFLOW_POLL_INTERVAL      | soon  | duration such as 30s",
            "FORGEFLOW_LISTEN_ADDR        | 8080  | host:port",
            "FORGEFLOW_LISTEN_ADDR        | h:99999 | between 0 and 65535",
            "FORGEFLOW_ROLES              | api,cook | unknown role 'cook'",
            "FORGEFLOW_ROLES              | ,     | is empty",
            "FORGEFLOW_HEARTBEAT_INTERVAL | 20s   | at most half",
            "FORGEFLOW_LIST_BYTE_BUDGET   | 4MiB  | whole number",
            "FORGEFLOW_LIST_BYTE_BUDGET   | 65535 | between 65536 and 1073741824"})
    void aBadValueStopsTheNodeWithAMessageNamingTheVariable(String name, String value, String message) {
        ForgeFlowConfiguration config = new ForgeFlowConfiguration();
        assertThatThrownBy(() -> EnvironmentOverrides.apply(config, Map.of(name.trim(), value.trim())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(name.trim().replace("_INTERVAL", ""))
                .hasMessageContaining(message.trim());
    }

    @Test
    void forgeflowQueuesIsKeptTrimmedAndEveryQueueIsTakenWithoutIt() {
        ForgeFlowConfiguration config = new ForgeFlowConfiguration();
        EnvironmentOverrides.apply(config, Map.of());
        assertThat(config.forgeflow().queues).isEmpty();

        ForgeFlowConfiguration lanes = new ForgeFlowConfiguration();
        EnvironmentOverrides.apply(lanes, Map.of("FORGEFLOW_QUEUES", "  reports=2,*  ", "FORGEFLOW_CONCURRENCY", "8"));
        assertThat(lanes.forgeflow().queues).isEqualTo("reports=2,*");
        assertThat(lanes.forgeflow().concurrency).isEqualTo(8);
    }

    @ParameterizedTest(name = "FORGEFLOW_QUEUES={0}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
            "reports=0            | 'reports=0': slots must be between 1 and 1000",
            "reports,,webhooks    | an empty entry",
            "reports,reports=2    | queue 'reports' is listed twice",
            "a b=2                | 'a b' is not a queue name",
            "reports=two          | the slots after '=' must be a whole number",
            "a=600,b=600          | gives more than 1000 slots in all"})
    void aMalformedQueueListStopsTheNodeNamingFORGEFLOW_QUEUES(String value, String message) {
        ForgeFlowConfiguration config = new ForgeFlowConfiguration();
        assertThatThrownBy(() -> EnvironmentOverrides.apply(config, Map.of("FORGEFLOW_QUEUES", value)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("FORGEFLOW_QUEUES '")
                .hasMessageContaining(message);
    }

    @Test
    void aQueueListFromTheYamlIsCheckedAtStartupToo() {
        ForgeFlowConfiguration config = new ForgeFlowConfiguration();
        config.forgeflow().queues = "reports=1001";

        assertThatThrownBy(() -> EnvironmentOverrides.apply(config, Map.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("FORGEFLOW_QUEUES 'reports=1001'");
    }

    @Test
    void theMisfireThresholdMigrationAtStartAndPoolSizeHaveVariables() {
        ForgeFlowConfiguration config = new ForgeFlowConfiguration();
        EnvironmentOverrides.apply(config, Map.of("FORGEFLOW_MISFIRE_THRESHOLD", "90s",
                "FORGEFLOW_MIGRATE_ON_START", "false", "FORGEFLOW_DATABASE_POOL_SIZE", "40"));

        assertThat(config.forgeflow().misfireThreshold).isEqualTo(Duration.seconds(90));
        assertThat(config.forgeflow().migrateOnStart).isFalse();
        assertThat(config.database().getMaxSize()).isEqualTo(40);

        ForgeFlowConfiguration small = new ForgeFlowConfiguration();
        EnvironmentOverrides.apply(small, Map.of("FORGEFLOW_DATABASE_POOL_SIZE", "2"));
        assertThat(small.database().getMaxSize()).isEqualTo(2);
        assertThat(small.database().getMinSize()).isLessThanOrEqualTo(2);
        assertThatThrownBy(() -> EnvironmentOverrides.apply(new ForgeFlowConfiguration(),
                Map.of("FORGEFLOW_DATABASE_POOL_SIZE", "1"))).hasMessageContaining("FORGEFLOW_DATABASE_POOL_SIZE");
        assertThatThrownBy(() -> EnvironmentOverrides.apply(new ForgeFlowConfiguration(),
                Map.of("FORGEFLOW_MIGRATE_ON_START", "yes"))).hasMessageContaining("FORGEFLOW_MIGRATE_ON_START");
    }

    @Test
    void everySettingHasAVariableAndTheReadmeListsEveryVariable() throws Exception {
        java.util.Set<String> fields = new java.util.TreeSet<>();
        for (java.lang.reflect.Field f : ForgeFlowSettings.class.getFields()) {
            fields.add(f.getName());
        }
        assertThat(EnvironmentOverrides.SETTINGS_VARIABLES.keySet()).containsExactlyInAnyOrderElementsOf(fields);

        String readme = java.nio.file.Files.readString(java.nio.file.Path.of("..", "README.md"));
        String table = readme.substring(readme.indexOf("## Configuration"), readme.indexOf("## Security"));
        List<String> variables = new java.util.ArrayList<>(EnvironmentOverrides.SETTINGS_VARIABLES.values());
        variables.addAll(EnvironmentOverrides.OTHER_VARIABLES);
        for (String variable : variables) {
            assertThat(table).as("README's configuration table").contains("| `" + variable + "` |");
        }
    }

    @Test
    void everyVariableOfTheTableIsRead() throws Exception {
        String source = java.nio.file.Files.readString(java.nio.file.Path.of(
                "src/main/java/io/forgeflow/server/EnvironmentOverrides.java"));
        List<String> variables = new java.util.ArrayList<>(EnvironmentOverrides.SETTINGS_VARIABLES.values());
        variables.addAll(EnvironmentOverrides.OTHER_VARIABLES);
        for (String variable : variables) {
            assertThat(source).as("read by apply()").contains("env.get(\"" + variable + "\")");
        }
    }

    @Test
    void theDefaultNoticesAndTheirSecretAreSettingsCheckedAtStart() {
        ForgeFlowSettings s = apply(Map.of("FORGEFLOW_NOTIFY_URL", " https://hooks.example.com/ff ",
                "FORGEFLOW_NOTIFY_ON", "dead,paused", "FORGEFLOW_NOTIFY_SECRET", "k")).forgeflow();
        assertThat(s.notifyUrl).isEqualTo("https://hooks.example.com/ff");
        assertThat(s.notifyOn).isEqualTo("dead,paused");
        assertThat(s.notifySecret).isEqualTo("k");
        assertThat(apply(Map.of()).forgeflow().notifyUrl).isEmpty();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> apply(Map.of("FORGEFLOW_NOTIFY_URL",
                "ftp://hooks.example.com/"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("FORGEFLOW_NOTIFY_URL").hasMessageContaining("http or https");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> apply(Map.of("FORGEFLOW_NOTIFY_URL",
                "https://hooks.example.com/", "FORGEFLOW_NOTIFY_ON", "dead,exploded")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("FORGEFLOW_NOTIFY_ON")
                .hasMessageContaining("exploded");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> apply(Map.of("FORGEFLOW_NOTIFY_ON", "dead")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("FORGEFLOW_NOTIFY_URL");
    }

    @Test
    void theNoticeSecretIsReadFromItsFile(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Path file = dir.resolve("notify-secret");
        java.nio.file.Files.writeString(file, "from-a-file\n");

        assertThat(apply(Map.of("FORGEFLOW_NOTIFY_SECRET_FILE", file.toString())).forgeflow().notifySecret)
                .isEqualTo("from-a-file");
    }

    static ForgeFlowConfiguration apply(Map<String, String> env) {
        ForgeFlowConfiguration config = new ForgeFlowConfiguration();
        EnvironmentOverrides.apply(config, env);
        return config;
    }
}
