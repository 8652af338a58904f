package io.forgeflow.server;

import io.dropwizard.core.server.DefaultServerFactory;
import io.dropwizard.core.server.SimpleServerFactory;
import io.dropwizard.jetty.HttpConnectorFactory;
import io.forgeflow.adapter.executor.HttpRunExecutor;
import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.execution.ExecutionContext;
import io.forgeflow.domain.execution.ExecutionResult;
import io.forgeflow.domain.execution.ExecutorSettings;
import io.forgeflow.domain.port.ConfigurableRunExecutor;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The start-up decisions of SECURITY.md: who may listen where, with which tokens, and the SSRF guard's default. */
class NodeSecurityTest {
    static final String TOKENS = "admin:admin-0123456789abcdef";

    static NodeSecurity secure(Map<String, String> env) {
        ForgeFlowConfiguration config = new ForgeFlowConfiguration();
        EnvironmentOverrides.apply(config, env);
        return NodeSecurity.of(config);
    }

    static Map<String, String> env(String... keysAndValues) {
        Map<String, String> env = new HashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            env.put(keysAndValues[i], keysAndValues[i + 1]);
        }
        return env;
    }

    @Nested
    class Exposure {
        @Test
        void theDefaultNodeIsOpenOnLoopbackOnlyWithTheSsrfGuardOnAndHostsRestricted() {
            NodeSecurity security = secure(env());

            assertThat(security.authenticates()).isFalse();
            assertThat(security.insecure()).isFalse();
            assertThat(security.readinessWarnings()).isEmpty();
            assertThat(security.executorSettings().privateNetworkTargetsAllowed()).isFalse();
            assertThat(security.restrictsHosts(false)).isTrue();
            assertThat(security.restrictsHosts(true)).isTrue();
        }

        @Test
        void withTokensTheApiServesAnyHostUnlessHostsAreListedButTheAdminPortDoesNot() {
            assertThat(secure(env("FORGEFLOW_API_TOKENS", TOKENS)).restrictsHosts(false)).isFalse();
            assertThat(secure(env("FORGEFLOW_API_TOKENS", TOKENS)).restrictsHosts(true)).isTrue();
            assertThat(secure(env("FORGEFLOW_API_TOKENS", TOKENS, "FORGEFLOW_ALLOWED_HOSTS", "ff.internal"))
                    .restrictsHosts(false)).isTrue();
        }

        @ParameterizedTest
        @ValueSource(strings = {"0.0.0.0:8080", "[::]:8080", ":8080", "192.0.2.10:8080", "10.1.2.3:9000"})
        void aNonLoopbackListenAddressWithoutTokensRefusesToStartAndSaysHowToConfigureTokens(String address) {
            assertThatThrownBy(() -> secure(env("FORGEFLOW_LISTEN_ADDR", address)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith("refusing to start: the API would listen on ")
                    .hasMessageContaining("not a loopback address")
                    .hasMessageContaining("FORGEFLOW_API_TOKENS=admin:<secret>")
                    .hasMessageContaining("sha256:<hex>")
                    .hasMessageContaining("FORGEFLOW_LISTEN_ADDR=127.0.0.1:8080")
                    .hasMessageContaining("FORGEFLOW_INSECURE=true")
                    .hasMessageContaining("SECURITY.md");
        }

        @ParameterizedTest
        @ValueSource(strings = {"127.0.0.1:8080", "127.0.0.2:8080", "localhost:8080", "[::1]:8080"})
        void loopbackAddressesNeedNoTokens(String address) {
            assertThatNoException().isThrownBy(() -> secure(env("FORGEFLOW_LISTEN_ADDR", address)));
        }

        @Test
        void aYamlBindHostOrNoneAtAllCountsToo() {
            for (String bindHost : new String[]{"0.0.0.0", null, ""}) {
                ForgeFlowConfiguration config = new ForgeFlowConfiguration();
                DefaultServerFactory server = (DefaultServerFactory) config.getServerFactory();
                HttpConnectorFactory connector = new HttpConnectorFactory();
                connector.setBindHost(bindHost);
                connector.setPort(8080);
                server.setApplicationConnectors(List.of(ForgeFlowConfiguration.http("127.0.0.1", 8080), connector));
                assertThatThrownBy(() -> NodeSecurity.of(config)).as("bindHost %s", bindHost)
                        .hasMessageContaining("would listen on 0.0.0.0:8080");
            }
        }

        @Test
        void aSimpleServerIsJudgedByItsOneConnector() {
            ForgeFlowConfiguration config = new ForgeFlowConfiguration();
            SimpleServerFactory simple = new SimpleServerFactory();
            simple.setConnector(ForgeFlowConfiguration.http("0.0.0.0", 8080));
            config.setServerFactory(simple);
            assertThatThrownBy(() -> NodeSecurity.of(config)).hasMessageContaining("0.0.0.0:8080");
            simple.setConnector(ForgeFlowConfiguration.http("127.0.0.1", 8080));
            assertThatNoException().isThrownBy(() -> NodeSecurity.of(config));
        }

        @Test
        void withTokensANodeMayListenAnywhereAndTheSsrfGuardIsOn() {
            NodeSecurity security = secure(env("FORGEFLOW_LISTEN_ADDR", "0.0.0.0:8080", "FORGEFLOW_API_TOKENS", TOKENS));

            assertThat(security.authenticates()).isTrue();
            assertThat(security.insecure()).isFalse();
            assertThat(security.readinessWarnings()).isEmpty();
            assertThat(security.executorSettings().privateNetworkTargetsAllowed()).isFalse();
        }

        @Test
        void insecureOptsOutWithAWarningOnReadinessAndTheSsrfGuardStaysOn() {
            NodeSecurity security = secure(env("FORGEFLOW_LISTEN_ADDR", "0.0.0.0:8080", "FORGEFLOW_INSECURE", "true"));

            assertThat(security.authenticates()).isFalse();
            assertThat(security.insecure()).isTrue();
            assertThat(security.readinessWarnings()).singleElement().asString()
                    .contains("0.0.0.0:8080").contains("without authentication").contains("FORGEFLOW_API_TOKENS");
            assertThat(security.executorSettings().privateNetworkTargetsAllowed()).isFalse();
        }

        @Test
        void insecureChangesNothingOnLoopbackOrWithTokens() {
            assertThat(secure(env("FORGEFLOW_INSECURE", "true")).insecure()).isFalse();
            assertThat(secure(env("FORGEFLOW_INSECURE", "true", "FORGEFLOW_API_TOKENS", TOKENS,
                    "FORGEFLOW_LISTEN_ADDR", "0.0.0.0:8080")).readinessWarnings()).isEmpty();
        }

        @ParameterizedTest
        @ValueSource(strings = {"0.0.0.0:8081", "[::]:8081", "10.1.2.3:8081"})
        void anExposedAdminPortRefusesToStartWithoutAdminInsecure(String address) {
            assertThatThrownBy(() -> secure(env("FORGEFLOW_ADMIN_LISTEN_ADDR", address, "FORGEFLOW_API_TOKENS", TOKENS)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith("refusing to start: the admin port would listen on ")
                    .hasMessageContaining("FORGEFLOW_ADMIN_LISTEN_ADDR=127.0.0.1:8081")
                    .hasMessageContaining("FORGEFLOW_ADMIN_INSECURE=true");
            NodeSecurity exposed = secure(env("FORGEFLOW_ADMIN_LISTEN_ADDR", address, "FORGEFLOW_ADMIN_INSECURE", "true"));
            assertThat(exposed.restrictsHosts(true)).isFalse();
        }

        @Test
        void aYamlServerSectionWithoutAdminConnectorsStillBindsTheAdminPortToLoopback() {
            ForgeFlowConfiguration config = new ForgeFlowConfiguration();
            config.setServerFactory(new DefaultServerFactory()); // what Jackson builds for a server: section
            EnvironmentOverrides.apply(config, env());
            HttpConnectorFactory admin = (HttpConnectorFactory)
                    ((DefaultServerFactory) config.getServerFactory()).getAdminConnectors().get(0);
            assertThat(admin.getBindHost()).isEqualTo("127.0.0.1");
            assertThatNoException().isThrownBy(() -> NodeSecurity.of(withLoopbackApi(config)));
        }

        @Test
        void everyConnectorGetsAHeaderLimitAndNoMinimumDataRateThatSmallBodiesReadLateWouldFail() {
            ForgeFlowConfiguration config = new ForgeFlowConfiguration();
            EnvironmentOverrides.apply(config, env("FORGEFLOW_LISTEN_ADDR", "127.0.0.1:9000"));
            DefaultServerFactory server = (DefaultServerFactory) config.getServerFactory();
            for (var connector : List.of(server.getApplicationConnectors().get(0), server.getAdminConnectors().get(0))) {
                HttpConnectorFactory http = (HttpConnectorFactory) connector;
                assertThat(http.getMinRequestDataPerSecond().toBytes()).isZero();
                assertThat(http.getMaxRequestHeaderSize().toBytes()).isEqualTo(8192);
            }
        }

        private ForgeFlowConfiguration withLoopbackApi(ForgeFlowConfiguration config) {
            ((DefaultServerFactory) config.getServerFactory())
                    .setApplicationConnectors(List.of(ForgeFlowConfiguration.http("127.0.0.1", 8080)));
            return config;
        }
    }

    @Nested
    class SsrfGuardDefault {
        @ParameterizedTest(name = "listen {0}, FORGEFLOW_HTTP_ALLOW_PRIVATE={1}: private allowed {2}")
        @CsvSource({
                "127.0.0.1:8080, ,      false",
                "0.0.0.0:8080,   ,      false",
                "127.0.0.1:8080, false, false",
                "0.0.0.0:8080,   true,  true",
                "0.0.0.0:8080,   FALSE, false",
                "127.0.0.1:8080, TRUE,  true"})
        void isOnWhateverTheNodeListensOnUnlessExplicitlyAllowed(String listen, String allow, boolean allowed) {
            Map<String, String> env = env("FORGEFLOW_LISTEN_ADDR", listen, "FORGEFLOW_API_TOKENS", TOKENS);
            if (allow != null) {
                env.put("FORGEFLOW_HTTP_ALLOW_PRIVATE", allow);
            }
            assertThat(secure(env).executorSettings().privateNetworkTargetsAllowed()).isEqualTo(allowed);
        }

        @Test
        void reachesTheHttpExecutorThroughConfigure() {
            NodeSecurity guarded = secure(env("FORGEFLOW_HTTP_ALLOW_PRIVATE", "false"));
            HttpRunExecutor http = new HttpRunExecutor();
            Recording plugin = new Recording();
            try {
                guarded.configure(List.of(http, plugin, new ReverseExecutor()));

                assertThatThrownBy(() -> http.validate(Map.of("url", "http://169.254.169.254/latest/meta-data/")))
                        .isInstanceOfSatisfying(ValidationException.class, e ->
                                assertThat(e.field()).isEqualTo("payload.url"));
                assertThat(plugin.received).containsExactly(new ExecutorSettings(false));
            } finally {
                http.close();
            }
        }
    }

    @Nested
    class BadValues {
        @ParameterizedTest(name = "{0}={1}")
        @CsvSource(delimiter = '|', value = {
                "FORGEFLOW_API_TOKENS         | s3cret-0123456789abcdef              | entry 1 is not scope:token",
                "FORGEFLOW_API_TOKENS         | admin:a-0123456789abcdef,root:b-0123456789abcdef | entry 2 names an unknown scope 'root'",
                "FORGEFLOW_API_TOKENS         | read:sha256:1234                     | not 64 hexadecimal",
                "FORGEFLOW_API_TOKENS         | read:                                | empty token",
                "FORGEFLOW_METRICS_TOKEN      | sha256:xyz                           | 64 hexadecimal",
                "FORGEFLOW_INSECURE           | yes                                  | true or false",
                "FORGEFLOW_HTTP_ALLOW_PRIVATE | maybe                                | true or false",
                "FORGEFLOW_ADMIN_INSECURE     | yes                                  | true or false",
                "FORGEFLOW_ALLOWED_ORIGINS    | ops.example.com                      | scheme://host",
                "FORGEFLOW_ALLOWED_HOSTS      | ff.internal/api                      | not a host"})
        void stopTheNodeWithAMessageNamingTheVariableAndNeverTheToken(String name, String value, String message) {
            assertThatThrownBy(() -> secure(env(name.strip(), value.strip())))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(name.strip())
                    .hasMessageContaining(message.strip())
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain("0123456789abcdef"));
        }

        @Test
        void aYamlListOfTokensIsParsedLikeTheVariable() {
            ForgeFlowConfiguration config = new ForgeFlowConfiguration();
            config.forgeflow().apiTokens = List.of("read:r-0123456789abcdef", "operate+submit:o-0123456789abcdef");
            EnvironmentOverrides.apply(config, Map.of());
            assertThat(NodeSecurity.of(config).authenticates()).isTrue();

            config.forgeflow().apiTokens = List.of("reader:r-0123456789abcdef");
            assertThatThrownBy(() -> NodeSecurity.of(config)).hasMessageContaining("FORGEFLOW_API_TOKENS entry 1");
        }
    }

    /** A plug-in executor that takes node settings. */
    static final class Recording implements ConfigurableRunExecutor {
        final List<ExecutorSettings> received = new ArrayList<>();

        @Override
        public void configure(ExecutorSettings settings) {
            received.add(settings);
        }

        @Override
        public String name() {
            return "recording";
        }

        @Override
        public void validate(Map<String, Object> payload) {
        }

        @Override
        public ExecutionResult execute(ExecutionContext context) {
            return ExecutionResult.succeeded("");
        }
    }
}
