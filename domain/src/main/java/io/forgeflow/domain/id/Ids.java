package io.forgeflow.domain.id;

import java.security.SecureRandom;
import java.time.Instant;
import java.util.UUID;
import java.util.random.RandomGenerator;

/**
 * Time-ordered identifiers (UUID version 7: 48 bits of Unix milliseconds, then random bits). Newer ids sort
 * after older ones, which keeps inserts at the right edge of the primary-key index and gives "newest first"
 * listings a stable cursor. Clients treat ids as opaque strings.
 */
public final class Ids {
    private static final RandomGenerator RANDOM = new SecureRandom();

    private Ids() {
    }

    public static String newId(Instant now) {
        long millis = now.toEpochMilli();
        long rand = RANDOM.nextLong();
        long msb = (millis << 16) | 0x7000L | ((rand >>> 52) & 0x0FFFL);
        long lsb = (RANDOM.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
        return new UUID(msb, lsb).toString();
    }

    /** Whether {@code value} has the shape of an id (a UUID); anything else cannot name a job or run. */
    public static boolean isWellFormed(String value) {
        if (value == null || value.length() != 36) {
            return false;
        }
        for (int i = 0; i < 36; i++) {
            char c = value.charAt(i);
            boolean dash = i == 8 || i == 13 || i == 18 || i == 23;
            if (dash ? c != '-' : Character.digit(c, 16) < 0) {
                return false;
            }
        }
        return true;
    }
}
