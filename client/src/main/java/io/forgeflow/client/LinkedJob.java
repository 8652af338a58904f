package io.forgeflow.client;

/**
 * A parent or child of a job ({@code parents} and {@code children} of {@code GET /api/jobs/{id}}): its id, name, job
 * {@code status} and {@code runStatus}, the status of its latest run ({@code waiting}, {@code pending},
 * {@code running}, {@code succeeded}, {@code dead}, {@code cancelled}); null when it has no run.
 */
public record LinkedJob(String id, String name, String status, String runStatus) {
}
