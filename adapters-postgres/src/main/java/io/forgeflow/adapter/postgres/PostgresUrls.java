package io.forgeflow.adapter.postgres;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Database URLs as operators write them ({@code FORGEFLOW_DATABASE_URL}): either libpq's
 * {@code postgresql://user:password@host:port/db?sslmode=require} (also {@code postgres://}), or a JDBC URL
 * {@code jdbc:postgresql://host:port/db?...}. User name and password in the URL may be percent-encoded; query
 * parameters pass through to the JDBC URL (pgjdbc understands {@code sslmode}, {@code ApplicationName} and the like).
 * Error messages never repeat the password.
 */
public final class PostgresUrls {
    private static final String JDBC_PREFIX = "jdbc:postgresql:";
    private static final String[] LIBPQ_SCHEMES = {"postgresql://", "postgres://"};
    private static final String EXAMPLE = "write it as postgresql://user:password@host:5432/forgeflow "
            + "or jdbc:postgresql://host:5432/forgeflow";

    private PostgresUrls() {
    }

    /**
     * Where and as whom to connect.
     *
     * @param jdbcUrl  a {@code jdbc:postgresql:} URL
     * @param user     null when the URL names none (pgjdbc then takes {@code user=} from the URL, if any)
     * @param password null when the URL gives none
     */
    public record Parsed(String jdbcUrl, String user, String password) {
        @Override
        public String toString() {
            return "Parsed[jdbcUrl=" + PostgresUrls.redact(jdbcUrl) + ", user=" + user + ", password="
                    + (password == null ? null : "***") + "]";
        }
    }

    /** Converts either accepted form; throws {@link IllegalArgumentException} saying how to write the URL. */
    public static Parsed parse(String databaseUrl) {
        if (databaseUrl == null || databaseUrl.isBlank()) {
            throw new IllegalArgumentException("the database URL is empty: " + EXAMPLE);
        }
        String url = databaseUrl.trim();
        if (url.regionMatches(true, 0, JDBC_PREFIX, 0, JDBC_PREFIX.length())) {
            return new Parsed(url, queryParameter(url, "user"), queryParameter(url, "password"));
        }
        for (String scheme : LIBPQ_SCHEMES) {
            if (url.regionMatches(true, 0, scheme, 0, scheme.length())) {
                return fromLibpq(url.substring(scheme.length()));
            }
        }
        throw new IllegalArgumentException("the database URL must start with postgresql://, postgres:// or "
                + "jdbc:postgresql:// (" + EXAMPLE + ")");
    }

    private static Parsed fromLibpq(String rest) {
        int queryStart = rest.indexOf('?');
        String main = queryStart < 0 ? rest : rest.substring(0, queryStart);
        String query = queryStart < 0 ? "" : rest.substring(queryStart);
        // the last '@' ends the user info, so an unencoded '@' in a password still parses
        int at = main.lastIndexOf('@');
        String userInfo = at < 0 ? null : main.substring(0, at);
        String hostAndPath = main.substring(at + 1);
        int slash = hostAndPath.indexOf('/');
        String hosts = slash < 0 ? hostAndPath : hostAndPath.substring(0, slash);
        String database = slash < 0 ? "" : hostAndPath.substring(slash + 1);
        if (hosts.isEmpty()) {
            throw new IllegalArgumentException("the database URL names no host: " + EXAMPLE);
        }
        if (database.contains("/")) {
            throw new IllegalArgumentException("the database URL has more than one path segment after the host; "
                    + "the path is the database name: " + EXAMPLE);
        }
        String user = null;
        String password = null;
        if (userInfo != null) {
            int colon = userInfo.indexOf(':');
            user = decode(colon < 0 ? userInfo : userInfo.substring(0, colon), "user name");
            password = colon < 0 ? null : decode(userInfo.substring(colon + 1), "password");
            if (user.isEmpty()) {
                user = null;
            }
        }
        return new Parsed("jdbc:postgresql://" + hosts + "/" + database + query, user, password);
    }

    private static String queryParameter(String url, String name) {
        int queryStart = url.indexOf('?');
        if (queryStart < 0) {
            return null;
        }
        for (String pair : url.substring(queryStart + 1).split("&")) {
            int eq = pair.indexOf('=');
            String key = eq < 0 ? pair : pair.substring(0, eq);
            if (key.equalsIgnoreCase(name)) {
                return eq < 0 ? "" : decode(pair.substring(eq + 1), name);
            }
        }
        return null;
    }

    /** Percent-decoding as in URIs ('+' stays '+'), UTF-8. */
    private static String decode(String value, String what) {
        if (value.indexOf('%') < 0) {
            return value;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(value.length());
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '%') {
                int hi = i + 2 < value.length() ? Character.digit(value.charAt(i + 1), 16) : -1;
                int lo = i + 2 < value.length() ? Character.digit(value.charAt(i + 2), 16) : -1;
                if (hi < 0 || lo < 0) {
                    throw new IllegalArgumentException("the database URL's " + what + " has a '%' that is not "
                            + "followed by two hex digits: percent-encode it as %25");
                }
                bytes.write(hi * 16 + lo);
                i += 2;
            } else {
                bytes.writeBytes(String.valueOf(c).getBytes(StandardCharsets.UTF_8));
            }
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    /** The URL with any password replaced by {@code ***}, for logs. */
    public static String redact(String databaseUrl) {
        if (databaseUrl == null) {
            return null;
        }
        String redacted = databaseUrl.replaceAll("(?i)([?&]password=)[^&]*", "$1***");
        int schemeEnd = redacted.indexOf("://");
        if (schemeEnd < 0 || redacted.toLowerCase(Locale.ROOT).startsWith("jdbc:")) {
            return redacted;
        }
        int queryStart = redacted.indexOf('?');
        String main = queryStart < 0 ? redacted : redacted.substring(0, queryStart);
        int at = main.lastIndexOf('@');
        int colon = main.indexOf(':', schemeEnd + 3);
        if (at > 0 && colon > 0 && colon < at) {
            return redacted.substring(0, colon + 1) + "***" + redacted.substring(at);
        }
        return redacted;
    }
}
