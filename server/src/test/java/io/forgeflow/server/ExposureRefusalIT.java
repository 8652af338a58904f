package io.forgeflow.server;

import io.forgeflow.adapter.postgres.testing.LoopbackPorts;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The built jar, started the way an operator would: a node asked to listen on every interface without API tokens
 * exits before it opens any port or database, with a message that says how to configure tokens; malformed tokens
 * stop it the same way. Nothing ever listens: the refusal comes first.
 */
class ExposureRefusalIT {

    @Test
    void aNodeOnANonLoopbackAddressWithoutTokensRefusesToStart() throws Exception {
        int port = LoopbackPorts.outsideEphemeralRange();
        Result r = start("exposed", Map.of("FORGEFLOW_LISTEN_ADDR", "0.0.0.0:" + port));

        assertThat(r.exitCode).as(r.log).isNotZero();
        assertThat(r.log).contains("refusing to start: the API would listen on 0.0.0.0:" + port)
                .contains("FORGEFLOW_API_TOKENS=admin:<secret>").contains("FORGEFLOW_INSECURE=true");
        assertThat(portIsFree(port)).isTrue();
    }

    @Test
    void malformedTokensStopTheNodeNamingTheVariableButNotTheToken() throws Exception {
        Result r = start("bad-tokens", Map.of("FORGEFLOW_API_TOKENS", "admin:ok-0123456789abcdef,sup3rs3cret-token"));

        assertThat(r.exitCode).as(r.log).isNotZero();
        assertThat(r.log).contains("FORGEFLOW_API_TOKENS entry 2 is not scope:token").doesNotContain("sup3rs3cret");
    }

    record Result(int exitCode, String log) {
    }

    static Result start(String name, Map<String, String> env) throws Exception {
        Path jar = NodeProcess.JAR;
        assertThat(jar).as("run with mvn verify, which packages the jar first").exists();
        Path log = Files.createDirectories(Path.of("target", "node-logs")).resolve(name + ".log");
        ProcessBuilder pb = new ProcessBuilder(List.of(System.getProperty("java.home") + File.separator + "bin"
                + File.separator + "java", "-Xmx128m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-jar",
                jar.toString(), "server")).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("FORGEFLOW_"));
        pb.environment().put("LANG", "C.UTF-8");
        // never reached: the refusal comes before the database (and before the development database would start)
        pb.environment().put("FORGEFLOW_DATABASE_URL", "postgresql://nobody@127.0.0.1:1/none");
        pb.environment().put("FORGEFLOW_ADMIN_LISTEN_ADDR", "127.0.0.1:0");
        pb.environment().putAll(env);
        Process process = pb.start();
        try {
            assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("exits by itself").isTrue();
            return new Result(process.exitValue(), Files.readString(log));
        } finally {
            process.destroyForcibly();
        }
    }

    static boolean portIsFree(int port) {
        try (ServerSocket s = new ServerSocket(port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
