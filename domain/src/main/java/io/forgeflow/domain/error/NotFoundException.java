package io.forgeflow.domain.error;

/** No job or run has this id. The API answers 404. */
public final class NotFoundException extends RuntimeException {
    public NotFoundException(String kind, String id) {
        super("no " + kind + " with id '" + id + "'");
    }
}
