package io.forgeflow.adapter.rest;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * {@code GET /api/openapi.json}: the OpenAPI 3.1 document of the whole API, the file {@code openapi.json} beside this
 * class (kept by hand; OpenApiContractTest validates real responses against it). Public: it holds no data, and clients
 * are generated from it before anyone has a token.
 */
@Path("/api/openapi.json")
public final class OpenApiResource {
    /** The document's classpath resource, next to this class. */
    public static final String RESOURCE = "openapi.json";
    private final byte[] document;

    public OpenApiResource() {
        this.document = load();
    }

    /** The document's bytes (UTF-8 JSON). */
    public static byte[] load() {
        try (InputStream in = OpenApiResource.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is missing beside " + OpenApiResource.class.getName());
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public byte[] document() {
        return document.clone();
    }
}
