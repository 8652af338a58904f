package io.forgeflow.server;

import io.forgeflow.adapter.executor.JobIsolation;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The node's process made non-dumpable at start: another process of the same OS user (a shell job without a PID
 * namespace or a job user) cannot read its /proc environ. Runs both as {@code nobody} (the test switches users, so it
 * needs root).
 */
class ProcessProtectionIT {
    static final String SECRET = "ffhunted-environ-" + Long.toHexString(System.nanoTime());
    final List<Process> started = new ArrayList<>();
    Path dir;
    String classpath;

    @AfterEach
    void cleanUp() throws Exception {
        started.forEach(Process::destroyForcibly);
        if (dir != null) {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /** The classes and jars the small JVM needs, copied where nobody can read them. */
    String classpathForNobody() throws Exception {
        if (classpath != null) {
            return classpath;
        }
        dir = Files.createTempDirectory(Path.of("/tmp"), "ff-dumpable-",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        Path classes = Files.createDirectories(dir.resolve("classes/io/forgeflow/server"));
        for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            Path path = Path.of(entry);
            if (Files.isDirectory(path) && Files.exists(path.resolve("io/forgeflow/server"))) {
                try (Stream<Path> files = Files.list(path.resolve("io/forgeflow/server"))) {
                    for (Path f : (Iterable<Path>) files::iterator) {
                        String name = f.getFileName().toString();
                        if (name.startsWith("ProcessProtection") || name.startsWith("NonDumpableMain")) {
                            Files.copy(f, classes.resolve(name), StandardCopyOption.REPLACE_EXISTING);
                        }
                    }
                }
            } else if (path.getFileName().toString().matches("(jna|jna-jpms|slf4j-api)-[0-9.]+\\.jar|forgeflow-server-.*\\.jar")) {
                Files.copy(path, dir.resolve(path.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Files.setPosixFilePermissions(f, PosixFilePermissions.fromString(Files.isDirectory(f) ? "rwxr-xr-x"
                        : "rw-r--r--"));
            }
        }
        StringBuilder cp = new StringBuilder(dir.resolve("classes").toString());
        try (Stream<Path> jars = Files.list(dir)) {
            jars.filter(p -> p.toString().endsWith(".jar")).forEach(p -> cp.append(':').append(p));
        }
        classpath = cp.toString();
        return classpath;
    }

    static List<String> asNobody(String... command) {
        List<String> argv = new ArrayList<>(List.of("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                "--"));
        argv.addAll(List.of(command));
        return argv;
    }

    /** What a process of the same user reads of the JVM's environment, started with {@code on} or {@code off}. */
    String environSeenBySameUser(String protection) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder builder = new ProcessBuilder(asNobody(java, "-Xmx64m", "-cp", classpathForNobody(),
                NonDumpableMain.class.getName(), protection)).redirectErrorStream(true);
        builder.environment().put("FORGEFLOW_DATABASE_URL", "postgresql://u:" + SECRET + "@db/ff");
        Process jvm = builder.start();
        started.add(jvm);
        BufferedReader out = new BufferedReader(new InputStreamReader(jvm.getInputStream(), StandardCharsets.UTF_8));
        List<String> lines = new ArrayList<>();
        String line;
        while ((line = out.readLine()) != null && !line.equals("ready")) {
            lines.add(line);
        }
        assertThat(line).as("the JVM said it is ready: %s", lines).isEqualTo("ready");
        assertThat(jvm.isAlive()).as("the JVM is up: %s", lines).isTrue();
        assertThat(lines).doesNotContain("failed");
        Process reader = new ProcessBuilder(asNobody("cat", "/proc/" + jvm.pid() + "/environ"))
                .redirectErrorStream(true).start();
        String seen = new String(reader.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        reader.waitFor(10, TimeUnit.SECONDS);
        return seen;
    }

    @Test
    void aProcessOfTheNodesUserCannotReadTheEnvironmentOfANonDumpableNode() throws Exception {
        assumeTrue(JobIsolation.effectiveUid() == 0, "needs root to run both processes as nobody");

        assertThat(environSeenBySameUser("off")).as("the control: readable without the protection").contains(SECRET);
        assertThat(environSeenBySameUser("on")).doesNotContain(SECRET).contains("Permission denied");
    }
}
