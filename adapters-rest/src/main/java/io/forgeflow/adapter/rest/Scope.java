package io.forgeflow.adapter.rest;

import java.util.Locale;

/**
 * What a bearer token may do ({@code FORGEFLOW_API_TOKENS}: {@code read+operate:<token>}). {@link RouteScopes} says
 * which scope each route needs.
 */
public enum Scope {
    /** Every GET: jobs, runs, stats, nodes, events. */
    READ,
    /** Job and run controls: pause, resume, cancel, trigger, requeue. */
    OPERATE,
    /**
     * Creating jobs ({@code POST /api/jobs}) with any executor: whoever holds it runs commands on the workers. A token
     * may instead hold {@code submit:<executor>} ({@code submit:http}): {@link ApiPrincipal#submitExecutors()}.
     */
    SUBMIT,
    /** Everything, including routes no other scope names. */
    ADMIN;

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The scope of a configured name ({@code read}, {@code operate}, {@code submit}, {@code admin}), or null. */
    static Scope fromWire(String name) {
        for (Scope s : values()) {
            if (s.wireName().equals(name)) {
                return s;
            }
        }
        return null;
    }
}
