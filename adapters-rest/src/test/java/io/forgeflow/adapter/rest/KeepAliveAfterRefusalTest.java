package io.forgeflow.adapter.rest;

import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A PATCH refused for its query (400 on {@code pending}) whose body arrives after its head, as java.net.http sends
 * it: the connection stays usable for the client's next request (CI saw "header parser received no bytes" on the
 * request after such a 400 when the body was left unread).
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class KeepAliveAfterRefusalTest {
    static final DropwizardAppExtension<RestTestConfiguration> APP = new DropwizardAppExtension<>(
            RestTestApplication.class, ResourceHelpers.resourceFilePath("rest-test.yml"));

    @Test
    void aBadQueryRefusedBeforeALateBodyKeepsTheConnection() throws Exception {
        String[] replies = lateBodyThenHealthz("PATCH",
                "/api/jobs/0190a6f2-3c4d-7e8f-9a0b-1c2d3e4f5a6b?pending=sometimes", "{\"priority\": 3}");

        assertThat(replies[0]).startsWith("HTTP/1.1 400").contains("pending");
        assertThat(replies[1]).as("the next request on the same connection").startsWith("HTTP/1.1 200");
    }

    /**
     * The class of the fault above: any route that answers without reading a body its client sent. Routes that take
     * no body (pause, resume, trigger, cancel) answer before a late body arrives; QueueResourceTest met it as "header
     * parser received no bytes" on the request after {@code POST .../resume} with {@code {}}.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"/api/queues/reports/resume", "/api/queues/reports/pause",
            "/api/jobs/0190a6f2-3c4d-7e8f-9a0b-1c2d3e4f5a6b/pause", "/api/runs/0190a6f2-3c4d-7e8f-9a0b-1c2d3e4f5a6b/cancel"})
    void aRouteThatTakesNoBodyKeepsTheConnectionWhenOneArrivesLate(String path) throws Exception {
        String[] replies = lateBodyThenHealthz("POST", path, "{}");

        assertThat(replies[0]).startsWith("HTTP/1.1 ");
        assertThat(replies[1]).as("the next request on the same connection").startsWith("HTTP/1.1 200");
    }

    /**
     * On one connection: a request whose body follows its head in a segment of its own, as java.net.http sends it,
     * then {@code GET /healthz}. Returns both responses.
     */
    static String[] lateBodyThenHealthz(String method, String path, String body) throws Exception {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", APP.getLocalPort()), 5_000);
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            out.write((method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + APP.getLocalPort()
                    + "\r\nContent-Type: application/json\r\nContent-Length: " + body.length() + "\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            // not a wait for anything: the pause is the fault, a body that arrives after the node could answer
            Thread.sleep(300);
            out.write(body.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            String first = readResponse(in);
            out.write(("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:" + APP.getLocalPort() + "\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            return new String[] {first, readResponse(in)};
        }
    }

    /** One response: its head, then Content-Length bytes of body. */
    static String readResponse(InputStream in) throws Exception {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                return head.toString(StandardCharsets.ISO_8859_1) + "(connection closed)";
            }
            head.write(b);
            matched = (b == "\r\n\r\n".charAt(matched)) ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        String text = head.toString(StandardCharsets.ISO_8859_1);
        int length = 0;
        for (String line : text.split("\r\n")) {
            if (line.toLowerCase().startsWith("content-length:")) {
                length = Integer.parseInt(line.substring(15).trim());
            }
        }
        return text + new String(in.readNBytes(length), StandardCharsets.UTF_8);
    }
}
