package io.forgeflow.admin.support;

/** Says whether a secret is there without showing it: what logs and messages may print about an API token. */
public final class Secrets {
    private Secrets() {
    }

    /** {@code "none"} or {@code "set (24 characters)"}; never any character of the token. */
    public static String describe(String token) {
        if (token == null || token.isBlank()) {
            return "none";
        }
        return "set (" + token.strip().length() + " characters)";
    }
}
