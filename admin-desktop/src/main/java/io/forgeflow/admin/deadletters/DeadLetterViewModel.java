package io.forgeflow.admin.deadletters;

import io.forgeflow.admin.cluster.ClusterClient;
import io.forgeflow.admin.cluster.JobNames;
import io.forgeflow.admin.support.Async;
import io.forgeflow.admin.support.Lists;
import io.forgeflow.admin.support.Navigator;
import io.forgeflow.admin.support.Problems;
import io.forgeflow.admin.support.Times;
import io.forgeflow.client.ForgeFlowException;
import io.forgeflow.client.Page;
import io.forgeflow.client.Run;
import javafx.beans.binding.Bindings;
import javafx.beans.binding.BooleanBinding;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The dead letters: runs whose attempts are used up, newest first, with their last error. The operator selects one or
 * many and requeues them; each goes back to pending with a fresh attempt budget. Requeues are sent one by one and
 * the outcome says which failed and why (a run requeued meanwhile by someone else answers 409).
 */
public final class DeadLetterViewModel {
    static final int PAGE_SIZE = 200;

    private final ClusterClient cluster;
    private final Async async;
    private final JobNames names;
    private final Times times;
    private final Navigator navigator;

    private final ObservableList<Run> dead = FXCollections.observableArrayList();
    private final ObservableList<Run> selection = FXCollections.observableArrayList();
    private final ReadOnlyBooleanWrapper loading = new ReadOnlyBooleanWrapper(this, "loading");
    private final ReadOnlyBooleanWrapper requeueing = new ReadOnlyBooleanWrapper(this, "requeueing");
    private final ReadOnlyBooleanWrapper hasMore = new ReadOnlyBooleanWrapper(this, "hasMore");
    private final ReadOnlyStringWrapper count = new ReadOnlyStringWrapper(this, "count", "");
    private final ReadOnlyStringWrapper message = new ReadOnlyStringWrapper(this, "message", "");
    private final ReadOnlyBooleanWrapper failed = new ReadOnlyBooleanWrapper(this, "failed");
    private final BooleanBinding canRequeue;
    private final BooleanBinding canOpen;
    private String nextCursor;
    private long generation;

    public DeadLetterViewModel(ClusterClient cluster, Async async, JobNames names, Times times, Navigator navigator) {
        this.cluster = Objects.requireNonNull(cluster, "cluster");
        this.async = Objects.requireNonNull(async, "async");
        this.names = Objects.requireNonNull(names, "names");
        this.times = Objects.requireNonNull(times, "times");
        this.navigator = Objects.requireNonNull(navigator, "navigator");
        canRequeue = Bindings.createBooleanBinding(() -> !requeueing.get() && !selection.isEmpty(), requeueing,
                selection);
        canOpen = Bindings.createBooleanBinding(() -> selection.size() == 1, selection);
    }

    public void refresh() {
        long mine = ++generation;
        loading.set(true);
        async.run(() -> cluster.runs(null, Run.DEAD, null, PAGE_SIZE), page -> {
            if (mine == generation) {
                loading.set(false);
                Lists.replaceIfChanged(dead, page.items());
                accept(page);
            }
        }, failure -> {
            if (mine == generation) {
                loading.set(false);
                report(Problems.describe("load the dead letters", failure));
            }
        });
    }

    public void loadMore() {
        if (nextCursor == null || loading.get()) {
            return;
        }
        long mine = generation;
        String cursor = nextCursor;
        loading.set(true);
        async.run(() -> cluster.runs(null, Run.DEAD, cursor, PAGE_SIZE), page -> {
            if (mine == generation) {
                loading.set(false);
                dead.addAll(page.items());
                accept(page);
            }
        }, failure -> {
            if (mine == generation) {
                loading.set(false);
                report(Problems.describe("load more dead letters", failure));
            }
        });
    }

    private void accept(Page<Run> page) {
        nextCursor = page.hasMore() ? page.nextCursor() : null;
        hasMore.set(nextCursor != null);
        names.resolve(page.items().stream().map(Run::jobId).toList());
        updateCount();
    }

    private void updateCount() {
        count.set(dead.size() + (dead.size() == 1 ? " dead run" : " dead runs") + (hasMore.get() ? " loaded; more on "
                + "the server" : ""));
    }

    /** Requeues the selected runs. */
    public void requeueSelected() {
        requeue(new ArrayList<>(selection));
    }

    /** Requeues these runs, one request each; the requeued ones leave the list. */
    public void requeue(List<Run> runs) {
        if (runs.isEmpty() || requeueing.get()) {
            return;
        }
        requeueing.set(true);
        message.set("Requeueing " + runs.size() + (runs.size() == 1 ? " run…" : " runs…"));
        failed.set(false);
        async.run(() -> {
            List<String> done = new ArrayList<>();
            List<String> problems = new ArrayList<>();
            for (Run run : runs) {
                try {
                    done.add(cluster.requeue(run.id()).id());
                } catch (ForgeFlowException e) {
                    problems.add(run.id() + ": " + Problems.describe("requeue", e).replaceFirst("^Could not requeue: ",
                            ""));
                }
            }
            return new Outcome(runs.size(), done, problems);
        }, outcome -> {
            requeueing.set(false);
            dead.removeIf(r -> outcome.done.contains(r.id()));
            updateCount();
            if (outcome.problems.isEmpty()) {
                failed.set(false);
                message.set("Requeued " + describe(outcome.done.size()) + ": pending again with a fresh attempt "
                        + "budget.");
            } else {
                failed.set(true);
                message.set("Requeued " + outcome.done.size() + " of " + describe(outcome.asked) + ". "
                        + String.join("; ", outcome.problems));
            }
        }, failure -> {
            requeueing.set(false);
            report(Problems.describe("requeue", failure));
        });
    }

    private static String describe(int n) {
        return n + (n == 1 ? " run" : " runs");
    }

    /** Opens the selected run's detail (its error and attempts) in the Runs screen. */
    public void openSelected() {
        if (selection.size() == 1) {
            navigator.showRun(selection.get(0).id());
        }
    }

    private void report(String text) {
        failed.set(true);
        message.set(text);
    }

    // ---------------------------------------------------------------- how a dead run reads in the table

    public String jobName(String jobId) {
        return names.nameOf(jobId);
    }

    /** Job names as they arrive, so views can redraw rows that showed an id. */
    public javafx.collections.ObservableMap<String, String> names() {
        return names.names();
    }

    public String errorOf(Run run) {
        String line = Times.firstLine(run.error(), 160);
        return line.isEmpty() ? "(no error recorded)" : line;
    }

    public String finishedOf(Run run) {
        return times.local(run.finishedAt());
    }

    // ---------------------------------------------------------------- state for the view

    public ObservableList<Run> dead() {
        return dead;
    }

    /** The runs the operator selected; the view keeps it in step with the table. */
    public ObservableList<Run> selection() {
        return selection;
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

    public ReadOnlyBooleanProperty failedProperty() {
        return failed.getReadOnlyProperty();
    }

    public BooleanBinding canRequeueProperty() {
        return canRequeue;
    }

    public BooleanBinding canOpenProperty() {
        return canOpen;
    }

    private record Outcome(int asked, List<String> done, List<String> problems) {
    }
}
