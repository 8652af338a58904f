package io.forgeflow.admin.runs;

import io.forgeflow.admin.cluster.ClusterClient;
import io.forgeflow.admin.cluster.JobNames;
import io.forgeflow.admin.cluster.RunQuery;
import io.forgeflow.admin.cluster.Tenancy;
import io.forgeflow.admin.support.Async;
import io.forgeflow.admin.support.LabelText;
import io.forgeflow.admin.support.Problems;
import io.forgeflow.admin.support.Times;
import io.forgeflow.client.Page;
import io.forgeflow.client.Run;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Run history, newest first, filtered by the server (job id, status, queue, labels, scheduled after/before, finished
 * after: sent as query parameters, so every page holds only matching runs), loaded a page at a time with the cursor
 * ("Load more" keeps the applied filters). Selecting a run loads its detail. Tens of thousands of rows are fine: the
 * list only holds records, and the table draws the visible rows.
 */
public final class RunListViewModel {
    public static final List<String> STATUS_CHOICES = List.of("all", Run.WAITING, Run.PENDING, Run.RUNNING,
            Run.SUCCEEDED, Run.DEAD, Run.CANCELLED);
    /** The API's largest page. */
    public static final int PAGE_SIZE = 500;
    private static final DateTimeFormatter LOCAL_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm[:ss]");

    private final ClusterClient cluster;
    private final Async async;
    private final JobNames names;
    private final Times times;
    private final RunDetailViewModel detail;

    private final ObservableList<Run> runs = FXCollections.observableArrayList();
    private final javafx.beans.binding.BooleanBinding tenantColumnVisible;
    private final StringProperty jobFilter = new SimpleStringProperty(this, "jobFilter");
    private final ReadOnlyStringWrapper jobFilterLabel = new ReadOnlyStringWrapper(this, "jobFilterLabel", "All jobs");
    private final StringProperty statusFilter = new SimpleStringProperty(this, "statusFilter", "all");
    private final StringProperty jobIdFilter = new SimpleStringProperty(this, "jobIdFilter", "");
    private final StringProperty queueFilter = new SimpleStringProperty(this, "queueFilter", "");
    private final StringProperty labelFilter = new SimpleStringProperty(this, "labelFilter", "");
    private final StringProperty scheduledAfter = new SimpleStringProperty(this, "scheduledAfter", "");
    private final StringProperty scheduledBefore = new SimpleStringProperty(this, "scheduledBefore", "");
    private final StringProperty finishedAfter = new SimpleStringProperty(this, "finishedAfter", "");
    private final ReadOnlyStringWrapper filterError = new ReadOnlyStringWrapper(this, "filterError", "");
    private final ReadOnlyObjectWrapper<RunQuery> query = new ReadOnlyObjectWrapper<>(this, "query", RunQuery.ALL);
    private final ObjectProperty<Run> selected = new SimpleObjectProperty<>(this, "selected");
    private final ReadOnlyBooleanWrapper loading = new ReadOnlyBooleanWrapper(this, "loading");
    private final ReadOnlyBooleanWrapper hasMore = new ReadOnlyBooleanWrapper(this, "hasMore");
    private final ReadOnlyStringWrapper count = new ReadOnlyStringWrapper(this, "count", "");
    private final ReadOnlyStringWrapper message = new ReadOnlyStringWrapper(this, "message", "");
    private String nextCursor;
    private long generation;
    private boolean quiet;
    private boolean opening;
    private int pages;
    private boolean polling;

    public RunListViewModel(ClusterClient cluster, Async async, JobNames names, Times times,
                            RunDetailViewModel detail) {
        this.cluster = Objects.requireNonNull(cluster, "cluster");
        this.async = Objects.requireNonNull(async, "async");
        this.names = Objects.requireNonNull(names, "names");
        this.times = Objects.requireNonNull(times, "times");
        this.detail = Objects.requireNonNull(detail, "detail");
        statusFilter.addListener((o, a, b) -> {
            if (!quiet) {
                applyFilters();
            }
        });
        selected.addListener((o, was, run) -> {
            if (!opening && run != null && (was == null || !was.id().equals(run.id()))) {
                detail.load(run.id());
            }
        });
        names.names().addListener((javafx.collections.MapChangeListener<String, String>) c -> updateLabel());
        detail.setOnChanged(this::replace);
        tenantColumnVisible = javafx.beans.binding.Bindings.createBooleanBinding(
                () -> runs.stream().anyMatch(r -> Tenancy.outsideDefault(r.tenant())), runs);
    }

    /** Whether the Tenant column shows: while some loaded run is outside the default tenant. */
    public javafx.beans.binding.BooleanBinding tenantColumnVisibleProperty() {
        return tenantColumnVisible;
    }

    /** A run's tenant ({@value Tenancy#DEFAULT} from a server that sends none). */
    public static String tenantOf(Run run) {
        return run.tenant() == null ? Tenancy.DEFAULT : run.tenant();
    }

    /** Shows every run of one job (the other filters are cleared). */
    public void showJob(String jobId) {
        clearQuietly();
        jobIdFilter.set(jobId);
        applyFilters();
    }

    /** Shows the runs of every job (the other filters stay). */
    public void showAllJobs() {
        jobIdFilter.set("");
        applyFilters();
    }

    /** Empties every filter and shows all runs. */
    public void clearFilters() {
        clearQuietly();
        applyFilters();
    }

    private void clearQuietly() {
        quiet = true;
        try {
            statusFilter.set("all");
            jobIdFilter.set("");
            queueFilter.set("");
            labelFilter.set("");
            scheduledAfter.set("");
            scheduledBefore.set("");
            finishedAfter.set("");
        } finally {
            quiet = false;
        }
    }

    /**
     * Reads the filter fields and, when they are well-formed, loads the first page the server answers for them. Times
     * are read in the operator's zone ({@code 2026-07-01 09:30}, or a day) or as RFC 3339; a bad one is shown in
     * {@link #filterErrorProperty()} and nothing is sent.
     */
    public void applyFilters() {
        RunQuery q;
        try {
            Map<String, String> labels;
            try {
                labels = LabelText.parse(labelFilter.get());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("Labels: " + e.getMessage(), e);
            }
            Instant after = time("Scheduled after", scheduledAfter.get());
            Instant before = time("Scheduled before", scheduledBefore.get());
            if (after != null && before != null && !after.isBefore(before)) {
                throw new IllegalArgumentException("Scheduled after must be earlier than scheduled before.");
            }
            q = new RunQuery(jobIdFilter.get(), "all".equals(statusFilter.get()) ? null : statusFilter.get(),
                    queueFilter.get(), labels, after, before, time("Finished after", finishedAfter.get()));
        } catch (IllegalArgumentException e) {
            filterError.set(e.getMessage());
            return;
        }
        filterError.set("");
        query.set(q);
        jobFilter.set(q.jobId());
        if (q.jobId() != null) {
            names.resolve(List.of(q.jobId()));
        }
        updateLabel();
        refresh();
    }

    private Instant time(String what, String text) {
        String t = text == null ? "" : text.strip();
        if (t.isEmpty()) {
            return null;
        }
        try {
            return OffsetDateTime.parse(t).toInstant();
        } catch (DateTimeParseException notRfc3339) {
            try {
                return LocalDateTime.parse(t.replace('T', ' '), LOCAL_TIME).atZone(times.zone()).toInstant();
            } catch (DateTimeParseException notLocal) {
                try {
                    return LocalDate.parse(t).atStartOfDay(times.zone()).toInstant();
                } catch (DateTimeParseException notDay) {
                    throw new IllegalArgumentException(what + ": write the time as 2026-07-01 09:30 (in "
                            + times.zoneName() + "), 2026-07-01, or 2026-07-01T09:30:00Z; '" + t + "' is none of these.");
                }
            }
        }
    }

    /** Opens one run's detail, whatever the list shows. */
    public void open(String runId) {
        Run inList = runs.stream().filter(r -> r.id().equals(runId)).findFirst().orElse(null);
        opening = true;
        try {
            selected.set(inList);
        } finally {
            opening = false;
        }
        detail.load(runId);
    }

    /** Loads the first page again for the applied filters. */
    public void refresh() {
        long mine = ++generation;
        loading.set(true);
        message.set("");
        RunQuery q = query.get();
        async.run(() -> cluster.runs(q, null, PAGE_SIZE), page -> {
            if (mine != generation) {
                return;
            }
            loading.set(false);
            pages = 1;
            replace(page);
        }, failure -> {
            if (mine == generation) {
                loading.set(false);
                message.set(Problems.describe("load the runs", failure));
            }
        });
    }

    public void loadMore() {
        if (nextCursor == null || loading.get()) {
            return;
        }
        long mine = generation;
        String cursor = nextCursor;
        RunQuery q = query.get();
        loading.set(true);
        async.run(() -> cluster.runs(q, cursor, PAGE_SIZE), page -> {
            if (mine != generation) {
                return;
            }
            loading.set(false);
            pages++;
            runs.addAll(page.items());
            accept(page);
        }, failure -> {
            if (mine == generation) {
                loading.set(false);
                message.set(Problems.describe("load more runs", failure));
            }
        });
    }

    /**
     * Called every poll interval while the Runs screen shows: reloads the first page when only the first page is
     * loaded (an operator who paged further keeps the list still), so runs move from pending to succeeded on their
     * own. Failures are left to the overview, which reports a lost connection.
     */
    public void poll() {
        if (loading.get() || polling || pages != 1) {
            return;
        }
        polling = true;
        long mine = generation;
        RunQuery q = query.get();
        async.run(() -> cluster.runs(q, null, PAGE_SIZE), page -> {
            polling = false;
            if (mine == generation && pages == 1 && !runs.equals(page.items())) {
                replace(page);
            }
        }, failure -> polling = false);
        detail.poll();
    }

    /** Shows a fresh first page, keeping the selected run selected without reloading its detail. */
    private void replace(Page<Run> page) {
        String keep = selected.get() == null ? null : selected.get().id();
        runs.setAll(page.items());
        accept(page);
        if (keep != null) {
            opening = true;
            try {
                runs.stream().filter(r -> r.id().equals(keep)).findFirst().ifPresent(selected::set);
            } finally {
                opening = false;
            }
        }
    }

    private void accept(Page<Run> page) {
        nextCursor = page.hasMore() ? page.nextCursor() : null;
        hasMore.set(nextCursor != null);
        names.resolve(page.items().stream().map(Run::jobId).toList());
        RunQuery q = query.get();
        boolean narrowed = !RunQuery.of(q.jobId(), null).equals(q);
        count.set(runs.size() + (runs.size() == 1 ? " run" : " runs") + (hasMore.get() ? " loaded; more on the server"
                : "") + (narrowed ? " (filtered)" : ""));
    }

    /** Puts a changed run (cancelled, requeued) in place. */
    void replace(Run run) {
        for (int i = 0; i < runs.size(); i++) {
            if (runs.get(i).id().equals(run.id())) {
                runs.set(i, run);
                return;
            }
        }
    }

    private void updateLabel() {
        String job = jobFilter.get();
        jobFilterLabel.set(job == null ? "All jobs" : "Job " + names.nameOf(job)
                + (names.names().containsKey(job) ? " (" + job + ")" : ""));
    }

    // ---------------------------------------------------------------- how a run reads in the table

    public String jobName(String jobId) {
        return names.nameOf(jobId);
    }

    /** Job names as they arrive, so views can redraw rows that showed an id. */
    public javafx.collections.ObservableMap<String, String> names() {
        return names.names();
    }

    /** The run's trace id as the server sent it, or empty. */
    public String traceOf(Run run) {
        String id = cluster.trace(run).traceId();
        return id == null ? "" : id;
    }

    public String attemptsOf(Run run) {
        return run.attempt() + " / " + run.maxAttempts();
    }

    /** {@code 07-01 11:30:05} in the operator's zone; the column header names the zone. */
    public String timeOf(java.time.Instant instant) {
        return times.compact(instant);
    }

    /** The operator's time zone, for column headers. */
    public String zoneName() {
        return times.zoneName();
    }

    // ---------------------------------------------------------------- state for the view

    public ObservableList<Run> runs() {
        return runs;
    }

    /** The job whose runs are shown; null for all jobs. */
    public StringProperty jobFilterProperty() {
        return jobFilter;
    }

    public ReadOnlyStringProperty jobFilterLabelProperty() {
        return jobFilterLabel.getReadOnlyProperty();
    }

    /** One of {@link #STATUS_CHOICES}; changing it applies the filters. */
    public StringProperty statusFilterProperty() {
        return statusFilter;
    }

    /** A job id; empty: every job. The other filter fields too are applied by {@link #applyFilters()}. */
    public StringProperty jobIdFilterProperty() {
        return jobIdFilter;
    }

    public StringProperty queueFilterProperty() {
        return queueFilter;
    }

    /** {@code team:ops, env:prod}: runs carrying every one of these labels. */
    public StringProperty labelFilterProperty() {
        return labelFilter;
    }

    public StringProperty scheduledAfterProperty() {
        return scheduledAfter;
    }

    public StringProperty scheduledBeforeProperty() {
        return scheduledBefore;
    }

    public StringProperty finishedAfterProperty() {
        return finishedAfter;
    }

    /** What is wrong with the filter fields; empty when they are well-formed. */
    public ReadOnlyStringProperty filterErrorProperty() {
        return filterError.getReadOnlyProperty();
    }

    /** The filters the list was loaded with (paging keeps them). */
    public javafx.beans.property.ReadOnlyObjectProperty<RunQuery> queryProperty() {
        return query.getReadOnlyProperty();
    }

    public ObjectProperty<Run> selectedProperty() {
        return selected;
    }

    public ReadOnlyBooleanProperty loadingProperty() {
        return loading.getReadOnlyProperty();
    }

    public ReadOnlyBooleanProperty hasMoreProperty() {
        return hasMore.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty countProperty() {
        return count.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty messageProperty() {
        return message.getReadOnlyProperty();
    }

    public RunDetailViewModel detail() {
        return detail;
    }
}
