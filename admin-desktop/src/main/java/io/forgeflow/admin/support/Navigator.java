package io.forgeflow.admin.support;

/** Moves the console between screens; view models ask for it, the console view model does it. */
public interface Navigator {

    /** The Runs screen with this run's detail open (its output, error and attempts). */
    void showRun(String runId);

    /** The Runs screen filtered to one job. */
    void showRunsOfJob(String jobId);

    /** The Dead letters screen. */
    void showDeadLetters();

    /** The submit form, empty. */
    void showSubmitForm();

    /** The Jobs screen, refreshed. */
    void showJobs();

    /** The job form, filled with this job to change it. */
    void showEditForm(io.forgeflow.client.Job job);

    /** The Jobs screen with this job's detail (its workflow) open. */
    void showJob(String jobId);

    /** The Batches screen showing this batch's progress. */
    void showBatch(String batchId);

    /** Does nothing: for view-model tests that do not care where navigation goes. */
    Navigator NONE = new Navigator() {
        @Override
        public void showRun(String runId) {
        }

        @Override
        public void showRunsOfJob(String jobId) {
        }

        @Override
        public void showDeadLetters() {
        }

        @Override
        public void showSubmitForm() {
        }

        @Override
        public void showJobs() {
        }

        @Override
        public void showEditForm(io.forgeflow.client.Job job) {
        }

        @Override
        public void showJob(String jobId) {
        }

        @Override
        public void showBatch(String batchId) {
        }
    };
}
