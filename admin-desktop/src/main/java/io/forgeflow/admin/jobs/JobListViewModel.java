package io.forgeflow.admin.jobs;

import io.forgeflow.admin.cluster.ClusterClient;
import io.forgeflow.admin.cluster.JobNames;
import io.forgeflow.admin.cluster.JobQuery;
import io.forgeflow.admin.cluster.Tenancy;
import io.forgeflow.admin.support.Async;
import io.forgeflow.admin.support.Confirmation;
import io.forgeflow.admin.support.LabelText;
import io.forgeflow.admin.support.Navigator;
import io.forgeflow.admin.support.Problems;
import io.forgeflow.admin.support.Times;
import io.forgeflow.client.ForgeFlowApiException;
import io.forgeflow.client.Job;
import io.forgeflow.client.Page;
import io.forgeflow.client.Run;
import javafx.beans.binding.Bindings;
import javafx.beans.binding.BooleanBinding;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;

/**
 * The Jobs screen: jobs loaded page by page, filtered by the server (status, queue, labels, name prefix: sent as
 * query parameters, so every page, "Load more" included, holds only matching jobs), the selected job, and its
 * commands. Pause, resume and trigger act at once; cancel (permanent) waits for a confirmation; edit opens the form.
 */
public final class JobListViewModel {
    /** Status filter choices; "all" sends no status. */
    public static final List<String> STATUS_CHOICES = List.of("all", Job.ACTIVE, Job.PAUSED, Job.CANCELLED,
            Job.COMPLETED);
    static final int PAGE_SIZE = 200;

    private final ClusterClient cluster;
    private final Async async;
    private final JobNames names;
    private final Times times;
    private final Navigator navigator;

    private final ObservableList<Job> jobs = FXCollections.observableArrayList();
    private final StringProperty statusFilter = new SimpleStringProperty(this, "statusFilter", "all");
    private final StringProperty queueFilter = new SimpleStringProperty(this, "queueFilter", "");
    private final StringProperty labelFilter = new SimpleStringProperty(this, "labelFilter", "");
    private final StringProperty namePrefix = new SimpleStringProperty(this, "namePrefix", "");
    private final ReadOnlyStringWrapper filterError = new ReadOnlyStringWrapper(this, "filterError", "");
    private final StringProperty pauseNote = new SimpleStringProperty(this, "pauseNote", "");
    private final ReadOnlyObjectWrapper<JobQuery> query = new ReadOnlyObjectWrapper<>(this, "query", JobQuery.ALL);
    private final ObjectProperty<Job> selected = new SimpleObjectProperty<>(this, "selected");
    private final BackfillViewModel backfill;
    private final ReadOnlyBooleanWrapper loading = new ReadOnlyBooleanWrapper(this, "loading");
    private final ReadOnlyBooleanWrapper acting = new ReadOnlyBooleanWrapper(this, "acting");
    private final ReadOnlyBooleanWrapper hasMore = new ReadOnlyBooleanWrapper(this, "hasMore");
    private final ReadOnlyStringWrapper message = new ReadOnlyStringWrapper(this, "message", "");
    private final ReadOnlyBooleanWrapper failed = new ReadOnlyBooleanWrapper(this, "failed");
    private final ReadOnlyStringWrapper count = new ReadOnlyStringWrapper(this, "count", "");
    private final ReadOnlyObjectWrapper<Confirmation> confirmation = new ReadOnlyObjectWrapper<>(this, "confirmation");
    private final BooleanBinding canPause;
    private final BooleanBinding canResume;
    private final BooleanBinding canCancel;
    private final BooleanBinding canDelete;
    private final BooleanBinding canTrigger;
    private final BooleanBinding canEdit;
    private final BooleanBinding hasSelection;
    private final BooleanBinding tenantColumnVisible;

    private String nextCursor;
    private long generation;
    private int pages;
    private boolean polling;

    public JobListViewModel(ClusterClient cluster, Async async, JobNames names, Times times, Navigator navigator) {
        this.cluster = Objects.requireNonNull(cluster, "cluster");
        this.async = Objects.requireNonNull(async, "async");
        this.names = Objects.requireNonNull(names, "names");
        this.times = Objects.requireNonNull(times, "times");
        this.navigator = Objects.requireNonNull(navigator, "navigator");
        statusFilter.addListener((o, a, b) -> applyFilters());
        jobs.addListener((javafx.collections.ListChangeListener<Job>) c -> updateCount());
        tenantColumnVisible = Bindings.createBooleanBinding(
                () -> jobs.stream().anyMatch(j -> Tenancy.outsideDefault(j.tenant())), jobs);
        hasSelection = selected.isNotNull();
        backfill = new BackfillViewModel(cluster, async);
        selected.addListener((o, was, job) -> backfill.setJob(job));
        canPause = whenSelected(Job.ACTIVE);
        canResume = whenSelected(Job.PAUSED);
        canCancel = whenSelected(Job.ACTIVE, Job.PAUSED);
        canDelete = whenSelected(Job.ACTIVE, Job.PAUSED, Job.COMPLETED, Job.CANCELLED);
        canTrigger = whenSelected(Job.ACTIVE, Job.PAUSED);
        canEdit = whenSelected(Job.ACTIVE, Job.PAUSED, Job.COMPLETED);
    }

    private BooleanBinding whenSelected(String... statuses) {
        List<String> allowed = List.of(statuses);
        return Bindings.createBooleanBinding(() -> !acting.get() && selected.get() != null
                && allowed.contains(selected.get().status()), selected, acting);
    }

    /**
     * Reads the filter fields and, when they are well-formed, loads the first page the server answers for them; a bad
     * label filter is shown in {@link #filterErrorProperty()} and nothing is sent.
     */
    public void applyFilters() {
        Map<String, String> labels;
        try {
            labels = LabelText.parse(labelFilter.get());
        } catch (IllegalArgumentException e) {
            filterError.set("Labels: " + e.getMessage());
            return;
        }
        filterError.set("");
        String status = "all".equals(statusFilter.get()) ? null : statusFilter.get();
        query.set(new JobQuery(status, queueFilter.get(), labels, namePrefix.get()));
        refresh();
    }

    /** Empties every filter and loads all jobs. */
    public void clearFilters() {
        queueFilter.set("");
        labelFilter.set("");
        namePrefix.set("");
        if ("all".equals(statusFilter.get())) {
            applyFilters();
        } else {
            statusFilter.set("all"); // applies
        }
    }

    /** Loads the first page again for the applied filters (keeping the selection when the job is still there). */
    public void refresh() {
        long mine = ++generation;
        loading.set(true);
        JobQuery q = query.get();
        async.run(() -> cluster.jobs(q, null, PAGE_SIZE), page -> {
            if (mine != generation) {
                return;
            }
            loading.set(false);
            pages = 1;
            replace(page);
            if (failed.get()) {
                message.set("");
                failed.set(false);
            }
        }, failure -> {
            if (mine == generation) {
                loading.set(false);
                report(Problems.describe("load the jobs", failure));
            }
        });
    }

    /** Appends the next page, when there is one. */
    public void loadMore() {
        if (nextCursor == null || loading.get()) {
            return;
        }
        long mine = generation;
        String cursor = nextCursor;
        JobQuery q = query.get();
        loading.set(true);
        async.run(() -> cluster.jobs(q, cursor, PAGE_SIZE), page -> {
            if (mine != generation) {
                return;
            }
            loading.set(false);
            pages++;
            jobs.addAll(page.items());
            accept(page);
        }, failure -> {
            if (mine == generation) {
                loading.set(false);
                report(Problems.describe("load more jobs", failure));
            }
        });
    }

    /**
     * Called every poll interval while the Jobs screen shows: follows the last backfill until it is done, and reloads the
     * first page (statuses and next runs change) unless the operator paged further, is acting, or has a confirmation
     * open.
     */
    public void poll() {
        backfill.poll(); // a backfill's later progress, until it is done
        if (loading.get() || acting.get() || polling || pages != 1 || confirmation.get() != null) {
            return;
        }
        polling = true;
        long mine = generation;
        JobQuery q = query.get();
        async.run(() -> cluster.jobs(q, null, PAGE_SIZE), page -> {
            polling = false;
            if (mine == generation && pages == 1 && !jobs.equals(page.items())) {
                replace(page);
            }
        }, failure -> polling = false);
    }

    private void replace(Page<Job> page) {
        String keep = selected.get() == null ? null : selected.get().id();
        jobs.setAll(page.items());
        accept(page);
        selected.set(keep == null ? null : find(keep));
    }

    private void accept(Page<Job> page) {
        nextCursor = page.hasMore() ? page.nextCursor() : null;
        hasMore.set(nextCursor != null);
        page.items().forEach(names::learn);
        updateCount();
    }

    /**
     * Pauses the selected job with the note in {@link #pauseNoteProperty()} (none when blank), then clears the note.
     */
    public void pauseSelected() {
        String note = pauseNote.get() == null || pauseNote.get().isBlank() ? null : pauseNote.get().strip();
        act("pause", id -> note == null ? cluster.pause(id) : cluster.pause(id, note), job -> {
            pauseNote.set("");
            return "Paused " + job.name() + ": no new runs until you resume it.";
        });
    }

    /** The note the next pause sends: why the job is paused (at most 500 characters). */
    public StringProperty pauseNoteProperty() {
        return pauseNote;
    }

    /**
     * The job's status as the operator should read it: a paused job's note and who paused it, a recurring job's runs
     * fired of its max_runs and its dead runs in a row against pause_after_failures ("paused: vendor outage (by token
     * 2)", "active, 2 of 5 runs, 2 of 3 dead in a row").
     */
    public String statusOf(Job job) {
        StringBuilder text = new StringBuilder(job.status());
        if (job.maxRuns() != null) {
            text.append(", ").append(job.firedRuns()).append(" of ").append(job.maxRuns()).append(" runs");
        }
        if (job.pauseAfterFailures() != null && job.deadStreak() > 0) {
            text.append(", ").append(job.deadStreak()).append(" of ").append(job.pauseAfterFailures())
                    .append(" dead in a row");
        }
        if (job.pausedNote() != null) {
            text.append(": ").append(job.pausedNote().replace('\n', ' '));
        }
        if (job.pausedBy() != null) {
            text.append(" (by ").append(job.pausedBy()).append(')');
        }
        return text.toString();
    }

    /** A recurring job's window and jitter in the operator's zone; empty when it has neither. */
    public String windowOf(Job job) {
        StringBuilder text = new StringBuilder();
        if (job.startAt() != null) {
            text.append("from ").append(times.local(job.startAt()));
        }
        if (job.endAt() != null) {
            text.append(text.length() == 0 ? "" : " ").append("until ").append(times.local(job.endAt()));
        }
        if (job.jitterSeconds() > 0) {
            text.append(text.length() == 0 ? "" : ", ").append("jitter ").append(job.jitterSeconds()).append('s');
        }
        return text.toString();
    }

    /**
     * Where the job's notices go and for which events ("dead, recovered → https://hooks.example.com/ff"); empty when
     * it sends none. Shown only: notify is set over the API, the CLI or the client.
     */
    public String noticesOf(Job job) {
        if (job.notices() == null) {
            return "";
        }
        List<String> on = job.notices().on() == null ? List.of() : job.notices().on();
        return String.join(", ", on) + " \u2192 " + job.notices().url();
    }

    public void resumeSelected() {
        act("resume", cluster::resume, job -> "Resumed " + job.name() + "; next run "
                + times.local(job.nextRunAt()) + ".");
    }

    /** Asks for a confirmation first: cancelling a job is permanent. */
    public void cancelSelected() {
        Job job = selected.get();
        if (job == null) {
            return;
        }
        confirmation.set(new Confirmation("Cancel job \"" + job.name() + "\" for good? Its pending runs are "
                + "cancelled and a running run is asked to stop. This cannot be undone.", "Cancel job",
                () -> act("cancel", cluster::cancel, j -> "Cancelled " + j.name() + ".")));
    }

    /**
     * Asks for a confirmation first; while a run of the job is running the server refuses (409 job_running) and a
     * second confirmation offers to cancel that run and delete.
     */
    public void deleteSelected() {
        Job job = selected.get();
        if (job == null) {
            return;
        }
        confirmation.set(new Confirmation("Delete job \"" + job.name() + "\"? Its pending runs are cancelled and it "
                + "leaves the list; its finished runs stay readable.", "Delete job", () -> delete(job, false)));
    }

    private void delete(Job job, boolean cancelRunning) {
        if (acting.get()) {
            return;
        }
        acting.set(true);
        async.run(() -> cluster.delete(job.id(), cancelRunning), (Job tombstone) -> {
            acting.set(false);
            names.learn(tombstone);
            int index = indexOf(job.id());
            if (index >= 0) {
                jobs.remove(index);
            }
            if (selected.get() != null && selected.get().id().equals(job.id())) {
                selected.set(null);
            }
            updateCount();
            say("Deleted " + job.name() + (cancelRunning ? " after cancelling its running run." : "."));
        }, failure -> {
            acting.set(false);
            if (!cancelRunning && failure instanceof ForgeFlowApiException api && "job_running".equals(api.code())) {
                confirmation.set(new Confirmation("A run of \"" + job.name() + "\" is running. Cancel the running run "
                        + "and delete the job?", "Cancel run and delete", () -> delete(job, true)));
                return;
            }
            report(Problems.describe("delete job " + job.name(), failure));
        });
    }

    public void triggerSelected() {
        Job job = selected.get();
        if (job == null || acting.get()) {
            return;
        }
        acting.set(true);
        async.run(() -> cluster.trigger(job.id()), (Run run) -> {
            acting.set(false);
            say("Triggered " + job.name() + ": run " + run.id() + " is " + run.status() + ".");
        }, failure -> {
            acting.set(false);
            report(Problems.describe("trigger " + job.name(), failure));
        });
    }

    /** The operator said yes to the pending confirmation. */
    public void confirm() {
        Confirmation pending = confirmation.get();
        confirmation.set(null);
        if (pending != null) {
            pending.onConfirm().run();
        }
    }

    /** The operator said no. */
    public void dismiss() {
        confirmation.set(null);
    }

    /** Selects the job when it is in the loaded list; false when it is not. */
    public boolean selectById(String jobId) {
        Job job = jobId == null ? null : find(jobId);
        if (job != null) {
            selected.set(job);
        }
        return job != null;
    }

    /** Opens the Runs screen for the selected job. */
    public void showRunsOfSelected() {
        Job job = selected.get();
        if (job != null) {
            navigator.showRunsOfJob(job.id());
        }
    }

    /** Opens the selected job in the form, to change it. */
    public void editSelected() {
        Job job = selected.get();
        if (job != null && canEdit.get()) {
            navigator.showEditForm(job);
        }
    }

    /** A job the form changed: shown at once, then the page is read again (the change may move it out of the filter). */
    public void saved(Job job) {
        upsert(job);
        say("Saved " + job.name() + ".");
        refresh();
    }

    /** Opens the submit form. */
    public void newJob() {
        navigator.showSubmitForm();
    }

    /** Puts a job (new or changed) into the list, at the top when new, and selects it. */
    public void upsert(Job job) {
        names.learn(job);
        int index = indexOf(job.id());
        if (index >= 0) {
            jobs.set(index, job);
        } else {
            jobs.add(0, job);
        }
        selected.set(job);
    }

    private interface Action {
        Job apply(String jobId);
    }

    private interface Describe {
        String text(Job job);
    }

    private void act(String verb, Action action, Describe success) {
        Job job = selected.get();
        if (job == null || acting.get()) {
            return;
        }
        acting.set(true);
        Callable<Job> work = () -> action.apply(job.id());
        async.run(work, updated -> {
            acting.set(false);
            upsert(updated);
            say(success.text(updated));
        }, failure -> {
            acting.set(false);
            report(Problems.describe(verb + " job " + job.name(), failure));
        });
    }

    private void say(String text) {
        failed.set(false);
        message.set(text);
    }

    private void report(String text) {
        failed.set(true);
        message.set(text);
    }

    private void updateCount() {
        String more = hasMore.get() ? " (more on the server: Load more)" : "";
        JobQuery q = query.get();
        count.set(jobs.size() + (jobs.size() == 1 ? " job" : " jobs")
                + (q.equals(JobQuery.ALL) ? "" : " matching " + q) + more);
    }

    private Job find(String id) {
        int index = indexOf(id);
        return index < 0 ? null : jobs.get(index);
    }

    private int indexOf(String id) {
        for (int i = 0; i < jobs.size(); i++) {
            if (jobs.get(i).id().equals(id)) {
                return i;
            }
        }
        return -1;
    }

    // ---------------------------------------------------------------- how a job reads in the table

    /** {@code 0 3 * * *  (Europe/Berlin)}, {@code once at 2026-07-01 12:00:00 CEST}, or {@code once, right away}. */
    public String scheduleOf(Job job) {
        if (job.cronExpr() != null && !job.cronExpr().isBlank()) {
            return job.cronExpr() + "  (" + (job.timezone() == null ? "UTC" : job.timezone()) + ")";
        }
        if (job.runAt() != null) {
            return "once at " + Times.in(job.runAt(), zoneOf(job));
        }
        return "once, right away";
    }

    /** The next run in the operator's time zone. */
    public String nextRunLocalOf(Job job) {
        return times.local(job.nextRunAt());
    }

    /** The next run in UTC. */
    public String nextRunUtcOf(Job job) {
        return Times.utc(job.nextRunAt());
    }

    private static ZoneId zoneOf(Job job) {
        try {
            return ZoneId.of(job.timezone() == null ? "UTC" : job.timezone());
        } catch (RuntimeException e) {
            return ZoneId.of("UTC");
        }
    }

    // ---------------------------------------------------------------- state for the view

    /** Every job loaded so far. */
    public ObservableList<Job> jobs() {
        return jobs;
    }

    /** The loaded jobs (every one matches the applied filters); the view sorts this. */
    public ObservableList<Job> visibleJobs() {
        return jobs;
    }

    /** One of {@link #STATUS_CHOICES}; changing it applies the filters. */
    public StringProperty statusFilterProperty() {
        return statusFilter;
    }

    /** A queue name; empty: every queue. Applied by {@link #applyFilters()}. */
    public StringProperty queueFilterProperty() {
        return queueFilter;
    }

    /** {@code team:ops, env:prod}: jobs carrying every one of these labels. Applied by {@link #applyFilters()}. */
    public StringProperty labelFilterProperty() {
        return labelFilter;
    }

    /** Jobs whose name starts with this (case-sensitive). Applied by {@link #applyFilters()}. */
    public StringProperty namePrefixProperty() {
        return namePrefix;
    }

    /** What is wrong with the filter fields; empty when they are well-formed. */
    public ReadOnlyStringProperty filterErrorProperty() {
        return filterError.getReadOnlyProperty();
    }

    /** The filters the list was loaded with (paging keeps them). */
    public ReadOnlyObjectProperty<JobQuery> queryProperty() {
        return query.getReadOnlyProperty();
    }

    public BooleanBinding canEditProperty() {
        return canEdit;
    }

    public ObjectProperty<Job> selectedProperty() {
        return selected;
    }

    public ReadOnlyBooleanProperty loadingProperty() {
        return loading.getReadOnlyProperty();
    }

    public ReadOnlyBooleanProperty hasMoreProperty() {
        return hasMore.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty messageProperty() {
        return message.getReadOnlyProperty();
    }

    public ReadOnlyBooleanProperty failedProperty() {
        return failed.getReadOnlyProperty();
    }

    /** {@code 12 jobs}, or {@code 3 jobs matching queue=reports}. */
    public ReadOnlyStringProperty countProperty() {
        return count.getReadOnlyProperty();
    }

    /** A destructive action waiting for yes or no; null when none. */
    public ReadOnlyObjectProperty<Confirmation> confirmationProperty() {
        return confirmation.getReadOnlyProperty();
    }

    public BooleanBinding canPauseProperty() {
        return canPause;
    }

    public BooleanBinding canResumeProperty() {
        return canResume;
    }

    public BooleanBinding canCancelProperty() {
        return canCancel;
    }

    public BooleanBinding canDeleteProperty() {
        return canDelete;
    }

    public BooleanBinding canTriggerProperty() {
        return canTrigger;
    }

    /** Backfill of the selected job (a recurring one). */
    public BackfillViewModel backfill() {
        return backfill;
    }

    /** Whether the Tenant column shows: while some loaded job is outside the default tenant. */
    public BooleanBinding tenantColumnVisibleProperty() {
        return tenantColumnVisible;
    }

    /** A job's tenant ({@value Tenancy#DEFAULT} from a server that sends none). */
    public static String tenantOf(Job job) {
        return job.tenant() == null ? Tenancy.DEFAULT : job.tenant();
    }

    public BooleanBinding hasSelectionProperty() {
        return hasSelection;
    }
}
