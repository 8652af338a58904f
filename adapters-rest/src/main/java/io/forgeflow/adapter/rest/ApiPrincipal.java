package io.forgeflow.adapter.rest;

import java.security.Principal;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Who a request authenticated as: the configured token it presented, named by its position in
 * {@code FORGEFLOW_API_TOKENS} ({@code token 2}: never the token itself), that token's scopes, and the executors it
 * may submit jobs to when it holds {@code submit:<executor>} scopes rather than the plain {@code submit}, and the one
 * tenant a tenant-bound token ({@code acme/read:...}) acts in (null: a cluster-wide token, README "Tenants").
 */
public record ApiPrincipal(String name, Set<Scope> scopes, Set<String> submitExecutors, String tenant)
        implements Principal {
    /** A cluster-wide principal (it names a tenant per request, if any). */
    public ApiPrincipal(String name, Set<Scope> scopes, Set<String> submitExecutors) {
        this(name, scopes, submitExecutors, null);
    }

    public ApiPrincipal {
        scopes = scopes.isEmpty() ? Collections.unmodifiableSet(EnumSet.noneOf(Scope.class))
                : Collections.unmodifiableSet(EnumSet.copyOf(scopes));
        submitExecutors = Collections.unmodifiableSet(new TreeSet<>(submitExecutors == null ? Set.of() : submitExecutors));
    }

    /** A principal without executor-specific scopes. */
    public ApiPrincipal(String name, Set<Scope> scopes) {
        this(name, scopes, Set.of());
    }

    @Override
    public String getName() {
        return name;
    }

    /**
     * Whether this token may use a route that needs {@code scope}: it has that scope, or admin. A token with only
     * {@code submit:<executor>} scopes reaches the submit route; {@link #maySubmit} then decides per job.
     */
    public boolean has(Scope scope) {
        return scopes.contains(Scope.ADMIN) || scopes.contains(scope)
                || (scope == Scope.SUBMIT && !submitExecutors.isEmpty());
    }

    /** Whether this token may submit a job to {@code executor}: admin, plain submit, or {@code submit:<executor>}. */
    public boolean maySubmit(String executor) {
        return scopes.contains(Scope.ADMIN) || scopes.contains(Scope.SUBMIT) || submitExecutors.contains(executor);
    }

    @Override
    public String toString() {
        return name + (tenant == null ? "" : " of tenant " + tenant) + " (" + Stream.concat(scopes.stream().map(Scope::wireName),
                submitExecutors.stream().map(e -> Scope.SUBMIT.wireName() + ":" + e)).collect(Collectors.joining("+")) + ")";
    }
}
