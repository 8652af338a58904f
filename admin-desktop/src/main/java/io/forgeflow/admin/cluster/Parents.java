package io.forgeflow.admin.cluster;

import java.util.List;

/**
 * The parents of a job to submit ({@code depends_on}) and what their failure does to it ({@code on_parent_failure};
 * null: the server's default, {@code cancel}). {@link #NONE}: no parents.
 */
public record Parents(List<String> ids, String onParentFailure) {
    public static final Parents NONE = new Parents(List.of(), null);

    public Parents {
        ids = ids == null ? List.of() : List.copyOf(ids);
        onParentFailure = ids.isEmpty() ? null : JobQuery.blankToNull(onParentFailure);
    }

    public boolean none() {
        return ids.isEmpty();
    }
}
