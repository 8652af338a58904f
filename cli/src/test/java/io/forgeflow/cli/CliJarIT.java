package io.forgeflow.cli;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * target/forgeflow-cli.jar as a user runs it ({@code java -jar}, a process of its own): its manifest starts the
 * command line, and its libraries are inside. A node's answers come from an HTTP server on loopback.
 */
class CliJarIT {
    static final Path JAR = Path.of("target", "forgeflow-cli.jar");

    HttpServer node;

    record Result(int code, String out, String err) {
    }

    @BeforeEach
    void start() throws IOException {
        node = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        node.createContext("/api/nodes", exchange -> {
            String auth = exchange.getRequestHeaders().getFirst("Authorization");
            byte[] body = ("Bearer jar-token".equals(auth)
                    ? "{\"items\": []}" : "{\"error\": \"authentication required\"}").getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders("Bearer jar-token".equals(auth) ? 200 : 401, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        node.start();
    }

    @AfterEach
    void stop() {
        node.stop(0);
    }

    Result run(Map<String, String> env, String... args) throws Exception {
        assertThat(JAR).as("mvn package builds the jar before the ITs").exists();
        List<String> command = new java.util.ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar", JAR.toString()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().keySet().removeIf(k -> k.startsWith("FORGEFLOW_"));
        builder.environment().putAll(env);
        Path out = Files.createTempFile("cli-out", ".txt");
        Path err = Files.createTempFile("cli-err", ".txt");
        try {
            Process process = builder.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("the cli exits within 60 s").isTrue();
            return new Result(process.exitValue(), Files.readString(out), Files.readString(err));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    String server() {
        return "http://127.0.0.1:" + node.getAddress().getPort();
    }

    @Test
    void helpListsTheClientCommandsAndNoneOfTheNodes() throws Exception {
        Result help = run(Map.of(), "--help");

        assertThat(help.code()).as(help.toString()).isZero();
        assertThat(help.out()).contains("java -jar forgeflow-cli.jar").contains("jobs").contains("runs").contains("batches")
                .contains("dlq").contains("queues").contains("tenants").contains("stats").contains("nodes").contains("schedules")
                .doesNotContainPattern("(?m)^ +(server|check|db) ");
        Result version = run(Map.of(), "-v");
        assertThat(version.code()).isZero();
        assertThat(version.out()).startsWith("forgeflow-cli ").doesNotContain("unknown");
    }

    @Test
    void aCommandReachesTheNodeWithTheTokenFromItsFileAndExitsByTheAnswer() throws Exception {
        Path token = Files.writeString(Files.createTempFile("token", ""), "jar-token\n");
        try {
            Result ok = run(Map.of("FORGEFLOW_SERVER", server(), "FORGEFLOW_TOKEN_FILE", token.toString()), "nodes", "--json");
            assertThat(ok.code()).as(ok.toString()).isZero();
            assertThat(ok.out()).contains("\"items\"");
            Result refused = run(Map.of("FORGEFLOW_SERVER", server()), "nodes");
            assertThat(refused.code()).as(refused.toString()).isEqualTo(ExitCodes.FAILURE);
            assertThat(refused.err()).contains("authentication required").contains("[HTTP 401]");
        } finally {
            Files.deleteIfExists(token);
        }
    }

    @Test
    void badUsageExits2AndSaysWhatIsWrong() throws Exception {
        Result none = run(Map.of(), "jobs");
        assertThat(none.code()).as(none.toString()).isEqualTo(ExitCodes.USAGE);
        assertThat(none.err()).contains("too few arguments").contains("--help");
        Result unknown = run(Map.of(), "frobnicate");
        assertThat(unknown.code()).as(unknown.toString()).isEqualTo(ExitCodes.USAGE);
        assertThat(unknown.err()).contains("frobnicate");
        Result badServer = run(Map.of(), "jobs", "list", "--server", "not a url");
        assertThat(badServer.code()).as(badServer.toString()).isEqualTo(ExitCodes.USAGE);
    }
}
