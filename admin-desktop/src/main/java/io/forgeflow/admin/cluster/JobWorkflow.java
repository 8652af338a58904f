package io.forgeflow.admin.cluster;

import io.forgeflow.client.Job;

import java.util.List;
import java.util.Objects;

/**
 * A job with its place in a workflow, as {@code GET /api/jobs/{id}} answers it: the parent ids ({@code depends_on},
 * empty when none), {@code on_parent_failure} (null without parents), {@code batch_id} (null when not made by a
 * batch), its parents and its children (the first 1,000), each with its job and latest run status.
 */
public record JobWorkflow(Job job, List<String> dependsOn, String onParentFailure, String batchId,
                          List<WorkflowNode> parents, List<WorkflowNode> children) {
    /** The {@code on_parent_failure} choices; {@code cancel} is the server's default. */
    public static final List<String> POLICIES = List.of(Job.ON_PARENT_FAILURE_CANCEL, Job.ON_PARENT_FAILURE_RUN,
            Job.ON_PARENT_FAILURE_WAIT);

    public JobWorkflow {
        Objects.requireNonNull(job, "job");
        dependsOn = dependsOn == null ? List.of() : List.copyOf(dependsOn);
        parents = parents == null ? List.of() : List.copyOf(parents);
        children = children == null ? List.of() : List.copyOf(children);
    }
}
