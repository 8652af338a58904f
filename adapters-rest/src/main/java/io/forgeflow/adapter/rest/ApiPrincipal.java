package io.forgeflow.adapter.rest;

import java.security.Principal;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Who a request authenticated as: the configured token it presented, named by its position in
 * {@code FORGEFLOW_API_TOKENS} ({@code token 2}: never the token itself), and that token's scopes.
 */
public record ApiPrincipal(String name, Set<Scope> scopes) implements Principal {
    public ApiPrincipal {
        scopes = Collections.unmodifiableSet(EnumSet.copyOf(scopes));
    }

    @Override
    public String getName() {
        return name;
    }

    /** Whether this token may use a route that needs {@code scope}: it has that scope, or admin. */
    public boolean has(Scope scope) {
        return scopes.contains(Scope.ADMIN) || scopes.contains(scope);
    }

    @Override
    public String toString() {
        return name + " (" + scopes.stream().map(Scope::wireName).collect(Collectors.joining("+")) + ")";
    }
}
