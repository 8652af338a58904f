package io.forgeflow.admin.workflows;

import io.forgeflow.admin.cluster.ClusterClient;
import io.forgeflow.admin.cluster.JobNames;
import io.forgeflow.admin.cluster.JobWorkflow;
import io.forgeflow.admin.cluster.RunQuery;
import io.forgeflow.admin.cluster.WorkflowNode;
import io.forgeflow.admin.support.Async;
import io.forgeflow.admin.support.Lists;
import io.forgeflow.admin.support.Navigator;
import io.forgeflow.admin.support.Problems;
import io.forgeflow.client.ForgeFlowApiException;
import io.forgeflow.client.Job;
import io.forgeflow.client.Run;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

import java.util.List;
import java.util.Objects;

/**
 * The job detail under the Jobs list: the job's workflow as a small graph (its parents, the job, its children, each
 * with its job status and latest run status), its {@code depends_on} and {@code on_parent_failure}, and a link to its
 * batch, and its flow control (debounce, throttle). Opening a node shows that job here.
 */
public final class JobDetailViewModel {
    private final ClusterClient cluster;
    private final Async async;
    private final JobNames names;
    private final Navigator navigator;

    private final ReadOnlyObjectWrapper<JobWorkflow> workflow = new ReadOnlyObjectWrapper<>(this, "workflow");
    private final ReadOnlyObjectWrapper<WorkflowNode> self = new ReadOnlyObjectWrapper<>(this, "self");
    private final ObservableList<WorkflowNode> parents = FXCollections.observableArrayList();
    private final ObservableList<WorkflowNode> children = FXCollections.observableArrayList();
    private final ReadOnlyStringWrapper title = new ReadOnlyStringWrapper(this, "title", "Select a job");
    private final ReadOnlyStringWrapper dependsOn = new ReadOnlyStringWrapper(this, "dependsOn", "");
    private final ReadOnlyStringWrapper onParentFailure = new ReadOnlyStringWrapper(this, "onParentFailure", "");
    private final ReadOnlyStringWrapper batchId = new ReadOnlyStringWrapper(this, "batchId", "");
    private final ReadOnlyStringWrapper debounce = new ReadOnlyStringWrapper(this, "debounce", "");
    private final ReadOnlyStringWrapper throttle = new ReadOnlyStringWrapper(this, "throttle", "");
    private final ReadOnlyStringWrapper deadStreak = new ReadOnlyStringWrapper(this, "deadStreak", "");
    private final ReadOnlyStringWrapper tenant = new ReadOnlyStringWrapper(this, "tenant", "");
    private final ReadOnlyBooleanWrapper loading = new ReadOnlyBooleanWrapper(this, "loading");
    private final ReadOnlyStringWrapper message = new ReadOnlyStringWrapper(this, "message", "");
    private final ReadOnlyBooleanWrapper failed = new ReadOnlyBooleanWrapper(this, "failed");
    private String shown;
    private long generation;

    /** What one load reads: the job with its workflow, and its latest run (null when it has none). */
    private record Loaded(JobWorkflow workflow, Run latest) {
    }

    public JobDetailViewModel(ClusterClient cluster, Async async, JobNames names, Navigator navigator) {
        this.cluster = Objects.requireNonNull(cluster, "cluster");
        this.async = Objects.requireNonNull(async, "async");
        this.names = Objects.requireNonNull(names, "names");
        this.navigator = Objects.requireNonNull(navigator, "navigator");
    }

    /** Shows this job: loads it with its parents, children and latest run. */
    public void open(String jobId) {
        if (jobId == null || jobId.isBlank()) {
            clear();
            return;
        }
        shown = jobId;
        if (workflow.get() == null || !workflow.get().job().id().equals(jobId)) {
            title.set("Job " + jobId);
        }
        load(jobId, true);
    }

    /** Reloads the shown job quietly (statuses change while runs end). */
    public void poll() {
        if (shown != null && !loading.get()) {
            load(shown, false);
        }
    }

    private void load(String jobId, boolean loud) {
        long mine = ++generation;
        loading.set(true);
        async.run(() -> {
            JobWorkflow w = cluster.workflow(jobId);
            List<Run> latest = cluster.runs(RunQuery.of(jobId, null), null, 1).items();
            return new Loaded(w, latest.isEmpty() ? null : latest.get(0));
        }, loaded -> {
            if (mine != generation) {
                return;
            }
            loading.set(false);
            show(loaded);
            if (failed.get()) {
                message.set("");
                failed.set(false);
            }
        }, failure -> {
            if (mine != generation) {
                return;
            }
            loading.set(false);
            if (loud || !failed.get()) {
                failed.set(true);
                message.set(failure instanceof ForgeFlowApiException api && api.isNotFound()
                        ? "No job " + jobId + " on this server (deleted for good?)."
                        : Problems.describe("load job " + jobId, failure));
            }
        });
    }

    private void show(Loaded loaded) {
        JobWorkflow w = loaded.workflow();
        Job job = w.job();
        names.learn(job);
        workflow.set(w);
        self.set(new WorkflowNode(job.id(), job.name(), job.status(),
                loaded.latest() == null ? null : loaded.latest().status()));
        Lists.replaceIfChanged(parents, w.parents());
        Lists.replaceIfChanged(children, w.children());
        w.parents().forEach(n -> names.learn(n.id(), n.name()));
        w.children().forEach(n -> names.learn(n.id(), n.name()));
        title.set(job.name() + " (" + job.id() + ")");
        dependsOn.set(w.dependsOn().isEmpty() ? "none" : String.join(", ", w.dependsOn()));
        onParentFailure.set(w.dependsOn().isEmpty() ? "—" : describePolicy(w.onParentFailure()));
        batchId.set(w.batchId() == null ? "" : w.batchId());
        debounce.set(describeDebounce(job.debounce()));
        throttle.set(describeThrottle(job.throttle()));
        deadStreak.set(deadStreakOf(job));
        boolean shown = job.tenant() != null && (io.forgeflow.admin.cluster.Tenancy.outsideDefault(job.tenant())
                || cluster.tenant() != null);
        tenant.set(shown ? job.tenant() : "");
    }

    /** {@code user-42: trailing, 30s after the last submission, at most 300s after the first}; "none" without one. */
    static String describeDebounce(io.forgeflow.client.Debounce d) {
        if (d == null) {
            return "none";
        }
        if (io.forgeflow.client.Debounce.LEADING.equals(d.edge())) {
            return d.key() + ": leading, the first runs at once, others within " + d.periodSeconds() + "s join it";
        }
        return d.key() + ": trailing, " + d.periodSeconds() + "s after the last submission"
                + (d.maxWaitSeconds() == null ? "" : ", at most " + d.maxWaitSeconds() + "s after the first");
    }

    /** {@code partner:7: at most 5 start(s) per 2s}; "none" without one. */
    static String describeThrottle(io.forgeflow.client.Throttle t) {
        return t == null ? "none" : t.key() + ": at most " + t.count() + " start(s) per " + t.perSeconds() + "s";
    }

    /**
     * A job with pause_after_failures: its dead runs in a row so far against the control ("2 of 3 dead in a row,
     * pauses at 3"); empty for other jobs.
     */
    public static String deadStreakOf(Job job) {
        Integer limit = job.pauseAfterFailures();
        if (limit == null) {
            return "";
        }
        return job.deadStreak() + " of " + limit + " dead in a row, pauses at " + limit;
    }

    /** {@code cancel: a dead or cancelled parent cancels this job}, and so on. */
    static String describePolicy(String policy) {
        if (policy == null) {
            return "cancel (the default): a dead or cancelled parent cancels this job";
        }
        return switch (policy) {
            case "cancel" -> "cancel: a dead or cancelled parent cancels this job";
            case "run" -> "run: runs once every parent has ended, whatever the outcome";
            case "wait" -> "wait: waits until every parent has succeeded (requeue a dead one)";
            default -> policy;
        };
    }

    /** Empties the detail (no job selected). */
    public void clear() {
        generation++;
        shown = null;
        loading.set(false);
        workflow.set(null);
        self.set(null);
        parents.clear();
        children.clear();
        title.set("Select a job");
        dependsOn.set("");
        onParentFailure.set("");
        batchId.set("");
        debounce.set("");
        throttle.set("");
        tenant.set("");
        message.set("");
        failed.set(false);
    }

    /** Opens a parent or child (or the job itself: reloads it). */
    public void openNode(WorkflowNode node) {
        if (node != null && node.id() != null) {
            navigator.showJob(node.id());
        }
    }

    /** Opens the batch the job was made by. */
    public void openBatch() {
        if (!batchId.get().isEmpty()) {
            navigator.showBatch(batchId.get());
        }
    }

    /** {@code job status · run status}, as a node shows it under its name. */
    public static String statusLine(WorkflowNode node) {
        String job = node.status() == null ? "?" : node.status();
        return node.runStatus() == null ? job + " · no run" : job + " · " + node.runStatus();
    }

    // ---------------------------------------------------------------- state for the view

    /** The id of the job shown, null when none. */
    public String shownJobId() {
        return shown;
    }

    public ReadOnlyObjectProperty<JobWorkflow> workflowProperty() {
        return workflow.getReadOnlyProperty();
    }

    /** The shown job as a node of its own graph (its latest run's status included). */
    public ReadOnlyObjectProperty<WorkflowNode> selfProperty() {
        return self.getReadOnlyProperty();
    }

    public ObservableList<WorkflowNode> parents() {
        return parents;
    }

    public ObservableList<WorkflowNode> children() {
        return children;
    }

    public ReadOnlyStringProperty titleProperty() {
        return title.getReadOnlyProperty();
    }

    /** The parent ids, {@code none} without parents. */
    public ReadOnlyStringProperty dependsOnProperty() {
        return dependsOn.getReadOnlyProperty();
    }

    /** The policy with what it does; a dash without parents. */
    public ReadOnlyStringProperty onParentFailureProperty() {
        return onParentFailure.getReadOnlyProperty();
    }

    /** The batch id, empty when the job was not made by a batch. */
    public ReadOnlyStringProperty batchIdProperty() {
        return batchId.getReadOnlyProperty();
    }

    /** The job's debounce (README "Flow control"), "none" without one. */
    public ReadOnlyStringProperty debounceProperty() {
        return debounce.getReadOnlyProperty();
    }

    /** The job's throttle, "none" without one. */
    public ReadOnlyStringProperty throttleProperty() {
        return throttle.getReadOnlyProperty();
    }

    /** {@link #deadStreakOf} of the shown job; empty without pause_after_failures. */
    /** The job's tenant: empty on a single-tenant cluster (the default tenant, no tenant picked). */
    public ReadOnlyStringProperty tenantProperty() {
        return tenant.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty deadStreakProperty() {
        return deadStreak.getReadOnlyProperty();
    }

    public ReadOnlyBooleanProperty loadingProperty() {
        return loading.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty messageProperty() {
        return message.getReadOnlyProperty();
    }

    public ReadOnlyBooleanProperty failedProperty() {
        return failed.getReadOnlyProperty();
    }
}
