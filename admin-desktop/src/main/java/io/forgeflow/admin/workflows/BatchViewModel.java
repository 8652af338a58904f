package io.forgeflow.admin.workflows;

import io.forgeflow.admin.cluster.BatchProgress;
import io.forgeflow.admin.cluster.ClusterClient;
import io.forgeflow.admin.cluster.JobNames;
import io.forgeflow.admin.support.Async;
import io.forgeflow.admin.support.Lists;
import io.forgeflow.admin.support.Navigator;
import io.forgeflow.admin.support.Problems;
import io.forgeflow.admin.support.Times;
import io.forgeflow.client.ForgeFlowApiException;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyDoubleProperty;
import javafx.beans.property.ReadOnlyDoubleWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The Batches screen: one batch's progress ({@code GET /api/batches/{id}}), its jobs by the status of their latest
 * run as segments of a bar, open or completed, and its on-complete job as a link. Opened from a job's batch link or
 * by entering an id; an open batch reloads while it shows.
 */
public final class BatchViewModel {
    /** The bar's segments, in this order: ended first, then what is still to come. */
    public static final List<String> SEGMENT_ORDER = List.of("succeeded", "dead", "cancelled", "running", "pending",
            "waiting");
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9._:-]{1,100}");

    /** A part of the bar: the jobs whose latest run is in status, and their share of the batch. */
    public record Segment(String status, long count, double fraction) {
    }

    private final ClusterClient cluster;
    private final Async async;
    private final Times times;
    private final Navigator navigator;
    private final JobNames names;

    private final StringProperty batchId = new SimpleStringProperty(this, "batchId", "");
    private final ReadOnlyStringWrapper inputError = new ReadOnlyStringWrapper(this, "inputError", "");
    private final ReadOnlyObjectWrapper<BatchProgress> batch = new ReadOnlyObjectWrapper<>(this, "batch");
    private final ObservableList<Segment> segments = FXCollections.observableArrayList();
    private final ReadOnlyDoubleWrapper progress = new ReadOnlyDoubleWrapper(this, "progress");
    private final ReadOnlyStringWrapper title = new ReadOnlyStringWrapper(this, "title", "No batch open");
    private final ReadOnlyStringWrapper status = new ReadOnlyStringWrapper(this, "status", "");
    private final ReadOnlyStringWrapper summary = new ReadOnlyStringWrapper(this, "summary", "");
    private final ReadOnlyStringWrapper counts = new ReadOnlyStringWrapper(this, "counts", "");
    private final ReadOnlyStringWrapper onCompleteJobId = new ReadOnlyStringWrapper(this, "onCompleteJobId", "");
    private final ReadOnlyStringWrapper onCompleteLabel = new ReadOnlyStringWrapper(this, "onCompleteLabel", "");
    private final ReadOnlyBooleanWrapper loading = new ReadOnlyBooleanWrapper(this, "loading");
    private final ReadOnlyStringWrapper message = new ReadOnlyStringWrapper(this, "message", "");
    private final ReadOnlyBooleanWrapper failed = new ReadOnlyBooleanWrapper(this, "failed");
    private long generation;

    public BatchViewModel(ClusterClient cluster, Async async, JobNames names, Times times, Navigator navigator) {
        this.names = Objects.requireNonNull(names, "names");
        this.cluster = Objects.requireNonNull(cluster, "cluster");
        this.async = Objects.requireNonNull(async, "async");
        this.times = Objects.requireNonNull(times, "times");
        this.navigator = Objects.requireNonNull(navigator, "navigator");
        batchId.addListener((o, a, b) -> inputError.set(""));
        names.names().addListener((javafx.collections.MapChangeListener<String, String>) c -> label());
    }

    /** Shows the batch with this id (from a job's batch link). */
    public void show(String id) {
        batchId.set(id == null ? "" : id);
        open();
    }

    /** Loads the batch whose id was entered; a malformed id is explained and nothing is sent. */
    public void open() {
        String id = batchId.get() == null ? "" : batchId.get().strip();
        if (id.isEmpty()) {
            inputError.set("Enter a batch id: a job made by a batch links to it, and POST /api/batches answers it.");
            return;
        }
        if (!ID.matcher(id).matches()) {
            inputError.set("Not a batch id: use the id as the server gives it (letters, digits and '-', at most "
                    + "100 characters, e.g. 0190f3c2-6f1e-7a3b-9c4d-2e5f6a7b8c9d).");
            return;
        }
        inputError.set("");
        if (batch.get() == null || !batch.get().id().equals(id)) {
            batch.set(null);
            segments.clear();
            progress.set(0);
            title.set("Batch " + id);
            status.set("");
            summary.set("");
            counts.set("");
            onCompleteJobId.set("");
            onCompleteLabel.set("");
        }
        load(id, true);
    }

    /** Reloads the shown batch while it is open (its jobs end one by one). */
    public void poll() {
        BatchProgress b = batch.get();
        if (b != null && !b.completed() && !loading.get()) {
            load(b.id(), false);
        }
    }

    private void load(String id, boolean loud) {
        long mine = ++generation;
        loading.set(true);
        async.run(() -> cluster.batch(id), b -> {
            if (mine != generation) {
                return;
            }
            loading.set(false);
            show(b);
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
                        ? "No batch " + id + " on this server: check the id."
                        : Problems.describe("load batch " + id, failure));
            }
        });
    }

    private void show(BatchProgress b) {
        batch.set(b);
        long[] n = {b.succeeded(), b.dead(), b.cancelled(), b.running(), b.pending(), b.waiting()};
        List<Segment> parts = new ArrayList<>();
        for (int i = 0; i < n.length; i++) {
            if (n[i] > 0) {
                parts.add(new Segment(SEGMENT_ORDER.get(i), n[i], b.total() == 0 ? 0 : (double) n[i] / b.total()));
            }
        }
        Lists.replaceIfChanged(segments, parts);
        progress.set(b.total() == 0 ? (b.completed() ? 1 : 0) : (double) b.ended() / b.total());
        title.set("Batch " + (b.name() == null || b.name().isBlank() ? b.id() : b.name() + " (" + b.id() + ")"));
        status.set(b.status() == null ? "" : b.status());
        summary.set(b.ended() + " of " + b.total() + (b.total() == 1 ? " job" : " jobs") + " ended"
                + (b.completed() ? ", completed " + times.local(b.completedAt()) : "") + "; created "
                + times.local(b.createdAt()) + ".");
        counts.set("succeeded " + b.succeeded() + " · dead " + b.dead() + " · cancelled " + b.cancelled()
                + " · running " + b.running() + " · pending " + b.pending() + " · waiting " + b.waiting()
                + " · total " + b.total());
        onCompleteJobId.set(b.onCompleteJobId() == null ? "" : b.onCompleteJobId());
        if (b.onCompleteJobId() != null) {
            names.resolve(List.of(b.onCompleteJobId()));
        }
        label();
    }

    private void label() {
        String id = onCompleteJobId.get();
        String name = names.nameOf(id);
        onCompleteLabel.set(id.isEmpty() ? "" : name.equals(id) ? id : name + " (" + id + ")");
    }

    /** Opens the batch's on-complete job in the Jobs screen. */
    public void openOnCompleteJob() {
        if (!onCompleteJobId.get().isEmpty()) {
            navigator.showJob(onCompleteJobId.get());
        }
    }

    // ---------------------------------------------------------------- state for the view

    /** The id field. */
    public StringProperty batchIdProperty() {
        return batchId;
    }

    /** What is wrong with the entered id; empty when nothing. */
    public ReadOnlyStringProperty inputErrorProperty() {
        return inputError.getReadOnlyProperty();
    }

    public ReadOnlyObjectProperty<BatchProgress> batchProperty() {
        return batch.getReadOnlyProperty();
    }

    /** The bar's non-empty segments, in {@link #SEGMENT_ORDER}. */
    public ObservableList<Segment> segments() {
        return segments;
    }

    /** Jobs ended (succeeded, dead or cancelled) of the total, 0 to 1. */
    public ReadOnlyDoubleProperty progressProperty() {
        return progress.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty titleProperty() {
        return title.getReadOnlyProperty();
    }

    /** {@code open} or {@code completed}; empty while none is shown. */
    public ReadOnlyStringProperty statusProperty() {
        return status.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty summaryProperty() {
        return summary.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty countsProperty() {
        return counts.getReadOnlyProperty();
    }

    /** The on-complete job's id, empty when the batch has none. */
    public ReadOnlyStringProperty onCompleteJobIdProperty() {
        return onCompleteJobId.getReadOnlyProperty();
    }

    /** The on-complete job's name and id once its name is known, else its id; empty when none. */
    public ReadOnlyStringProperty onCompleteLabelProperty() {
        return onCompleteLabel.getReadOnlyProperty();
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
