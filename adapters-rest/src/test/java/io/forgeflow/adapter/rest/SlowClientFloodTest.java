package io.forgeflow.adapter.rest;

import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Floods of slow clients on real sockets (issue 39): 1,500 connections, spread over loopback addresses 127.0.0.2 to
 * 127.0.0.16 (100 each, under this server's cap of 200 per address), that declare a body and then send almost
 * nothing of it, cannot hold the node: the probes and an authenticated submission are answered at once (see
 * {@link #CEILING}), and each flood connection gets its 413 or 401 and is closed, its body unread.
 * The cap per client address and the minimum data rate of a body are each seen acting too.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class SlowClientFloodTest {
    static final DropwizardAppExtension<RestTestConfiguration> APP = new DropwizardAppExtension<>(
            RestTestApplication.class, ResourceHelpers.resourceFilePath("rest-flood-test.yml"));
    static final String ADMIN = "admin-token-0123456789";
    static final int FLOOD = 1_500;
    static final int ADDRESSES = 15;
    /**
     * Each probe's ceiling while the flood is being answered: 0.02 to 0.6 s seen on this 2-core machine at load 9 to
     * 20 (other builds), once 3.5 s at load 20 and more; 1 s is the aim on a quiet machine, 5 s leaves room for a busy
     * one. Before the fix they waited for the flood's bodies: more than 10 s (timed out).
     */
    static final Duration CEILING = Duration.ofSeconds(5);

    final List<Socket> sockets = new ArrayList<>();

    @AfterEach
    void closeSockets() {
        for (Socket socket : sockets) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing
            }
        }
    }

    @Test
    void fifteenHundredOversizedSlowBodiesAreRefusedAtOnceAndLeaveTheNodeAnswering() throws Exception {
        Api api = warmedUp();
        for (int i = 0; i < FLOOD; i++) {
            // a 30 MB body declared, one byte of it sent (with a token: without one it is the next test's 401)
            sockets.add(slowRequest(2 + i % ADDRESSES, "POST /api/jobs", 30_000_000, ADMIN));
        }

        assertAnsweredWithinASecond(api);
        for (int i = 0; i < FLOOD; i += 100) {
            assertThat(answerThenEnd(sockets.get(i))).as("connection %d", i).startsWith("HTTP/1.1 413");
        }
    }

    @Test
    void fifteenHundredSlowBodiesWithoutATokenGet401AtOnceAndTheirConnectionsClosed() throws Exception {
        Api api = warmedUp();
        for (int i = 0; i < FLOOD; i++) {
            // the flood: a 30 MB body declared (or 900 kB, under the limit), one byte of it sent, no token
            sockets.add(slowRequest(2 + i % ADDRESSES, "POST /api/jobs", i % 2 == 0 ? 30_000_000 : 900_000, null));
        }

        assertAnsweredWithinASecond(api);
        for (int i = 0; i < FLOOD; i += 100) {
            assertThat(answerThenEnd(sockets.get(i))).as("connection %d", i).startsWith("HTTP/1.1 401");
        }
    }

    @Test
    void anAuthenticatedBodyBelowTheMinimumRateIsEndedAfterTheGrace() throws Exception {
        warmedUp();
        Socket socket = slowRequest(20, "POST /api/jobs", 500_000, ADMIN);
        sockets.add(socket);
        OutputStream out = socket.getOutputStream();
        long start = System.nanoTime();
        String answer = null;
        // 20 bytes every 100 ms (200 B/s) is under the 1,024 B/s this server asks for after its 1 s grace
        for (int i = 0; i < 300 && answer == null; i++) {
            try {
                out.write("                    ".getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
            } catch (SocketException closed) {
                break;
            }
            if (socket.getInputStream().available() > 0) {
                break;
            }
            Thread.sleep(100); // the client's pace, not a timing assertion
        }
        answer = answerThenEnd(socket);
        assertThat(answer).startsWith("HTTP/1.1 408").contains("request_timeout");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("ended long before the 30 s idle timeout")
                .isLessThan(Duration.ofSeconds(20));
    }

    @Test
    void connectionsOverTheCapOfOneAddressAreClosedWhileOtherAddressesAreServed() throws Exception {
        Api api = warmedUp();
        for (int i = 0; i < 210; i++) {
            Socket socket = connect(30);
            sockets.add(socket);
            socket.getOutputStream().write(("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
        }
        int answered = 0;
        int closed = 0;
        for (Socket socket : sockets) { // the connections stay open after their answer: the cap counts connections
            socket.setSoTimeout(10_000);
            int first;
            try {
                first = socket.getInputStream().read();
            } catch (SocketException reset) {
                first = -1;
            }
            if (first < 0) {
                closed++;
            } else {
                answered++;
            }
        }
        assertThat(answered).as("connections from 127.0.0.30 answered").isEqualTo(200);
        assertThat(closed).as("connections from 127.0.0.30 closed unanswered").isEqualTo(10);
        assertAnsweredWithinASecond(api);
    }

    private Api warmedUp() {
        Api api = new Api(APP.getLocalPort(), ADMIN);
        assertThat(api.get("/healthz").status()).isEqualTo(200); // the first request pays for class loading
        assertThat(submit(api).status()).isEqualTo(201);
        for (int i = 0; i < 20; i++) { // and the refusals' paths
            try (Socket oversized = slowRequest(40, "POST /api/jobs", 30_000_000, ADMIN);
                 Socket tokenless = slowRequest(40, "POST /api/jobs", 900, null)) {
                assertThat(answerThenEnd(oversized)).startsWith("HTTP/1.1 413");
                assertThat(answerThenEnd(tokenless)).startsWith("HTTP/1.1 401");
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
        return api;
    }

    private static Api.Reply submit(Api api) {
        return api.post("/api/jobs", "{\"name\": \"beside-the-flood\", \"executor\": \"shell\", "
                + "\"payload\": {\"command\": \"true\"}}");
    }

    private static void assertAnsweredWithinASecond(Api api) {
        assertWithinASecond("/healthz", () -> api.get("/healthz"), 200);
        assertWithinASecond("/readyz", () -> api.get("/readyz"), 200);
        assertWithinASecond("an authenticated submission", () -> submit(api), 201);
    }

    private static void assertWithinASecond(String what, Supplier<Api.Reply> call, int status) {
        long start = System.nanoTime();
        Api.Reply reply = call.get();
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(reply.status()).as(what).isEqualTo(status);
        assertThat(took).as(what + " answered in").isLessThan(CEILING);
    }

    /** A connection from 127.0.0.{@code host}. */
    private static Socket connect(int host) throws IOException {
        Socket socket = new Socket();
        socket.bind(new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 0, 0, (byte) host}), 0));
        socket.connect(new InetSocketAddress("127.0.0.1", APP.getLocalPort()), 5_000);
        return socket;
    }

    /** Sends a request's head that declares {@code length} bytes of body, then one byte of it. */
    private static Socket slowRequest(int host, String requestLine, long length, String token) throws IOException {
        Socket socket = connect(host);
        OutputStream out = socket.getOutputStream();
        out.write((requestLine + " HTTP/1.1\r\nHost: 127.0.0.1:" + APP.getLocalPort() + "\r\n"
                + (token == null ? "" : "Authorization: Bearer " + token + "\r\n")
                + "Content-Type: application/json\r\nContent-Length: " + length + "\r\n\r\n{")
                .getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
        return socket;
    }

    /** The answer on this connection, read until the server closes it (a test failure if it does not within 10 s). */
    private static String answerThenEnd(Socket socket) throws IOException {
        socket.setSoTimeout(10_000);
        InputStream in = socket.getInputStream();
        StringBuilder text = new StringBuilder();
        byte[] buffer = new byte[4096];
        try {
            for (int n; (n = in.read(buffer)) >= 0; ) {
                text.append(new String(buffer, 0, n, StandardCharsets.ISO_8859_1));
            }
        } catch (SocketException reset) {
            // a reset after the answer also ends the connection
        }
        return text.toString();
    }
}
