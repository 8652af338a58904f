package io.forgeflow.adapter.rest;

import java.util.List;
import java.util.Optional;

/**
 * Whether this node can serve requests now (for {@code /readyz}): the server's implementation checks that the
 * database is reachable and migrated. Called on every probe, so it should answer within a second or two.
 */
@FunctionalInterface
public interface ReadinessCheck {

    /** Empty when ready; otherwise what is wrong, in words an operator can act on. May throw (then: not ready). */
    Optional<String> problem();

    /**
     * What a ready node still wants an operator to know (it runs without authentication on a public address, ...):
     * shown as {@code warnings} on a 200 {@code /readyz}. None by default.
     */
    default List<String> warnings() {
        return List.of();
    }
}
