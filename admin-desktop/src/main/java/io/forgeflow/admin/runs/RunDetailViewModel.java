package io.forgeflow.admin.runs;

import io.forgeflow.admin.cluster.ClusterClient;
import io.forgeflow.admin.cluster.JobNames;
import io.forgeflow.admin.cluster.RunTrace;
import io.forgeflow.admin.support.Async;
import io.forgeflow.admin.support.Confirmation;
import io.forgeflow.admin.support.Lists;
import io.forgeflow.admin.support.Problems;
import io.forgeflow.admin.support.Times;
import io.forgeflow.client.Attempt;
import io.forgeflow.client.Run;
import javafx.beans.binding.Bindings;
import javafx.beans.binding.BooleanBinding;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

import java.util.Objects;
import java.util.function.Consumer;

/**
 * One run in full: status, output, error and the attempt timeline (worker, start, end, outcome). A pending or running
 * run can be cancelled (after a confirmation); a dead or cancelled one requeued.
 */
public final class RunDetailViewModel {
    private final ClusterClient cluster;
    private final Async async;
    private final JobNames names;
    private final Times times;
    private final TraceViewer traces;

    private final ReadOnlyObjectWrapper<Run> run = new ReadOnlyObjectWrapper<>(this, "run");
    private final ReadOnlyStringWrapper title = new ReadOnlyStringWrapper(this, "title", "Select a run");
    private final ReadOnlyStringWrapper status = new ReadOnlyStringWrapper(this, "status", "");
    private final ReadOnlyStringWrapper summary = new ReadOnlyStringWrapper(this, "summary", "");
    private final ReadOnlyStringWrapper output = new ReadOnlyStringWrapper(this, "output", "");
    private final ReadOnlyStringWrapper error = new ReadOnlyStringWrapper(this, "error", "");
    private final ObservableList<Attempt> attempts = FXCollections.observableArrayList();
    private final ReadOnlyStringWrapper traceId = new ReadOnlyStringWrapper(this, "traceId", "");
    private final ReadOnlyStringWrapper traceUrl = new ReadOnlyStringWrapper(this, "traceUrl", "");
    private final ReadOnlyStringWrapper traceNote = new ReadOnlyStringWrapper(this, "traceNote", "");
    private final ReadOnlyBooleanWrapper loading = new ReadOnlyBooleanWrapper(this, "loading");
    private final ReadOnlyBooleanWrapper acting = new ReadOnlyBooleanWrapper(this, "acting");
    private final ReadOnlyStringWrapper message = new ReadOnlyStringWrapper(this, "message", "");
    private final ReadOnlyBooleanWrapper failed = new ReadOnlyBooleanWrapper(this, "failed");
    private final ReadOnlyObjectWrapper<Confirmation> confirmation = new ReadOnlyObjectWrapper<>(this, "confirmation");
    private final BooleanBinding canCancel;
    private final BooleanBinding canRequeue;
    private Consumer<Run> onChanged = r -> { };
    private long generation;

    public RunDetailViewModel(ClusterClient cluster, Async async, JobNames names, Times times, TraceViewer traces) {
        this.cluster = Objects.requireNonNull(cluster, "cluster");
        this.async = Objects.requireNonNull(async, "async");
        this.names = Objects.requireNonNull(names, "names");
        this.times = Objects.requireNonNull(times, "times");
        this.traces = Objects.requireNonNull(traces, "traces");
        canCancel = Bindings.createBooleanBinding(() -> !acting.get() && run.get() != null
                && (Run.WAITING.equals(run.get().status()) || Run.PENDING.equals(run.get().status())
                || Run.RUNNING.equals(run.get().status())), run, acting);
        canRequeue = Bindings.createBooleanBinding(() -> !acting.get() && run.get() != null
                && (Run.DEAD.equals(run.get().status()) || Run.CANCELLED.equals(run.get().status())), run, acting);
    }

    /** Told about each run this pane changed, so lists can show it. */
    void setOnChanged(Consumer<Run> onChanged) {
        this.onChanged = Objects.requireNonNull(onChanged, "onChanged");
    }

    /** Loads a run with its attempts; a later load wins over an earlier one still out. */
    public void load(String runId) {
        confirmation.set(null);
        message.set("");
        failed.set(false);
        fetch(runId);
    }

    private void fetch(String runId) {
        long mine = ++generation;
        loading.set(true);
        if (run.get() == null || !run.get().id().equals(runId)) {
            title.set("Run " + runId);
        }
        async.run(() -> cluster.run(runId), loaded -> {
            if (mine == generation) {
                loading.set(false);
                show(loaded);
            }
        }, failure -> {
            if (mine == generation) {
                loading.set(false);
                report(Problems.describe("load run " + runId, failure));
            }
        });
    }

    /** Reloads the shown run while it is pending or running, so its progress shows without a click. */
    void poll() {
        Run r = run.get();
        if (r != null && !loading.get() && !acting.get()
                && (Run.WAITING.equals(r.status()) || Run.PENDING.equals(r.status())
                || Run.RUNNING.equals(r.status()))) {
            fetch(r.id());
        }
    }

    /** Loads the shown run again. */
    public void reload() {
        if (run.get() != null) {
            load(run.get().id());
        }
    }

    private void show(Run r) {
        run.set(r);
        names.resolve(java.util.List.of(r.jobId()));
        title.set("Run " + r.id() + " of " + names.nameOf(r.jobId()));
        status.set(r.status());
        summary.set("Attempt " + r.attempt() + " of " + r.maxAttempts() + " · priority " + r.priority()
                + " · scheduled " + times.local(r.scheduledFor())
                + (r.startedAt() == null ? "" : " · started " + times.local(r.startedAt()))
                + (r.finishedAt() == null ? "" : " · finished " + times.local(r.finishedAt()))
                + (r.workerId() == null ? "" : " · on " + r.workerId())
                + (showsTenant(r.tenant()) ? " · tenant " + r.tenant() : "")
                + (r.snoozes() == 0 ? "" : " · snoozed " + r.snoozes() + (r.snoozes() == 1 ? " time" : " times")
                        + " (no attempt spent)"));
        output.set(r.output() == null || r.output().isEmpty() ? "(no output)" : r.output());
        error.set(r.error() == null || r.error().isEmpty() ? "(no error)" : r.error());
        Lists.replaceIfChanged(attempts, r.attemptsOrEmpty());
        showTrace(r);
    }

    /** Outside the default tenant, or while the console acts in one; a single-tenant cluster shows none. */
    private boolean showsTenant(String tenant) {
        return tenant != null && (io.forgeflow.admin.cluster.Tenancy.outsideDefault(tenant) || cluster.tenant() != null);
    }

    private void showTrace(Run r) {
        RunTrace trace = cluster.trace(r);
        String url = traces.urlFor(trace);
        traceId.set(trace.traceId() == null ? "" : trace.traceId());
        traceUrl.set(url == null ? "" : url);
        traceNote.set(trace.traceId() == null ? "not traced"
                : url == null ? "no trace viewer known: the node sends no trace_url (FORGEFLOW_TRACE_URL_TEMPLATE) "
                        + "and no trace URL template is set on the connect screen" : "");
    }

    /** Opens the shown run's trace in the browser. */
    public void openTrace() {
        String url = traceUrl.get();
        if (url.isEmpty()) {
            return;
        }
        try {
            if (traces.open(url)) {
                failed.set(false);
                message.set("Opened the trace in the browser: " + url);
            } else {
                report("No browser to open the trace; copy the link: " + url);
            }
        } catch (RuntimeException e) {
            report("Could not open the browser (" + e.getMessage() + "); copy the link: " + url);
        }
    }

    /** Asks for a confirmation, then cancels the run (a running run is stopped by its worker). */
    public void cancel() {
        Run r = run.get();
        if (r == null) {
            return;
        }
        confirmation.set(new Confirmation("Cancel run " + r.id() + " of " + names.nameOf(r.jobId()) + "? "
                + (Run.RUNNING.equals(r.status()) ? "Its worker is asked to stop it." : "It will not run."),
                "Cancel run", () -> act("cancel run " + r.id(), () -> cluster.cancelRun(r.id()),
                        "Cancel requested for run " + r.id() + ".")));
    }

    /** Sends a dead or cancelled run back to pending with a fresh attempt budget. */
    public void requeue() {
        Run r = run.get();
        if (r != null) {
            act("requeue run " + r.id(), () -> cluster.requeue(r.id()), "Requeued run " + r.id()
                    + ": it is pending again with a fresh attempt budget.");
        }
    }

    public void confirm() {
        Confirmation pending = confirmation.get();
        confirmation.set(null);
        if (pending != null) {
            pending.onConfirm().run();
        }
    }

    public void dismiss() {
        confirmation.set(null);
    }

    private void act(String doing, java.util.concurrent.Callable<Run> call, String success) {
        if (acting.get()) {
            return;
        }
        acting.set(true);
        async.run(call, changed -> {
            acting.set(false);
            failed.set(false);
            message.set(success);
            onChanged.accept(changed);
            show(changed);
            fetch(changed.id()); // the answer of an action may omit the attempts
        }, failure -> {
            acting.set(false);
            report(Problems.describe(doing, failure));
        });
    }

    private void report(String text) {
        failed.set(true);
        message.set(text);
    }

    /** {@code 07-01 11:30:01} in the operator's zone, or a dash: for the attempt timeline. */
    public String timeOf(java.time.Instant instant) {
        return times.compact(instant);
    }

    /** How long an attempt took, e.g. {@code 31 s}; a dash while it runs. */
    public String durationOf(Attempt attempt) {
        if (attempt.startedAt() == null || attempt.finishedAt() == null) {
            return Times.NONE;
        }
        long s = java.time.Duration.between(attempt.startedAt(), attempt.finishedAt()).getSeconds();
        return s < 120 ? s + " s" : s / 60 + "m " + s % 60 + "s";
    }

    // ---------------------------------------------------------------- state for the view

    public ReadOnlyObjectProperty<Run> runProperty() {
        return run.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty titleProperty() {
        return title.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty statusProperty() {
        return status.getReadOnlyProperty();
    }

    /** Attempt count, priority, times and worker in one line. */
    public ReadOnlyStringProperty summaryProperty() {
        return summary.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty outputProperty() {
        return output.getReadOnlyProperty();
    }

    /** The run's error: why its last attempt failed. */
    public ReadOnlyStringProperty errorProperty() {
        return error.getReadOnlyProperty();
    }

    /** The run's trace id (32 hex digits); empty when it is not traced. */
    public ReadOnlyStringProperty traceIdProperty() {
        return traceId.getReadOnlyProperty();
    }

    /** Where the trace can be seen; empty when no viewer is known (or no trace). */
    public ReadOnlyStringProperty traceUrlProperty() {
        return traceUrl.getReadOnlyProperty();
    }

    /** Why the trace is not a link, or empty. */
    public ReadOnlyStringProperty traceNoteProperty() {
        return traceNote.getReadOnlyProperty();
    }

    /** The attempt timeline, first attempt first. */
    public ObservableList<Attempt> attempts() {
        return attempts;
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

    public ReadOnlyObjectProperty<Confirmation> confirmationProperty() {
        return confirmation.getReadOnlyProperty();
    }

    public BooleanBinding canCancelProperty() {
        return canCancel;
    }

    public BooleanBinding canRequeueProperty() {
        return canRequeue;
    }
}
