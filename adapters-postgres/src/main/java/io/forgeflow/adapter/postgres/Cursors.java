package io.forgeflow.adapter.postgres;

import io.forgeflow.domain.port.Page;

import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.ToIntFunction;

/**
 * Opaque cursors of newest-first listings: the URL-safe base64 (no padding) of the 16 bytes of the last id on the
 * page. Ids are UUIDv7, so "older than the cursor" is {@code id < :after}.
 */
final class Cursors {
    private static final int ENCODED_LENGTH = 22;

    private Cursors() {
    }

    static String encode(String id) {
        UUID uuid = UUID.fromString(id);
        ByteBuffer bytes = ByteBuffer.allocate(16);
        bytes.putLong(uuid.getMostSignificantBits()).putLong(uuid.getLeastSignificantBits());
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes.array());
    }

    /** The id a cursor stands for, or null for a null cursor; throws {@link IllegalArgumentException} naming {@code cursor}. */
    static String decode(String cursor) {
        if (cursor == null) {
            return null;
        }
        byte[] bytes = null;
        if (cursor.length() == ENCODED_LENGTH) {
            try {
                bytes = Base64.getUrlDecoder().decode(cursor);
            } catch (IllegalArgumentException e) {
                bytes = null;
            }
        }
        if (bytes == null || bytes.length != 16) {
            throw new IllegalArgumentException("cursor is not one this server issued: pass next_cursor from the previous "
                    + "page unchanged, or leave cursor out to start at the newest");
        }
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        return new UUID(buffer.getLong(), buffer.getLong()).toString();
    }

    /** A page from {@code rows} fetched with a limit of {@code limit + 1}: the extra row only says that more exist. */
    static <T> Page<T> page(List<T> rows, int limit, Function<T, String> id) {
        if (rows.size() <= limit) {
            return new Page<>(rows, null);
        }
        List<T> items = rows.subList(0, limit);
        return new Page<>(items, encode(id.apply(items.get(limit - 1))));
    }

    /**
     * A page from the rows of a budgeted query run with a limit of {@code limit + 1}: the rows that fit the budget, of
     * {@code candidates} the query considered. When fewer than the candidates are on the page (the extra row, or rows
     * past the budget), the cursor continues after its last item.
     */
    static <R, T> Page<T> budgetedPage(List<R> rows, int limit, ToIntFunction<R> candidates, Function<R, T> item,
                                      Function<T, String> id) {
        if (rows.isEmpty()) {
            return new Page<>(List.of(), null);
        }
        List<T> items = rows.subList(0, Math.min(limit, rows.size())).stream().map(item).toList();
        boolean more = candidates.applyAsInt(rows.get(0)) > items.size();
        return new Page<>(items, more ? encode(id.apply(items.get(items.size() - 1))) : null);
    }

    /** Checks a page size; the API clamps to 1..500 before it gets here. */
    static int checkLimit(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1, was " + limit);
        }
        return limit;
    }
}
