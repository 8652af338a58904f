package io.forgeflow.admin.cluster;

/**
 * A parent or child of a job ({@code parents} and {@code children} of {@code GET /api/jobs/{id}}): its id, name, job
 * status and the status of its latest run ({@code runStatus}, null when it has none).
 */
public record WorkflowNode(String id, String name, String status, String runStatus) {

    /** The status that colours it: its latest run's, else its job's. */
    public String shownStatus() {
        return runStatus != null ? runStatus : status;
    }
}
