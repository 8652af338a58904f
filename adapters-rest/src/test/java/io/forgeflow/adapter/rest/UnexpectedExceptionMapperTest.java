package io.forgeflow.adapter.rest;

import jakarta.ws.rs.core.Response;
import org.eclipse.jetty.http.BadMessageException;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The last-resort mapper: a bug is a 500, but a client's request the HTTP server refused while it was read is not. */
class UnexpectedExceptionMapperTest {
    final UnexpectedExceptionMapper mapper = new UnexpectedExceptionMapper();

    @SuppressWarnings("unchecked")
    static Map<String, Object> body(Response response) {
        try {
            return new com.fasterxml.jackson.databind.ObjectMapper().readValue((String) response.getEntity(), Map.class);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void aBodyTheHttpServerStoppedReadingIsTheClientsTimeoutNotAServerError() {
        // as Jetty throws it when a body arrives (or is read) below the minimum data rate, wrapped by a reader
        Throwable thrown = new UncheckedIOException(new IOException(
                new BadMessageException(408, "Request content data rate < 1024 B/s")));

        Response response = mapper.toResponse(thrown);

        assertThat(response.getStatus()).isEqualTo(408);
        assertThat(body(response)).containsEntry("code", "request_timeout").doesNotContainKey("error_id");
        assertThat((String) body(response).get("error")).contains("did not arrive in time");
    }

    @Test
    void anotherRefusalKeepsItsStatus() {
        Response response = mapper.toResponse(new BadMessageException(400, "Bad chunk"));

        assertThat(response.getStatus()).isEqualTo(400);
        assertThat(body(response)).containsEntry("code", "bad_request");
    }

    @Test
    void anythingElseIsStillA500WithAnErrorId() {
        Response response = mapper.toResponse(new IllegalStateException("a bug"));

        assertThat(response.getStatus()).isEqualTo(500);
        assertThat(body(response)).containsEntry("code", "internal_error").containsKey("error_id");
    }

    /** Stands in for a driver's connection failure, told by the classifier the server gives (adapters-postgres's). */
    static final class ConnectionRefused extends RuntimeException {
        ConnectionRefused() {
            super("Connection to 127.0.0.1:5432 refused");
        }
    }

    @Test
    void aFailureTheClassifierCallsAnOutageIsA503UnavailableWithRetryAfterAndNoErrorId() {
        UnexpectedExceptionMapper classified = new UnexpectedExceptionMapper(
                t -> t.getCause() instanceof ConnectionRefused);

        Response response = classified.toResponse(new IllegalStateException("jdbi", new ConnectionRefused()));

        assertThat(response.getStatus()).isEqualTo(503);
        assertThat(response.getHeaderString("Retry-After")).isEqualTo("2");
        assertThat(body(response)).containsEntry("code", "unavailable").doesNotContainKey("error_id");
        assertThat((String) body(response).get("error")).contains("database is unavailable");
        assertThat(classified.toResponse(new IllegalStateException("a bug")).getStatus()).isEqualTo(500);
    }

    @Test
    void theDomainsUnavailableAnywhereInTheChainIsA503EvenWithoutAClassifier() {
        Response response = mapper.toResponse(new IllegalStateException("wrapped",
                new io.forgeflow.domain.error.UnavailableException("the database is unavailable", null)));

        assertThat(response.getStatus()).isEqualTo(503);
        assertThat(response.getHeaderString("Retry-After")).isEqualTo("2");
        assertThat(body(response)).containsEntry("code", "unavailable");
    }
}
