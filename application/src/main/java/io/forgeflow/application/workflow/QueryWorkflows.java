package io.forgeflow.application.workflow;

import io.forgeflow.domain.port.Workflows;
import io.forgeflow.domain.port.Workflows.JobLinks;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/** Reads jobs' places in workflows: what a job answer shows (docs/API.md, "Workflows"). */
public final class QueryWorkflows {
    /** The children a job's answer lists at most. */
    public static final int CHILD_LIMIT = 1_000;
    private final Workflows workflows;

    public QueryWorkflows(Workflows workflows) {
        this.workflows = Objects.requireNonNull(workflows, "workflows");
    }

    /** A job's parents and first {@value #CHILD_LIMIT} children, with statuses; empty when the job is unknown. */
    public Optional<JobLinks> links(String jobId) {
        return workflows.links(jobId, CHILD_LIMIT);
    }

    /** Parents, policy and batch of each of these jobs (absent: none). */
    public Map<String, JobLinks> of(List<String> jobIds) {
        return jobIds.isEmpty() ? Map.of() : workflows.workflowOf(jobIds);
    }
}
