package io.forgeflow.server;

import io.dropwizard.core.setup.Environment;
import io.dropwizard.lifecycle.ServerLifecycleListener;
import org.eclipse.jetty.server.Server;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.IntSupplier;

/**
 * FORGEFLOW_PORTS_FILE: once every listener is open, the node writes the ports it bound ({@code api=}, {@code admin=}
 * and {@code grpc=} lines) to this file, atomically, and deletes it when it stops. With listen addresses on port 0 the
 * kernel picks free ports and a supervisor or a test reads them here: no window in which another process can take a
 * port chosen in advance.
 */
final class PortsFile implements ServerLifecycleListener {
    static final String VARIABLE = "FORGEFLOW_PORTS_FILE";
    private static final Logger LOG = LoggerFactory.getLogger(PortsFile.class);

    private final Path file;
    private final IntSupplier grpcPort; // null without gRPC

    private PortsFile(Path file, IntSupplier grpcPort) {
        this.file = file;
        this.grpcPort = grpcPort;
    }

    /** Installs the writer when {@code path} is set; {@code grpcPort} is null on a node without gRPC. */
    static void install(Environment environment, String path, IntSupplier grpcPort) {
        if (path == null || path.isBlank()) {
            return;
        }
        PortsFile ports = new PortsFile(Path.of(path.trim()).toAbsolutePath(), grpcPort);
        ports.checkWritable(); // before anything listens: a node that cannot say its ports does not start
        environment.lifecycle().addServerLifecycleListener(ports);
        environment.lifecycle().manage(NodeWiring.managed(() -> { }, ports::delete));
    }

    @Override
    public void serverStarted(Server server) {
        Map<String, Integer> ports = new LinkedHashMap<>();
        ports.put("api", getLocalPort(server));
        ports.put("admin", getAdminPort(server));
        if (grpcPort != null) {
            ports.put("grpc", grpcPort.getAsInt());
        }
        write(ports);
        LOG.info("ports {} written to {}", ports, file);
    }

    /** {@code name=port} lines, written to a temporary file beside it and moved over it. */
    void write(Map<String, Integer> ports) {
        StringBuilder text = new StringBuilder();
        ports.forEach((name, port) -> text.append(name).append('=').append(port).append('\n'));
        try {
            Path dir = file.getParent();
            Files.createDirectories(dir);
            Path tmp = Files.createTempFile(dir, file.getFileName().toString(), ".tmp");
            Files.writeString(tmp, text, StandardCharsets.UTF_8);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException(VARIABLE + ": cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    private void checkWritable() {
        try {
            Files.createDirectories(file.getParent());
            Files.delete(Files.createTempFile(file.getParent(), file.getFileName().toString(), ".tmp"));
        } catch (IOException e) {
            throw new IllegalStateException(VARIABLE + " is " + file + ", but its directory is not writable ("
                    + e + "): name a file in a directory this node's user can write", e);
        }
    }

    private void delete() {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            LOG.warn("{}: cannot delete {}: {}", VARIABLE, file, e.toString());
        }
    }
}
