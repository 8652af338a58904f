package io.forgeflow.domain.workflow;

import java.util.Locale;

/** What a child job does when a parent ends dead or cancelled ({@code on_parent_failure}). */
public enum ParentFailure {
    /** The child's run ends cancelled, its error naming the parent (the default). */
    CANCEL,
    /** The child runs once every parent has ended, whatever the outcome. */
    RUN,
    /** The child waits until every parent has succeeded (a dead parent can be requeued), or an operator cancels it. */
    WAIT;

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Parses a wire name; throws {@link IllegalArgumentException} for anything else. */
    public static ParentFailure fromWire(String value) {
        for (ParentFailure p : values()) {
            if (p.wireName().equals(value)) {
                return p;
            }
        }
        throw new IllegalArgumentException("unknown on_parent_failure '" + value + "'");
    }
}
