package io.forgeflow.adapter.postgres.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A loopback port for a program that cannot bind port 0 and say what it got (PgBouncer, PostgreSQL, a proxy that must
 * listen again on the same port). "Bind port 0, close, hand the number on" races every outgoing connection of the
 * machine: the kernel hands the same ephemeral ports to clients, so the port can be taken before the program binds it.
 * This picks below the kernel's ephemeral range ({@code net.ipv4.ip_local_port_range}), which no outgoing connection
 * uses, a port free now. Our own node binds port 0 and writes FORGEFLOW_PORTS_FILE instead.
 */
public final class LoopbackPorts {
    private static final int LOWEST = 10_000;

    private LoopbackPorts() {
    }

    public static int outsideEphemeralRange() {
        int below = ephemeralLow();
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int i = 0; i < 200; i++) {
            int port = random.nextInt(LOWEST, below);
            if (free(port)) {
                return port;
            }
        }
        throw new IllegalStateException("no free loopback port between " + LOWEST + " and " + below);
    }

    /** Whether nothing holds this port on loopback now. */
    public static boolean free(int port) {
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(false);
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            return true;
        } catch (IOException taken) {
            return false;
        }
    }

    static int ephemeralLow() {
        Path range = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
        try {
            // read as a stream: Files.readString trusts the size /proc reports and returned "3" of "32768\t60999"
            int low = 32_768;
            if (Files.exists(range)) {
                try (java.io.BufferedReader in = Files.newBufferedReader(range)) {
                    low = Integer.parseInt(in.readLine().trim().split("\\s+")[0]);
                }
            }
            if (low <= LOWEST + 1_000) {
                throw new IllegalStateException("the ephemeral range starts at " + low + " (" + range
                        + "): no room below it for test ports");
            }
            return low;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
