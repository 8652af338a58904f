package io.forgeflow.client;

import java.util.List;

/** One page of a list, newest first. Pass {@link #nextCursor()} back to get the next page; it is null on the last. */
public record Page<T>(List<T> items, String nextCursor) {

    public Page {
        items = items == null ? List.of() : List.copyOf(items);
    }

    /** Whether a further page exists. */
    public boolean hasMore() {
        return nextCursor != null && !nextCursor.isEmpty();
    }
}
