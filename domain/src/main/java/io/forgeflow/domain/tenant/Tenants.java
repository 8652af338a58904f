package io.forgeflow.domain.tenant;

import io.forgeflow.domain.error.ValidationException;

import java.util.regex.Pattern;

/**
 * Tenant names, and the keys a tenant's jobs use (README "Tenants"). Every job, run and batch belongs to one tenant;
 * {@value #DEFAULT} for everything made without naming one.
 *
 * <p>The keys the engine matches by equality (idempotency, unique, concurrency, sequence, debounce and throttle keys)
 * are stored {@linkplain #scopedKey scoped}: a key of the default tenant as given, another tenant's behind its name and
 * {@link #SEPARATOR}, which neither a name nor a key may contain. Two tenants therefore never share a key, whatever SQL
 * compares them, and a store of one tenant is exactly what it was before tenants.
 */
public final class Tenants {
    /** The tenant of everything that names none. */
    public static final String DEFAULT = "default";
    public static final int MAX_LENGTH = 63;
    /** U+001F, the unit separator: between a tenant's name and its key in a stored key. */
    public static final char SEPARATOR = '\u001f';
    private static final Pattern NAME = Pattern.compile("[a-z0-9_.-]{1," + MAX_LENGTH + "}");

    private Tenants() {
    }

    /** Whether {@code name} is a well-formed tenant name. */
    public static boolean isValid(String name) {
        return name != null && NAME.matcher(name).matches();
    }

    /** {@code name} if well formed; else a {@link ValidationException} on {@code field} saying how to write one. */
    public static String require(String field, String name) {
        if (!isValid(name)) {
            String shown = name == null ? "null" : name.length() > 70 ? name.substring(0, 70) + "…" : name;
            StringBuilder printable = new StringBuilder();
            shown.codePoints().forEach(c -> printable.appendCodePoint(Character.isISOControl(c) ? '?' : c));
            throw new ValidationException(field, field + " '" + printable + "' is not a tenant name: use 1 to "
                    + MAX_LENGTH + " lower-case letters, digits, '_', '.' or '-', e.g. \"acme\"");
        }
        return name;
    }

    /** The tenant named, or {@value #DEFAULT} when none is (null). */
    public static String orDefault(String name) {
        return name == null ? DEFAULT : name;
    }

    /** The stored form of {@code key} (null stays null): as given in the default tenant, else behind the name. */
    public static String scopedKey(String tenant, String key) {
        if (key == null || tenant == null || DEFAULT.equals(tenant)) {
            return key;
        }
        return tenant + SEPARATOR + key;
    }

    /** The key as its tenant gave it, from its {@linkplain #scopedKey stored form}. */
    public static String unscopedKey(String stored) {
        if (stored == null) {
            return null;
        }
        int separator = stored.indexOf(SEPARATOR);
        return separator < 0 ? stored : stored.substring(separator + 1);
    }
}
