package io.forgeflow.admin.testing;

import io.forgeflow.admin.support.Navigator;
import io.forgeflow.client.Job;

import java.util.ArrayList;
import java.util.List;

/** A navigator that records where it was sent, as {@code "job <id>"}, {@code "batch <id>"} and so on. */
public final class RecordingNavigator implements Navigator {
    private final List<String> visits = new ArrayList<>();

    public List<String> visits() {
        return visits;
    }

    @Override
    public void showRun(String runId) {
        visits.add("run " + runId);
    }

    @Override
    public void showRunsOfJob(String jobId) {
        visits.add("runs of " + jobId);
    }

    @Override
    public void showDeadLetters() {
        visits.add("dead letters");
    }

    @Override
    public void showSubmitForm() {
        visits.add("submit form");
    }

    @Override
    public void showJobs() {
        visits.add("jobs");
    }

    @Override
    public void showEditForm(Job job) {
        visits.add("edit " + job.id());
    }

    @Override
    public void showJob(String jobId) {
        visits.add("job " + jobId);
    }

    @Override
    public void showBatch(String batchId) {
        visits.add("batch " + batchId);
    }
}
