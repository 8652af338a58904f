package io.forgeflow.admin.console;

import io.forgeflow.admin.cluster.ClusterClient;
import io.forgeflow.admin.cluster.JobNames;
import io.forgeflow.admin.deadletters.DeadLetterViewModel;
import io.forgeflow.admin.jobs.JobFormViewModel;
import io.forgeflow.admin.jobs.JobListViewModel;
import io.forgeflow.admin.overview.OverviewViewModel;
import io.forgeflow.admin.runs.RunDetailViewModel;
import io.forgeflow.admin.runs.RunListViewModel;
import io.forgeflow.admin.runs.TraceViewer;
import io.forgeflow.admin.support.Async;
import io.forgeflow.admin.support.Navigator;
import io.forgeflow.admin.support.Ticker;
import io.forgeflow.admin.support.Times;
import io.forgeflow.admin.workflows.BatchViewModel;
import io.forgeflow.admin.workflows.JobDetailViewModel;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.SimpleObjectProperty;

import java.time.Duration;
import java.util.Objects;

/**
 * Everything the console shows while connected to one server: the screens' view models, built on one
 * {@link ClusterClient}, and which screen is in front. It is the {@link Navigator} the screens use to send the
 * operator elsewhere (a dead run on the overview opens in Runs, a job's runs open in Runs).
 */
public final class ConsoleViewModel implements Navigator {
    /** The console's screens, in tab order. */
    public enum Screen { OVERVIEW, JOBS, SUBMIT, RUNS, DEAD_LETTERS, BATCHES, QUEUES, TENANTS }

    private final ClusterClient cluster;
    private final JobNames names;
    private final OverviewViewModel overview;
    private final JobListViewModel jobs;
    private final JobFormViewModel form;
    private final RunListViewModel runs;
    private final DeadLetterViewModel deadLetters;
    private final JobDetailViewModel jobDetail;
    private final BatchViewModel batches;
    private final io.forgeflow.admin.queues.QueueListViewModel queues;
    private final io.forgeflow.admin.tenants.TenantListViewModel tenants;
    private final TraceViewer traces = new TraceViewer();
    private final ObjectProperty<Screen> screen = new SimpleObjectProperty<>(this, "screen", Screen.OVERVIEW);
    private final javafx.beans.property.ReadOnlyStringWrapper tenantLabel =
            new javafx.beans.property.ReadOnlyStringWrapper(this, "tenantLabel", "");
    private final Ticker ticker;
    private final Duration pollInterval;
    private Ticker.Cancellable polling;

    public ConsoleViewModel(ClusterClient cluster, Async async, Ticker ticker, Duration pollInterval, Times times) {
        this.cluster = Objects.requireNonNull(cluster, "cluster");
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        this.pollInterval = Objects.requireNonNull(pollInterval, "pollInterval");
        this.names = new JobNames(cluster, async);
        this.overview = new OverviewViewModel(cluster, async, ticker, pollInterval, names, times, this);
        this.jobs = new JobListViewModel(cluster, async, names, times, this);
        this.form = new JobFormViewModel(cluster, async, times, this);
        this.runs = new RunListViewModel(cluster, async, names, times, new RunDetailViewModel(cluster, async, names,
                times, traces));
        this.deadLetters = new DeadLetterViewModel(cluster, async, names, times, this);
        this.jobDetail = new JobDetailViewModel(cluster, async, names, this);
        this.batches = new BatchViewModel(cluster, async, names, times, this);
        this.queues = new io.forgeflow.admin.queues.QueueListViewModel(cluster, async);
        this.tenants = new io.forgeflow.admin.tenants.TenantListViewModel(cluster, async);
        tenantLabel.set(cluster.tenant() == null ? "" : "Tenant " + cluster.tenant());
        jobs.selectedProperty().addListener((o, was, job) -> {
            if (job != null && (was == null || !was.id().equals(job.id()) || jobDetail.shownJobId() == null)) {
                jobDetail.open(job.id());
            }
        });
        form.setOnSubmitted(jobs::upsert);
        form.setOnSaved(job -> {
            jobs.saved(job);
            screen.set(Screen.JOBS);
        });
        screen.addListener((o, was, now) -> {
            if (now == Screen.JOBS) {
                jobs.refresh();
            } else if (now == Screen.DEAD_LETTERS) {
                deadLetters.refresh();
            } else if (now == Screen.QUEUES) {
                queues.refresh();
            } else if (now == Screen.TENANTS) {
                tenants.refresh();
            }
        });
    }

    /** Loads every screen once, starts the live overview, and keeps the screen in front fresh. */
    public void start() {
        overview.start();
        jobs.refresh();
        runs.refresh();
        deadLetters.refresh();
        polling = ticker.every(pollInterval, this::poll);
    }

    /**
     * The screen in front updates itself: Jobs and Runs reload their first page, an open pending or running run
     * reloads. Dead letters stay still while the operator selects (their count on the overview is live).
     */
    void poll() {
        switch (screen.get()) {
            case JOBS -> {
                jobs.poll();
                jobDetail.poll();
            }
            case RUNS -> runs.poll();
            case BATCHES -> batches.poll();
            case QUEUES -> queues.poll();
            case TENANTS -> tenants.poll();
            default -> { }
        }
    }

    /** Stops live updates (the connection view model closes the client). */
    public void stop() {
        overview.stop();
        if (polling != null) {
            polling.close();
            polling = null;
        }
    }

    @Override
    public void showRun(String runId) {
        runs.open(runId);
        screen.set(Screen.RUNS);
    }

    @Override
    public void showRunsOfJob(String jobId) {
        runs.showJob(jobId);
        screen.set(Screen.RUNS);
    }

    @Override
    public void showDeadLetters() {
        screen.set(Screen.DEAD_LETTERS);
    }

    @Override
    public void showEditForm(io.forgeflow.client.Job job) {
        form.edit(job);
        screen.set(Screen.SUBMIT);
    }

    @Override
    public void showSubmitForm() {
        if (form.submittedProperty().get() != null || form.modeProperty().get() == JobFormViewModel.Mode.EDIT) {
            form.reset();
        }
        screen.set(Screen.SUBMIT);
    }

    /** Selects the job in the Jobs list when it is loaded, and shows its detail either way. */
    @Override
    public void showJob(String jobId) {
        if (!jobs.selectById(jobId)) {
            jobs.selectedProperty().set(null);
            jobDetail.open(jobId);
        }
        screen.set(Screen.JOBS);
    }

    @Override
    public void showBatch(String batchId) {
        batches.show(batchId);
        screen.set(Screen.BATCHES);
    }

    @Override
    public void showJobs() {
        screen.set(Screen.JOBS);
    }

    /** The tenant the connected token is bound to (from the connect screen); null or empty for a cluster-wide one. */
    public void setBoundTenant(String bound) {
        if (bound != null && !bound.isEmpty()) {
            tenantLabel.set("Tenant " + bound + " (this token's)");
            tenants.boundTo(bound); // cluster-wide: not read, and the screen says why
        }
    }

    /** "Tenant acme" while the console acts in one tenant; empty across tenants. */
    public javafx.beans.property.ReadOnlyStringProperty tenantLabelProperty() {
        return tenantLabel.getReadOnlyProperty();
    }

    public String serverUrl() {
        return cluster.serverUrl();
    }

    public ObjectProperty<Screen> screenProperty() {
        return screen;
    }

    public OverviewViewModel overview() {
        return overview;
    }

    public JobListViewModel jobs() {
        return jobs;
    }

    public JobFormViewModel form() {
        return form;
    }

    public RunListViewModel runs() {
        return runs;
    }

    public RunDetailViewModel runDetail() {
        return runs.detail();
    }

    public JobDetailViewModel jobDetail() {
        return jobDetail;
    }

    public BatchViewModel batches() {
        return batches;
    }

    /** Queues' pause switches and limits (each tenant's). */
    public io.forgeflow.admin.queues.QueueListViewModel queues() {
        return queues;
    }

    /** Tenants' weights and limits (cluster-wide). */
    public io.forgeflow.admin.tenants.TenantListViewModel tenants() {
        return tenants;
    }

    public DeadLetterViewModel deadLetters() {
        return deadLetters;
    }

    /** Where run traces open: the app sets the browser and the operator's template. */
    public TraceViewer traces() {
        return traces;
    }

    public JobNames names() {
        return names;
    }
}
