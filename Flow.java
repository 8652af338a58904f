package io.forgeflow.domain.job;

import io.forgeflow.domain.error.ValidationException;

/** The checks {@link Debounce} and {@link Throttle} share. */
final class Flow {
    private Flow() {
    }

    static String key(String field, String key, String example) {
        if (key == null) {
            throw new ValidationException(field, field + " is required: the key the submissions share, e.g. " + example);
        }
        if (key.isBlank() || key.length() > QueueNames.MAX_KEY_LENGTH || key.chars().anyMatch(Character::isISOControl)) {
            throw new ValidationException(field, field + " must be 1 to " + QueueNames.MAX_KEY_LENGTH
                    + " characters, not blank and without control characters, e.g. " + example);
        }
        return key;
    }

    static int range(String field, Integer value, int min, int max) {
        if (value < min || value > max) {
            throw new ValidationException(field, field + " must be between " + min + " and " + max + ", was " + value);
        }
        return value;
    }

    static String printable(String s) {
        String cut = s.length() > 60 ? s.substring(0, 60) + "…" : s;
        return cut.replace('\0', '?');
    }
}
