package io.forgeflow.admin.overview;

import io.forgeflow.admin.cluster.ClusterClient;
import io.forgeflow.admin.cluster.JobNames;
import io.forgeflow.admin.cluster.Tenancy;
import io.forgeflow.admin.support.Async;
import io.forgeflow.admin.support.Lists;
import io.forgeflow.admin.support.Navigator;
import io.forgeflow.admin.support.Problems;
import io.forgeflow.admin.support.Ticker;
import io.forgeflow.admin.support.Times;
import io.forgeflow.client.EventSubscription;
import io.forgeflow.client.ForgeFlowApiException;
import io.forgeflow.client.ForgeFlowException;
import io.forgeflow.client.Node;
import io.forgeflow.client.Page;
import io.forgeflow.client.Run;
import io.forgeflow.client.RunEvent;
import io.forgeflow.client.RunEventListener;
import io.forgeflow.client.Stats;
import javafx.beans.property.ReadOnlyLongProperty;
import javafx.beans.property.ReadOnlyLongWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The overview's state, kept fresh without a manual refresh: every poll interval it reads stats, nodes and the latest
 * dead runs; run events come from the server's event stream, or, when the server has none (404), from comparing the
 * latest runs between polls. A slow server never stacks polls: a tick is skipped while the previous one is out.
 *
 * <p>A tenant-bound token is refused the cluster-wide routes (stats, nodes, events: 403 {@code tenant_forbidden}):
 * then {@link #clusterNoteProperty()} says so, those are no longer asked for, and the dead runs and the feed (its
 * tenant's runs, polled) go on.
 */
public final class OverviewViewModel {
    /** How many dead runs the "needs attention" list shows. */
    public static final int ATTENTION_SIZE = 10;
    /** How many recent runs a poll compares to find changes. */
    static final int POLL_RUNS = 50;
    /** Longest feed kept; older lines drop off. */
    static final int FEED_LIMIT = 500;

    private final ClusterClient cluster;
    private final Async async;
    private final Ticker ticker;
    private final Duration pollInterval;
    private final JobNames names;
    private final Times times;
    private final Navigator navigator;

    private final ReadOnlyLongWrapper waiting = new ReadOnlyLongWrapper(this, "waiting");
    private final ReadOnlyLongWrapper pending = new ReadOnlyLongWrapper(this, "pending");
    private final ReadOnlyLongWrapper running = new ReadOnlyLongWrapper(this, "running");
    private final ReadOnlyLongWrapper succeeded = new ReadOnlyLongWrapper(this, "succeeded");
    private final ReadOnlyLongWrapper dead = new ReadOnlyLongWrapper(this, "dead");
    private final ReadOnlyLongWrapper cancelled = new ReadOnlyLongWrapper(this, "cancelled");
    private final ObservableList<Node> nodes = FXCollections.observableArrayList();
    private final ReadOnlyStringWrapper leader = new ReadOnlyStringWrapper(this, "leader", "…");
    private final ObservableList<Run> attention = FXCollections.observableArrayList();
    private final ObservableList<FeedEntry> feed = FXCollections.observableArrayList();
    private final ReadOnlyObjectWrapper<LiveMode> mode = new ReadOnlyObjectWrapper<>(this, "mode", LiveMode.CONNECTING);
    private final ReadOnlyStringWrapper liveStatus = new ReadOnlyStringWrapper(this, "liveStatus", "Connecting…");
    private final ReadOnlyStringWrapper problem = new ReadOnlyStringWrapper(this, "problem", "");
    private final ReadOnlyStringWrapper updated = new ReadOnlyStringWrapper(this, "updated", "");
    private final ReadOnlyStringWrapper clusterNote = new ReadOnlyStringWrapper(this, "clusterNote", "");
    /** The tenant the token is bound to, once the server refused it a cluster view; null until then. */
    private String boundTenant;

    private Map<String, String> lastStatuses = Map.of();
    private boolean feedSeeded;
    private boolean resync;
    private boolean refreshing;
    private boolean started;
    private EventSubscription subscription;
    private Ticker.Cancellable polling;

    public OverviewViewModel(ClusterClient cluster, Async async, Ticker ticker, Duration pollInterval, JobNames names,
                             Times times, Navigator navigator) {
        this.cluster = Objects.requireNonNull(cluster, "cluster");
        this.async = Objects.requireNonNull(async, "async");
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        this.pollInterval = Objects.requireNonNull(pollInterval, "pollInterval");
        this.names = Objects.requireNonNull(names, "names");
        this.times = Objects.requireNonNull(times, "times");
        this.navigator = Objects.requireNonNull(navigator, "navigator");
    }

    /** Loads everything once, opens the event stream and starts polling. */
    public void start() {
        if (started) {
            return;
        }
        started = true;
        refresh();
        subscription = cluster.events(new Listener());
        polling = ticker.every(pollInterval, this::refresh);
    }

    /** Stops the event stream and the polling. */
    public void stop() {
        started = false;
        if (polling != null) {
            polling.close();
            polling = null;
        }
        if (subscription != null) {
            subscription.close();
            subscription = null;
        }
    }

    /** Reads stats, nodes, dead runs (and, unless events are live, recent runs), unless a refresh is still out. */
    public void refresh() {
        if (refreshing) {
            return;
        }
        refreshing = true;
        boolean wantRecent = mode.get() != LiveMode.LIVE || !feedSeeded;
        String knownBound = boundTenant;
        async.run(() -> {
            Stats stats = null;
            List<Node> live = List.of();
            String bound = knownBound;
            if (bound == null) {
                try {
                    stats = cluster.stats();
                    live = cluster.nodes();
                } catch (ForgeFlowApiException e) {
                    if (!Tenancy.isForbidden(e)) {
                        throw e;
                    }
                    bound = Tenancy.boundTenant(e) == null ? "(unnamed)" : Tenancy.boundTenant(e);
                }
            }
            return new Snapshot(stats, live, cluster.runs(null, Run.DEAD, null, ATTENTION_SIZE),
                    wantRecent || bound != null ? cluster.runs(null, null, null, POLL_RUNS) : null, bound);
        }, this::apply, failure -> {
            refreshing = false;
            problem.set(Problems.describe("refresh the overview", failure));
        });
    }

    private void apply(Snapshot s) {
        refreshing = false;
        problem.set("");
        if (s.bound != null) {
            boundTenant = s.bound;
            clusterNote.set(Tenancy.clusterViewsRefused(s.bound));
            nodes.clear();
            leader.set("unknown (cluster-wide)");
            if (mode.get() != LiveMode.POLLING) {
                mode.set(LiveMode.POLLING);
            }
            liveStatus.set(boundPolling());
        } else {
            Stats stats = s.stats;
            waiting.set(stats.waiting());
            pending.set(stats.pending());
            running.set(stats.running());
            succeeded.set(stats.succeeded());
            dead.set(stats.dead());
            cancelled.set(stats.cancelled());
            List<Node> sorted = new ArrayList<>(s.nodes);
            sorted.sort(Comparator.comparing((Node n) -> !n.leader()).thenComparing(Node::workerId,
                    Comparator.nullsLast(Comparator.naturalOrder())));
            Lists.replaceIfChanged(nodes, sorted);
            leader.set(sorted.stream().filter(Node::leader).map(Node::workerId).findFirst()
                    .orElse(sorted.isEmpty() ? "no live node" : "none (no node leads the scheduler)"));
        }
        Lists.replaceIfChanged(attention, s.dead.items());
        List<String> jobIds = new ArrayList<>();
        s.dead.items().forEach(r -> jobIds.add(r.jobId()));
        if (s.recent != null) {
            compare(s.recent.items());
            s.recent.items().forEach(r -> jobIds.add(r.jobId()));
        }
        names.resolve(jobIds);
        updated.set("Updated " + times.clockTime(times.now()));
    }

    /** Adds a feed line for each run whose status changed since the last poll (the first poll seeds the feed). */
    private void compare(List<Run> recent) {
        Map<String, String> now = new HashMap<>();
        List<Run> oldestFirst = new ArrayList<>(recent);
        java.util.Collections.reverse(oldestFirst);
        boolean silent = feedSeeded && resync;
        List<FeedEntry> found = new ArrayList<>();
        for (Run run : oldestFirst) {
            now.put(run.id(), run.status());
            String before = lastStatuses.get(run.id());
            if (!silent && (!feedSeeded || !Objects.equals(before, run.status()))) {
                found.add(new FeedEntry(latest(run), run.id(), run.jobId(), run.status(), before));
            }
        }
        if (!feedSeeded) {
            // the first look shows the latest activity in time order, not in list order
            found.sort(Comparator.comparing(FeedEntry::at, Comparator.nullsFirst(Comparator.naturalOrder())));
        }
        found.forEach(this::add);
        lastStatuses = now;
        feedSeeded = true;
        resync = false;
    }

    private static Instant latest(Run run) {
        if (run.finishedAt() != null) {
            return run.finishedAt();
        }
        return run.startedAt() != null ? run.startedAt() : run.scheduledFor();
    }

    private void add(FeedEntry entry) {
        feed.add(0, entry);
        if (feed.size() > FEED_LIMIT) {
            feed.remove(FEED_LIMIT, feed.size());
        }
    }

    private void onEvent(RunEvent event) {
        if (event.runId() == null && event.status() == null) {
            return; // not a run change (a heartbeat or an event kind this console does not know)
        }
        add(new FeedEntry(event.at() != null ? event.at() : times.now(), event.runId(), event.jobId(), event.status(),
                event.previousStatus()));
        if (event.jobId() != null) {
            names.resolve(List.of(event.jobId()));
        }
    }

    private void onStreamFailure(ForgeFlowException failure, boolean retrying) {
        if (retrying) {
            mode.set(LiveMode.RECONNECTING);
            liveStatus.set("Event stream interrupted; reconnecting. Meanwhile polling every " + seconds() + ".");
            return;
        }
        mode.set(LiveMode.POLLING);
        if (Tenancy.isForbidden(failure)) {
            if (boundTenant == null) {
                boundTenant = Tenancy.boundTenant(failure) == null ? "(unnamed)" : Tenancy.boundTenant(failure);
                clusterNote.set(Tenancy.clusterViewsRefused(boundTenant));
            }
            liveStatus.set(boundPolling());
        } else if (failure instanceof ForgeFlowApiException api && api.isNotFound()) {
            liveStatus.set("Polling every " + seconds() + " (this server has no event stream).");
        } else if (failure instanceof ForgeFlowApiException api && api.isAuthenticationFailure()) {
            liveStatus.set("Polling every " + seconds() + " (the event stream refused the token: HTTP "
                    + api.status() + ").");
        } else {
            liveStatus.set("Polling every " + seconds() + " (event stream unavailable: " + failure.getMessage() + ").");
        }
    }

    private String boundPolling() {
        return "Polling every " + seconds() + " (the event stream is cluster-wide; this token is bound to tenant "
                + boundTenant + ").";
    }

    private String seconds() {
        long ms = pollInterval.toMillis();
        return ms % 1000 == 0 ? ms / 1000 + " s" : ms + " ms";
    }

    /** Opens a run that needs attention in the Runs screen, with its error. */
    public void open(Run run) {
        if (run != null) {
            navigator.showRun(run.id());
        }
    }

    /** Opens the run of a feed line. */
    public void open(FeedEntry entry) {
        if (entry != null && entry.runId() != null) {
            navigator.showRun(entry.runId());
        }
    }

    public void openDeadLetters() {
        navigator.showDeadLetters();
    }

    /** {@code 11:30:05  nightly-report  run_9  running → dead}. */
    public String describe(FeedEntry e) {
        String change = e.previousStatus() == null ? nullToDash(e.status())
                : e.previousStatus() + " → " + nullToDash(e.status());
        return times.clockTime(e.at()) + "  " + names.nameOf(e.jobId()) + "  " + nullToDash(e.runId()) + "  " + change;
    }

    /** {@code exit code 1 (first line of the error)}. */
    public String errorSummary(Run run) {
        String line = Times.firstLine(run.error(), 140);
        return line.isEmpty() ? "(no error recorded)" : line;
    }

    public String finishedText(Run run) {
        return times.local(run.finishedAt() != null ? run.finishedAt() : run.scheduledFor());
    }

    public String lastSeenText(Node node) {
        return times.ago(node.lastSeenAt());
    }

    /** How the node contains its shell jobs and as which OS user they run: "pid-namespace, as nobody". */
    public static String jobsRunText(Node node) {
        if (node.containment() == null) {
            return "";
        }
        return node.jobUser() == null ? node.containment() : node.containment() + ", as " + node.jobUser();
    }

    public String jobName(String jobId) {
        return names.nameOf(jobId);
    }

    /** Job names as they arrive, so views can redraw rows that showed an id. */
    public javafx.collections.ObservableMap<String, String> names() {
        return names.names();
    }

    private static String nullToDash(String s) {
        return s == null ? Times.NONE : s;
    }

    /** Runs waiting for their job's parents. */
    public ReadOnlyLongProperty waitingProperty() {
        return waiting.getReadOnlyProperty();
    }

    public ReadOnlyLongProperty pendingProperty() {
        return pending.getReadOnlyProperty();
    }

    public ReadOnlyLongProperty runningProperty() {
        return running.getReadOnlyProperty();
    }

    public ReadOnlyLongProperty succeededProperty() {
        return succeeded.getReadOnlyProperty();
    }

    public ReadOnlyLongProperty deadProperty() {
        return dead.getReadOnlyProperty();
    }

    public ReadOnlyLongProperty cancelledProperty() {
        return cancelled.getReadOnlyProperty();
    }

    /** Live nodes, the scheduler leader first. */
    public ObservableList<Node> nodes() {
        return nodes;
    }

    /** The worker id of the scheduler leader, or why there is none. */
    public ReadOnlyStringProperty leaderProperty() {
        return leader.getReadOnlyProperty();
    }

    /** The latest dead runs, newest first: what an operator looks at first. */
    public ObservableList<Run> attention() {
        return attention;
    }

    /** Run changes, newest first. */
    public ObservableList<FeedEntry> feed() {
        return feed;
    }

    public ReadOnlyObjectProperty<LiveMode> modeProperty() {
        return mode.getReadOnlyProperty();
    }

    /** One sentence on how the feed is fed. */
    public ReadOnlyStringProperty liveStatusProperty() {
        return liveStatus.getReadOnlyProperty();
    }

    /** Empty while the last refresh worked; otherwise what failed (it is retried every interval). */
    public ReadOnlyStringProperty problemProperty() {
        return problem.getReadOnlyProperty();
    }

    /**
     * Empty for a cluster-wide token; for a tenant-bound one, why the counts, nodes and event stream are not shown
     * ("This token is bound to tenant acme; cluster views need a cluster-wide token.").
     */
    public ReadOnlyStringProperty clusterNoteProperty() {
        return clusterNote.getReadOnlyProperty();
    }

    /** {@code Updated 11:30:05}. */
    public ReadOnlyStringProperty updatedProperty() {
        return updated.getReadOnlyProperty();
    }

    /** One refresh; bound names the token's tenant when the cluster views were refused (stats null then). */
    private record Snapshot(Stats stats, List<Node> nodes, Page<Run> dead, Page<Run> recent, String bound) {
    }

    /** Stream callbacks arrive on the stream's thread and are handed to the UI thread. */
    private final class Listener implements RunEventListener {
        @Override
        public void onEvent(RunEvent event) {
            async.ui().execute(() -> OverviewViewModel.this.onEvent(event));
        }

        @Override
        public void onOpen() {
            async.ui().execute(() -> {
                // the stream now reports changes; the next poll (if the stream drops) only re-learns the baseline
                resync = true;
                mode.set(LiveMode.LIVE);
                liveStatus.set("Live: events arrive as runs change.");
            });
        }

        @Override
        public void onFailure(ForgeFlowException failure, boolean retrying) {
            async.ui().execute(() -> onStreamFailure(failure, retrying));
        }
    }
}
