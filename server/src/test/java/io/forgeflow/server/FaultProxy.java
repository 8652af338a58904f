package io.forgeflow.server;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A fault-injection TCP proxy on loopback, put between a node and PostgreSQL (or any TCP server). Faults apply to
 * every connection, open or new:
 * <ul>
 *   <li>{@link #pass()}: bytes flow both ways (the start state);</li>
 *   <li>{@link #delay(Duration)}: each chunk, either way, waits that long before it is forwarded;</li>
 *   <li>{@link #dropReplyTo(String)}: the reply to the next request whose bytes contain the marker is swallowed up
 *       to and including PostgreSQL's ReadyForQuery message (so the statement has committed), then that connection is
 *       reset: the server did the work, the client never hears of it;</li>
 *   <li>{@link #reset()}: every open connection is cut with a TCP reset; new ones are accepted;</li>
 *   <li>{@link #blackhole()}: nothing is forwarded and nothing is closed, like packets dropped on the way: clients
 *       block until their own timeouts fire. {@link #pass()} lets the traffic flow again (bytes sent meanwhile are
 *       lost, so the connections that carried them are cut then).</li>
 * </ul>
 * Only loopback: the proxy listens on 127.0.0.1, on a free port. {@link #main} runs it as a process for
 * scripts/chaos.sh.
 */
public final class FaultProxy implements AutoCloseable {
    private enum Mode { PASS, DELAY, BLACKHOLE }

    private final String targetHost;
    private final int targetPort;
    private final ServerSocket server;
    private final Set<Link> links = ConcurrentHashMap.newKeySet();
    private volatile Mode mode = Mode.PASS;
    private volatile long delayMillis;
    private final AtomicReference<String> dropMarker = new AtomicReference<>();
    private final AtomicInteger dropped = new AtomicInteger();

    public FaultProxy(String targetHost, int targetPort) throws IOException {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.server = new ServerSocket();
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        Thread acceptor = new Thread(this::accept, "fault-proxy-accept-" + server.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public int port() {
        return server.getLocalPort();
    }

    /** A JDBC URL to the proxied PostgreSQL database {@code database}. */
    public String jdbcUrl(String database) {
        return "jdbc:postgresql://127.0.0.1:" + port() + "/" + database;
    }

    /** Forwards everything again. Connections that lost bytes while blackholed are cut. */
    public void pass() {
        Mode before = mode;
        mode = Mode.PASS;
        if (before == Mode.BLACKHOLE) {
            for (Link link : links) {
                if (link.lostBytes) {
                    link.cut(true);
                }
            }
        }
    }

    public void delay(Duration each) {
        delayMillis = each.toMillis();
        mode = Mode.DELAY;
    }

    /** Swallows the next reply to a request containing {@code marker} (ASCII) and resets that connection. */
    public void dropReplyTo(String marker) {
        dropMarker.set(marker);
    }

    /** How many replies {@link #dropReplyTo} swallowed. */
    public int droppedReplies() {
        return dropped.get();
    }

    /** Cuts every open connection with a TCP reset. */
    public void reset() {
        for (Link link : links) {
            link.cut(true);
        }
    }

    public void blackhole() {
        mode = Mode.BLACKHOLE;
    }

    /** Open client connections. */
    public int connections() {
        return links.size();
    }

    @Override
    public void close() {
        closeQuietly(server);
        reset();
    }

    /**
     * {@code FaultProxy HOST PORT}: proxies to HOST:PORT, prints {@code port N} once listening, then takes one command
     * a line on standard input ({@code pass}, {@code blackhole}, {@code reset}, {@code delay MILLIS}) and answers
     * {@code ok} to each; ends at end of input.
     */
    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            System.err.println("usage: FaultProxy HOST PORT");
            System.exit(2);
        }
        try (FaultProxy proxy = new FaultProxy(args[0], Integer.parseInt(args[1]));
             java.io.BufferedReader commands = new java.io.BufferedReader(
                     new java.io.InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            System.out.println("port " + proxy.port());
            String line;
            while ((line = commands.readLine()) != null) {
                String[] words = line.trim().split("\\s+");
                switch (words[0]) {
                    case "pass" -> proxy.pass();
                    case "blackhole" -> proxy.blackhole();
                    case "reset" -> proxy.reset();
                    case "delay" -> proxy.delay(Duration.ofMillis(Long.parseLong(words[1])));
                    default -> {
                        System.out.println("unknown command: " + line);
                        continue;
                    }
                }
                System.out.println("ok");
            }
        }
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                Socket upstream = new Socket();
                upstream.connect(new InetSocketAddress(targetHost, targetPort), 5_000);
                Link link = new Link(client, upstream);
                links.add(link);
                link.start();
            } catch (IOException e) {
                if (server.isClosed()) {
                    return;
                }
            }
        }
    }

    /** One client connection and its upstream. */
    private final class Link {
        final Socket client;
        final Socket upstream;
        /** Set when a request carried the drop marker: the next reply on this link is swallowed. */
        volatile boolean dropNextReply;
        volatile boolean lostBytes;

        Link(Socket client, Socket upstream) {
            this.client = client;
            this.upstream = upstream;
        }

        void start() {
            pump(client, upstream, true);
            pump(upstream, client, false);
        }

        private void pump(Socket from, Socket to, boolean request) {
            Thread t = new Thread(() -> {
                byte[] buffer = new byte[64 * 1024];
                try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                    int n;
                    while ((n = in.read(buffer)) >= 0) {
                        if (!forward(buffer, n, request, out)) {
                            return;
                        }
                    }
                } catch (IOException e) {
                    // one side closed or was cut
                } finally {
                    cut(false);
                }
            }, "fault-proxy-" + (request ? "request" : "reply"));
            t.setDaemon(true);
            t.start();
        }

        /** Forwards one chunk as the current mode says; false once the link was cut. */
        private boolean forward(byte[] buffer, int n, boolean request, OutputStream out) throws IOException {
            Mode now = mode;
            if (now == Mode.BLACKHOLE) {
                lostBytes = true;
                return true;
            }
            if (now == Mode.DELAY) {
                try {
                    Thread.sleep(delayMillis);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
            if (request) {
                String marker = dropMarker.get();
                if (marker != null && new String(buffer, 0, n, StandardCharsets.ISO_8859_1).contains(marker)
                        && dropMarker.compareAndSet(marker, null)) {
                    dropNextReply = true;
                }
            } else if (dropNextReply) {
                if (endsWithReadyForQuery(buffer, n)) {
                    dropped.incrementAndGet();
                    cut(true);
                    return false;
                }
                return true;
            }
            out.write(buffer, 0, n);
            out.flush();
            return true;
        }

        /** PostgreSQL's ReadyForQuery: 'Z', length 5, transaction status; sent once a statement's work is over. */
        private boolean endsWithReadyForQuery(byte[] b, int n) {
            return n >= 6 && b[n - 6] == 'Z' && b[n - 5] == 0 && b[n - 4] == 0 && b[n - 3] == 0 && b[n - 2] == 5;
        }

        void cut(boolean hard) {
            if (!links.remove(this) && !hard) {
                return;
            }
            for (Socket s : new Socket[] {client, upstream}) {
                try {
                    if (hard && !s.isClosed()) {
                        s.setSoLinger(true, 0); // close sends RST, not FIN
                    }
                } catch (IOException e) {
                    // already gone
                }
                closeQuietly(s);
            }
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            // already closed
        }
    }
}
