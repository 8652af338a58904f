package io.forgeflow.adapter.rest;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiPredicate;

/**
 * The API's bearer tokens, from {@code FORGEFLOW_API_TOKENS} (or {@code forgeflow.apiTokens}): a comma-separated list
 * of {@code scopes:token}, scopes joined with {@code +}, e.g. {@code admin:s3cret,read+operate:0pst0ken}. A token may
 * be given as {@code sha256:<64 hex digits>} of itself instead, so that the configuration need not hold it
 * ({@code printf %s "$TOKEN" | sha256sum}). {@code acme/read+submit:token} binds the token to tenant {@code acme}
 * (README "Tenants"): it acts in that tenant only.
 *
 * <p>Only SHA-256 digests are kept. A presented token is hashed and compared with <em>every</em> configured digest
 * with {@link MessageDigest#isEqual} (constant time for equal lengths, and digests always are 32 bytes), without
 * stopping at a match: the time an answer takes tells nothing about how much of a token was right, nor which entry
 * matched.
 *
 * <p>No token configured: {@link #isEmpty()}, and the server leaves the API open (it then listens on loopback only).
 */
public final class ApiTokens {
    /** The variable named in every error, so that an operator knows where to look. */
    public static final String VARIABLE = "FORGEFLOW_API_TOKENS";
    static final String SHA256_PREFIX = "sha256:";
    /** Plain tokens shorter than this are accepted, with a warning. */
    static final int RECOMMENDED_LENGTH = 16;

    private static final String FORMAT = "write scope:token entries separated by commas, the scopes (read, operate, "
            + "submit, submit:<executor> such as submit:http, admin) joined with +, e.g. " + VARIABLE + "=admin:<secret>,read+operate:<secret>; a token may "
            + "also be given as sha256:<64 hex digits> of itself, and bound to one tenant as tenant/scopes:token "
            + "(acme/submit+read:<secret>)";

    private final List<Entry> entries;
    private final List<String> warnings;
    private final BiPredicate<byte[], byte[]> equal;

    /** One configured token: its 1-based position, its scopes, its submit:<executor> names, the token's SHA-256. */
    private record Entry(int number, Set<Scope> scopes, Set<String> submitExecutors, byte[] digest, String tenant) {
    }

    /**
     * {@code scopes:token}, where a scope may be {@code submit:<executor>}: the longest run of scopes that is followed
     * by a ':' is the scope part. {@code submit:sha256:<hex>} stays the plain submit scope with a hashed token.
     */
    private static final java.util.regex.Pattern SCOPED = java.util.regex.Pattern.compile(
            "(?i)^((?:read|operate|admin|submit(?::(?!sha256:)[a-z][a-z0-9_-]*)?)"
                    + "(?:\\s*\\+\\s*(?:read|operate|admin|submit(?::(?!sha256:)[a-z][a-z0-9_-]*)?))*)\\s*:(.*)$");

    /** {@code tenant/scopes:token}: a tenant (checked after) and a '/' before the first ':'. */
    private static final java.util.regex.Pattern TENANT_BOUND = java.util.regex.Pattern.compile("^([^:/]+)/([^/].*)$",
            java.util.regex.Pattern.DOTALL);

    private ApiTokens(List<Entry> entries, List<String> warnings, BiPredicate<byte[], byte[]> equal) {
        this.entries = List.copyOf(entries);
        this.warnings = List.copyOf(warnings);
        this.equal = equal;
    }

    /** No tokens: an open API. */
    public static ApiTokens none() {
        return new ApiTokens(List.of(), List.of(), MessageDigest::isEqual);
    }

    /**
     * Parses the configured entries; each may itself hold several, separated by commas (as the variable does). Blank
     * entries are skipped.
     *
     * @throws IllegalArgumentException naming {@value #VARIABLE} and the entry's position (never the token) when an
     *                                  entry is malformed, names an unknown scope, or repeats a token
     */
    public static ApiTokens parse(Collection<String> configured) {
        return parse(configured, MessageDigest::isEqual);
    }

    /** For tests: watch the comparisons. */
    static ApiTokens parse(Collection<String> configured, BiPredicate<byte[], byte[]> equal) {
        List<String> specs = new ArrayList<>();
        if (configured != null) {
            for (String value : configured) {
                if (value != null) {
                    for (String spec : value.split(",", -1)) {
                        if (!spec.isBlank()) {
                            specs.add(spec.strip());
                        }
                    }
                }
            }
        }
        List<Entry> entries = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        for (int i = 0; i < specs.size(); i++) {
            Entry entry = entry(i + 1, specs.get(i), warnings);
            for (Entry earlier : entries) {
                if (MessageDigest.isEqual(earlier.digest(), entry.digest())) {
                    throw new IllegalArgumentException(VARIABLE + ": entries " + earlier.number() + " and "
                            + entry.number() + " are the same token; give each token once, with all its scopes "
                            + "joined by + (e.g. read+operate:<secret>)");
                }
            }
            entries.add(entry);
        }
        return new ApiTokens(entries, warnings, equal);
    }

    private static Entry entry(int number, String spec, List<String> warnings) {
        String where = VARIABLE + " entry " + number;
        // tenant/scopes:token binds the token to one tenant (README "Tenants"); a scope never holds a '/'
        String tenant = null;
        java.util.regex.Matcher bound = TENANT_BOUND.matcher(spec);
        if (bound.matches()) {
            tenant = bound.group(1).strip();
            if (!io.forgeflow.domain.tenant.Tenants.isValid(tenant)) {
                throw new IllegalArgumentException(where + " names a tenant that is not a tenant name before the '/': "
                        + "use 1 to " + io.forgeflow.domain.tenant.Tenants.MAX_LENGTH + " lower-case letters, digits, "
                        + "'_', '.' or '-', as acme/submit+read:<secret>");
            }
            spec = bound.group(2);
        }
        int colon = spec.indexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException(where + " is not scope:token: " + FORMAT);
        }
        String scopeText = spec.substring(0, colon).strip().toLowerCase(Locale.ROOT);
        String token = spec.substring(colon + 1).strip();
        java.util.regex.Matcher scoped = SCOPED.matcher(spec);
        if (scoped.matches()) {
            scopeText = scoped.group(1).strip().toLowerCase(Locale.ROOT);
            token = scoped.group(2).strip();
        }
        if (scopeText.isEmpty()) {
            throw new IllegalArgumentException(where + " names no scope before the ':': " + FORMAT);
        }
        Set<Scope> scopes = EnumSet.noneOf(Scope.class);
        Set<String> submitExecutors = new java.util.TreeSet<>();
        for (String name : scopeText.split("\\+", -1)) {
            String prefix = Scope.SUBMIT.wireName() + ":";
            if (name.strip().startsWith(prefix)) {
                submitExecutors.add(name.strip().substring(prefix.length()));
                continue;
            }
            Scope scope = Scope.fromWire(name.strip());
            if (scope == null) {
                // echo the name only when it looks like one: the part before a colon may be half of a token
                String shown = name.strip().matches("[a-z]{1,20}") ? " '" + name.strip() + "'" : "";
                throw new IllegalArgumentException(where + " names an unknown scope" + shown + ": use read, "
                        + "operate, submit, submit:<executor> or admin, joined with + (" + FORMAT + ")");
            }
            scopes.add(scope);
        }
        if (token.isEmpty()) {
            throw new IllegalArgumentException(where + " has an empty token after the ':': " + FORMAT);
        }
        byte[] digest;
        if (token.regionMatches(true, 0, SHA256_PREFIX, 0, SHA256_PREFIX.length())) {
            String hex = token.substring(SHA256_PREFIX.length()).strip();
            if (!hex.matches("[0-9a-fA-F]{64}")) {
                throw new IllegalArgumentException(where + " has a sha256: digest that is not 64 hexadecimal "
                        + "digits: write sha256:<the output of printf %s \"$TOKEN\" | sha256sum>");
            }
            digest = HexFormat.of().parseHex(hex.toLowerCase(Locale.ROOT));
        } else {
            if (token.length() < RECOMMENDED_LENGTH) {
                warnings.add(where + " is shorter than " + RECOMMENDED_LENGTH + " characters: use a long random "
                        + "token, e.g. from openssl rand -hex 32");
            }
            digest = sha256(token);
        }
        return new Entry(number, scopes, submitExecutors, digest, tenant);
    }

    public boolean isEmpty() {
        return entries.isEmpty();
    }

    public int size() {
        return entries.size();
    }

    /** What an operator should hear about the configured tokens (short ones), for the start-up log. */
    public List<String> warnings() {
        return warnings;
    }

    /**
     * The principal of a presented token, or empty when it matches none. Compares the token's digest with every
     * configured digest, always all of them.
     */
    public Optional<ApiPrincipal> authenticate(String presented) {
        if (presented == null || entries.isEmpty()) {
            return Optional.empty();
        }
        byte[] digest = sha256(presented);
        Entry match = null;
        for (Entry entry : entries) {
            if (equal.test(entry.digest(), digest) && match == null) {
                match = entry;
            }
        }
        return match == null ? Optional.empty() : Optional.of(new ApiPrincipal("token " + match.number(), match.scopes(),
                match.submitExecutors(), match.tenant()));
    }

    static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
