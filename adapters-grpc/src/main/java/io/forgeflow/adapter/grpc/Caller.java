package io.forgeflow.adapter.grpc;

import java.util.Set;

/**
 * Who a call authenticated as: the REST API's principal for the same token (the server hands the adapter REST's
 * {@code ApiTokens}, seen through {@link Tokens}), its scope names ({@code read}, {@code operate}, {@code submit},
 * {@code admin}), the executors its {@code submit:<executor>} scopes name, and the tenant a tenant-bound token is bound
 * to (null: cluster-wide).
 */
public record Caller(String name, Set<String> scopes, Set<String> submitExecutors, String tenant) {
    /** A cluster-wide caller. */
    public Caller(String name, Set<String> scopes, Set<String> submitExecutors) {
        this(name, scopes, submitExecutors, null);
    }

    public Caller {
        scopes = Set.copyOf(scopes);
        submitExecutors = Set.copyOf(submitExecutors);
    }

    /** REST's rule: the scope, or admin; {@code submit:<executor>} reaches the submit methods. */
    public boolean has(String scope) {
        return scopes.contains("admin") || scopes.contains(scope)
                || ("submit".equals(scope) && !submitExecutors.isEmpty());
    }

    /** Whether it may submit a job to {@code executor}: admin, plain submit, or {@code submit:<executor>}. */
    public boolean maySubmit(String executor) {
        return scopes.contains("admin") || scopes.contains("submit") || submitExecutors.contains(executor);
    }

    /** The API's tokens: the caller a presented bearer token stands for, or null when it matches none. */
    @FunctionalInterface
    public interface Tokens {
        Caller authenticate(String token);
    }
}
