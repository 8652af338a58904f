package io.forgeflow.server;

import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import org.postgresql.ds.PGSimpleDataSource;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A class-data-sharing archive of the node jar's classes (JDK AppCDS), made once per build by one training start, so
 * that each of the many node processes the integration tests start loads its classes from the archive instead of
 * parsing and verifying them again: about a quarter less CPU per node start (docs/ci.md). The nodes run the same jar
 * and code either way. The failsafe JVMs share the archive through a file lock; if it cannot be made, nodes start
 * without it. {@code -Dforgeflow.test.nodeCds=false} turns it off.
 */
final class NodeClassArchive {
    static final Path ARCHIVE = Path.of("target", "node-cds", "forgeflow-node.jsa");
    private static Optional<Path> archive;

    private NodeClassArchive() {
    }

    /** The archive for {@link NodeProcess#JAR}, made now if this build has none yet; empty when it cannot be made. */
    static synchronized Optional<Path> get() {
        if (archive == null) {
            archive = Boolean.parseBoolean(System.getProperty("forgeflow.test.nodeCds", "true")) ? make() : Optional.empty();
        }
        return archive;
    }

    private static Optional<Path> make() {
        try {
            Files.createDirectories(ARCHIVE.getParent());
            try (FileChannel channel = FileChannel.open(ARCHIVE.resolveSibling("lock"), StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE); FileLock ignored = channel.lock()) {
                if (current()) {
                    return Optional.of(ARCHIVE);
                }
                train();
                return current() ? Optional.of(ARCHIVE) : Optional.empty();
            }
        } catch (Exception e) {
            System.err.println("node class archive not made, nodes start without it: " + e);
            return Optional.empty();
        }
    }

    /** An archive made from this build's jar (the JVM would refuse one made from another, and warn). */
    private static boolean current() throws IOException {
        return Files.exists(ARCHIVE) && Files.size(ARCHIVE) > 0
                && Files.getLastModifiedTime(ARCHIVE).compareTo(Files.getLastModifiedTime(NodeProcess.JAR)) >= 0;
    }

    /**
     * Starts the jar once as a node of every role on an empty database of its own (so the migrations' classes are
     * loaded too), waits until it is ready and has answered a few API calls, and stops it with SIGTERM: the JVM writes
     * the classes it loaded when it exits.
     */
    private static void train() throws Exception {
        PGSimpleDataSource empty = (PGSimpleDataSource) PostgresExtension.migrated().createEmptyDatabase();
        String url = empty.getURL() + (empty.getURL().contains("?") ? "&" : "?") + "user=" + empty.getUser()
                + (empty.getPassword() == null || empty.getPassword().isEmpty() ? "" : "&password=" + empty.getPassword());
        Path partial = ARCHIVE.resolveSibling("training.jsa");
        Files.deleteIfExists(partial);
        Path log = ARCHIVE.resolveSibling("training.log");
        Path portsFile = ARCHIVE.resolveSibling("training.ports");
        Files.deleteIfExists(portsFile);
        ProcessBuilder pb = NodeProcess.processBuilder("class-archive-training", "api,scheduler,worker", url, Map.of(),
                List.of("-XX:ArchiveClassesAtExit=" + partial), log, portsFile);
        Process process = pb.start();
        try {
            long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
            int port = NodeProcess.awaitPorts("class-archive-training", portsFile, process, log, deadline).get("api");
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
            for (String path : List.of("/readyz", "/api/jobs", "/api/runs", "/api/stats", "/api/nodes")) {
                while (System.nanoTime() < deadline) {
                    try {
                        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                                + path)).timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
                        if (r.statusCode() == 200) {
                            break;
                        }
                    } catch (IOException notYet) {
                        // not listening yet
                    }
                    process.waitFor(200, TimeUnit.MILLISECONDS);
                }
            }
            process.destroy();
            if (!process.waitFor(120, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the training node did not exit after SIGTERM; see " + log);
            }
        } finally {
            process.destroyForcibly();
        }
        if (Files.exists(partial) && Files.size(partial) > 0) {
            Files.move(partial, ARCHIVE, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } else {
            throw new IllegalStateException("the training node wrote no archive; see " + log);
        }
    }
}
