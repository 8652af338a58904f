package io.forgeflow.domain.workflow;

import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.id.Ids;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * The parents a job waits for and what it does when one fails; {@link #NONE} for a job without parents.
 *
 * @param parents the parent job ids in the order given (lower case), at most {@value #MAX_PARENTS}
 */
public record Dependencies(List<String> parents, ParentFailure onParentFailure) {
    public static final int MAX_PARENTS = 100;
    public static final Dependencies NONE = new Dependencies(List.of(), null);

    public Dependencies {
        parents = List.copyOf(parents);
        if (parents.isEmpty() != (onParentFailure == null)) {
            throw new IllegalArgumentException("a policy belongs to a job with parents, and only to one");
        }
    }

    public boolean isEmpty() {
        return parents.isEmpty();
    }

    /**
     * Validates {@code depends_on} and {@code on_parent_failure} as submitted (null: not given). Ids must be
     * well-formed job ids; {@code refs} (may be empty) are other names an entry may take (a batch's refs), kept as
     * given. Throws a {@link ValidationException} naming {@code <prefix>depends_on} or
     * {@code <prefix>on_parent_failure}.
     */
    public static Dependencies validate(List<?> dependsOn, String onParentFailure, Set<String> refs, String prefix) {
        String field = prefix + "depends_on";
        String policyField = prefix + "on_parent_failure";
        if (dependsOn == null) {
            if (onParentFailure != null) {
                throw new ValidationException(policyField, policyField + " needs depends_on: give the parent job ids, "
                        + "or leave on_parent_failure out");
            }
            return NONE;
        }
        if (dependsOn.isEmpty()) {
            throw new ValidationException(field, field + " must list 1 to " + MAX_PARENTS
                    + " parent job ids, or be left out");
        }
        if (dependsOn.size() > MAX_PARENTS) {
            throw new ValidationException(field, field + " lists " + dependsOn.size() + " parents: at most "
                    + MAX_PARENTS + " are allowed (a batch's on_complete job can wait for more)");
        }
        List<String> parents = new ArrayList<>(dependsOn.size());
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < dependsOn.size(); i++) {
            Object entry = dependsOn.get(i);
            if (!(entry instanceof String text) || text.isBlank()) {
                throw new ValidationException(field, field + "[" + i + "] must be a job id (a string), was "
                        + (entry == null ? "null" : entry));
            }
            String parent;
            if (refs.contains(text)) {
                parent = text;
            } else if (Ids.isWellFormed(text)) {
                parent = text.toLowerCase(Locale.ROOT);
            } else {
                throw new ValidationException(field, field + "[" + i + "] '" + printable(text) + "' is not a job id"
                        + (refs.isEmpty() ? "" : " nor the ref of a job in this batch"));
            }
            if (!seen.add(parent)) {
                throw new ValidationException(field, field + "[" + i + "] repeats " + printable(text)
                        + ": list each parent once");
            }
            parents.add(parent);
        }
        ParentFailure policy;
        try {
            policy = onParentFailure == null ? ParentFailure.CANCEL : ParentFailure.fromWire(onParentFailure);
        } catch (IllegalArgumentException e) {
            throw new ValidationException(policyField, policyField + " must be \"cancel\", \"run\" or \"wait\", was '"
                    + printable(onParentFailure) + "'");
        }
        return new Dependencies(parents, policy);
    }

    /** The same parents under another list (ids resolved from refs, say). */
    public Dependencies withParents(List<String> resolved) {
        Objects.requireNonNull(resolved, "resolved");
        return new Dependencies(resolved, onParentFailure);
    }

    private static String printable(String s) {
        String cut = s.length() > 60 ? s.substring(0, 60) + "…" : s;
        return cut.replace('\0', '?');
    }
}
