package io.forgeflow.admin.connect;

import io.forgeflow.admin.cluster.ClusterClient;
import io.forgeflow.admin.support.Async;
import io.forgeflow.admin.support.InMemorySettingsStore;
import io.forgeflow.admin.testing.FakeClusterClient;
import io.forgeflow.client.ForgeFlowApiException;
import io.forgeflow.client.ForgeFlowUnavailableException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.ConnectException;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.assertj.core.api.Assertions.assertThat;

class ConnectionViewModelTest {
    final InMemorySettingsStore settings = new InMemorySettingsStore();
    final FakeClusterClient cluster = new FakeClusterClient();
    final List<String> opened = new ArrayList<>();
    final ConnectionViewModel vm = new ConnectionViewModel((url, token) -> {
        opened.add(url + " " + token);
        return cluster;
    }, settings, Async.sameThread());

    final List<LogRecord> logged = new ArrayList<>();
    final Logger logger = Logger.getLogger(ConnectionViewModel.class.getName());
    final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            logged.add(record);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @BeforeEach
    void captureLogs() {
        logger.addHandler(capture);
        logger.setLevel(Level.ALL);
    }

    @AfterEach
    void releaseLogs() {
        logger.removeHandler(capture);
    }

    @Test
    void startsWithTheRememberedUrlAndToken() {
        settings.put("serverUrl", "http://ops:9000");
        settings.put("apiToken", "abc");

        ConnectionViewModel fresh = new ConnectionViewModel((u, t) -> cluster, settings, Async.sameThread());

        assertThat(fresh.serverUrlProperty().get()).isEqualTo("http://ops:9000");
        assertThat(fresh.tokenProperty().get()).isEqualTo("abc");
    }

    @Test
    void connectingProvesTheConnectionWithStatsAndRemembersUrlAndToken() {
        vm.serverUrlProperty().set(" 10.0.0.5:8080/ ");
        vm.tokenProperty().set("s3cret-token-value");

        vm.connect();

        assertThat(opened).containsExactly("http://10.0.0.5:8080 s3cret-token-value");
        assertThat(cluster.calls()).containsExactly("stats", "nodes");
        assertThat(vm.connectedProperty().get()).isSameAs(cluster);
        assertThat(vm.failedProperty().get()).isFalse();
        assertThat(vm.messageProperty().get()).isEqualTo("Connected to http://10.0.0.5:8080");
        assertThat(settings.get("serverUrl", null)).isEqualTo("http://10.0.0.5:8080");
        assertThat(settings.get("apiToken", null)).isEqualTo("s3cret-token-value");
    }

    @Test
    void theTokenIsNeverWrittenToTheLog() {
        vm.tokenProperty().set("s3cret-token-value");
        cluster.failNext("stats", new ForgeFlowApiException(401, "invalid token", null));

        vm.connect();
        vm.connect();

        assertThat(logged).isNotEmpty();
        assertThat(logged).allSatisfy(r -> assertThat(r.getMessage()).doesNotContain("s3cret"));
        assertThat(logged.get(0).getMessage()).contains("API token set (18 characters)");
    }

    @Test
    void anUntickedRememberForgetsTheToken() {
        settings.put("apiToken", "old");
        vm.tokenProperty().set("new-token");
        vm.rememberTokenProperty().set(false);

        vm.connect();

        assertThat(settings.get("apiToken", null)).isNull();
    }

    @Test
    void anUnreachableServerSaysSoAndOffersRetry() {
        cluster.failNext("stats", new ForgeFlowUnavailableException("http://127.0.0.1:8080/",
                new ConnectException("Connection refused")));

        vm.connect();

        assertThat(vm.connectedProperty().get()).isNull();
        assertThat(vm.failedProperty().get()).isTrue();
        assertThat(vm.messageProperty().get()).startsWith("Cannot reach the server at http://127.0.0.1:8080")
                .contains("Connection refused").contains("Retry");
        assertThat(vm.connectLabelProperty().get()).isEqualTo("Retry");
        assertThat(cluster.isClosed()).isTrue();

        vm.connect();

        assertThat(vm.connectedProperty().get()).isSameAs(cluster);
        assertThat(vm.connectLabelProperty().get()).isEqualTo("Connect");
    }

    @Test
    void aRefusedTokenIsToldApartFromAMissingOne() {
        vm.tokenProperty().set("wrong");
        cluster.failNext("stats", new ForgeFlowApiException(403, "token not allowed", null));
        vm.connect();
        assertThat(vm.messageProperty().get()).isEqualTo("The server refused the API token (HTTP 403: token not "
                + "allowed). Check the token and Retry.");

        vm.tokenProperty().set("");
        cluster.failNext("stats", new ForgeFlowApiException(401, "missing token", null));
        vm.connect();
        assertThat(vm.messageProperty().get()).isEqualTo("The server requires an API token (HTTP 401). Enter the "
                + "token and Retry.");
    }

    @Test
    void aServerWithoutTheApiIsNotForgeFlow() {
        cluster.failNext("stats", new ForgeFlowApiException(404, "HTTP 404 Not Found", null));

        vm.connect();

        assertThat(vm.messageProperty().get()).startsWith("No ForgeFlow API at http://127.0.0.1:8080");
    }

    @Test
    void aUrlThatIsNotHttpIsRejectedWithoutAConnection() {
        vm.serverUrlProperty().set("ftp://host");

        vm.connect();

        assertThat(opened).isEmpty();
        assertThat(vm.messageProperty().get()).contains("http://");
        assertThat(vm.failedProperty().get()).isTrue();
    }

    @Test
    void connectIsDisabledWithoutAUrl() {
        vm.serverUrlProperty().set("  ");

        assertThat(vm.canConnectProperty().get()).isFalse();
    }

    @Test
    void disconnectClosesTheClient() {
        vm.connect();
        ClusterClient client = vm.connectedProperty().get();

        vm.disconnect();

        assertThat(vm.connectedProperty().get()).isNull();
        assertThat(((FakeClusterClient) client).isClosed()).isTrue();
    }

    @Test
    void aTraceUrlTemplateIsCheckedBeforeConnectingAndRememberedAfter() {
        vm.traceUrlTemplateProperty().set("http://jaeger:16686/trace/");

        vm.connect();

        assertThat(vm.failedProperty().get()).isTrue();
        assertThat(vm.messageProperty().get()).startsWith("The trace URL template must contain {trace_id}");
        assertThat(opened).isEmpty();

        vm.traceUrlTemplateProperty().set(" http://jaeger:16686/trace/{trace_id} ");
        vm.connect();

        assertThat(vm.connectedProperty().get()).isSameAs(cluster);
        assertThat(settings.get("traceUrlTemplate", null)).isEqualTo("http://jaeger:16686/trace/{trace_id}");
        assertThat(new ConnectionViewModel((u, t) -> cluster, settings, Async.sameThread())
                .traceUrlTemplateProperty().get()).isEqualTo("http://jaeger:16686/trace/{trace_id}");
    }
}
