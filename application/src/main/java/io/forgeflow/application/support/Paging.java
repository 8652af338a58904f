package io.forgeflow.application.support;

import io.forgeflow.domain.error.InvalidQueryException;
import io.forgeflow.domain.port.Page;

import java.util.function.Supplier;

/** The list rules of API.md: limit 1–500 (default 50), cursors opaque. */
public final class Paging {
    public static final int DEFAULT_LIMIT = 50;
    public static final int MAX_LIMIT = 500;

    private Paging() {
    }

    public static void checkLimit(int limit) {
        if (limit < 1 || limit > MAX_LIMIT) {
            throw new InvalidQueryException("limit", "limit must be between 1 and " + MAX_LIMIT + ", was " + limit);
        }
    }

    /**
     * Runs a paged read, turning a cursor the adapter cannot decode into a 400 that names {@code cursor}. Without
     * a cursor nothing is translated: an IllegalArgumentException then is a bug and must surface as one.
     */
    public static <T> Page<T> withCursor(String cursor, Supplier<Page<T>> read) {
        if (cursor == null) {
            return read.get();
        }
        try {
            return read.get();
        } catch (IllegalArgumentException e) {
            throw new InvalidQueryException("cursor", "cursor is not one this server issued: pass next_cursor from "
                    + "the previous page unchanged, or leave it out for the first page");
        }
    }
}
