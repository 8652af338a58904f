package io.forgeflow.admin.jobs;

import io.forgeflow.admin.cluster.ClusterClient;
import io.forgeflow.admin.support.Async;
import io.forgeflow.admin.support.Problems;
import io.forgeflow.client.Backfill;
import io.forgeflow.client.ForgeFlowApiException;
import io.forgeflow.client.Job;
import javafx.beans.binding.Bindings;
import javafx.beans.binding.BooleanBinding;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.ZoneId;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Backfill of the selected recurring job ({@code POST /api/jobs/{id}/backfill}): one run per tick from {@code from} to
 * {@code to}, both included, none for a tick that has one. Times are RFC 3339 or {@code 2026-07-01 09:30} in the job's
 * time zone. The answer is shown as "6 ticks, 6 runs created, 0 already had one"; a 422 on its field. Afterwards
 * {@link #poll()} (the Jobs screen's poll) reads the backfill again ({@code GET /api/jobs/{id}/backfill/{bid}}) until
 * it is done, showing its runs by status ("2 succeeded, 1 running, 3 pending"; "done: 5 succeeded, 1 dead").
 */
public final class BackfillViewModel {
    /** The backfill's fields, each with its own error text. */
    public enum Field { FROM, TO, OVERLAP }

    /** {@code overlap} choices the server accepts for a backfill (allow is its default). */
    public static final List<String> OVERLAP_CHOICES = List.of("allow", "skip", "queue_one");

    private final ClusterClient cluster;
    private final Async async;
    private final ReadOnlyObjectWrapper<Job> job = new ReadOnlyObjectWrapper<>(this, "job");
    private final StringProperty from = new SimpleStringProperty(this, "from", "");
    private final StringProperty to = new SimpleStringProperty(this, "to", "");
    private final StringProperty overlap = new SimpleStringProperty(this, "overlap", "allow");
    private final Map<Field, ReadOnlyStringWrapper> errors = new EnumMap<>(Field.class);
    private final ReadOnlyBooleanWrapper running = new ReadOnlyBooleanWrapper(this, "running");
    private final ReadOnlyStringWrapper message = new ReadOnlyStringWrapper(this, "message", "");
    private final ReadOnlyBooleanWrapper failed = new ReadOnlyBooleanWrapper(this, "failed");
    private final ReadOnlyObjectWrapper<Backfill> result = new ReadOnlyObjectWrapper<>(this, "result");
    private final javafx.beans.property.ReadOnlyDoubleWrapper progress =
            new javafx.beans.property.ReadOnlyDoubleWrapper(this, "progress", 0);
    private boolean following;
    private final BooleanBinding canBackfill;

    public BackfillViewModel(ClusterClient cluster, Async async) {
        this.cluster = Objects.requireNonNull(cluster, "cluster");
        this.async = Objects.requireNonNull(async, "async");
        for (Field f : Field.values()) {
            errors.put(f, new ReadOnlyStringWrapper(this, "error" + f, ""));
        }
        from.addListener((o, a, b) -> errors.get(Field.FROM).set(""));
        to.addListener((o, a, b) -> errors.get(Field.TO).set(""));
        overlap.addListener((o, a, b) -> errors.get(Field.OVERLAP).set(""));
        canBackfill = Bindings.createBooleanBinding(() -> !running.get() && job.get() != null
                && job.get().cronExpr() != null && List.of(Job.ACTIVE, Job.PAUSED).contains(job.get().status()),
                job, running);
    }

    /** The job a backfill is for (the selected one); another job clears the errors and the last answer. */
    public void setJob(Job selected) {
        Job was = job.get();
        job.set(selected);
        if (selected == null || was == null || !was.id().equals(selected.id())) {
            errors.values().forEach(e -> e.set(""));
            result.set(null);
            progress.set(0);
            message.set("");
            failed.set(false);
        }
    }

    /** Checks the range and asks the server for the backfill. */
    public void backfill() {
        Job target = job.get();
        if (target == null || !canBackfill.get()) {
            return;
        }
        errors.values().forEach(e -> e.set(""));
        ZoneId zone = zoneOf(target);
        Instant start = time(Field.FROM, from.get(), zone);
        Instant end = time(Field.TO, to.get(), zone);
        if (start != null && end != null && end.isBefore(start)) {
            errors.get(Field.TO).set("Must not be before from.");
            end = null;
        }
        String policy = overlap.get() == null ? "allow" : overlap.get().strip();
        if (!OVERLAP_CHOICES.contains(policy)) {
            errors.get(Field.OVERLAP).set("allow, skip or queue_one.");
            policy = null;
        }
        if (start == null || end == null || policy == null) {
            report("Fix the fields marked in red, then backfill again.");
            return;
        }
        Instant a = start;
        Instant b = end;
        String p = policy;
        running.set(true);
        failed.set(false);
        message.set("Backfilling " + target.name() + "…");
        async.run(() -> cluster.backfill(target.id(), a, b, p), (Backfill done) -> {
            running.set(false);
            result.set(done);
            progress.set(finishedShare(done));
            failed.set(false);
            message.set("Backfill of " + target.name() + ": " + summary(done) + ".");
        }, failure -> {
            running.set(false);
            if (failure instanceof ForgeFlowApiException api && api.field() != null && fieldOf(api.field()) != null) {
                errors.get(fieldOf(api.field())).set(api.error());
                report("The server refused the backfill: " + api.error());
            } else if (failure instanceof ForgeFlowApiException api) {
                report("The server refused the backfill: " + api.error() + " (HTTP " + api.status() + ")");
            } else {
                report(Problems.describe("backfill " + target.name(), failure));
            }
        });
    }

    /**
     * Reads the last backfill again, unless it is done, another read is out or a backfill is being asked for; the
     * answer replaces it and the message says how its runs stand. A failed read is tried at the next poll; a backfill
     * retention removed (404) is no longer followed.
     */
    public void poll() {
        Backfill last = result.get();
        Job target = job.get();
        if (last == null || last.done() || following || running.get() || target == null) {
            return;
        }
        following = true;
        async.run(() -> cluster.backfillProgress(last.jobId(), last.id()), (Backfill now) -> {
            following = false;
            if (result.get() == null || !result.get().id().equals(now.id())) {
                return; // another job or backfill since
            }
            result.set(now);
            progress.set(finishedShare(now));
            message.set("Backfill of " + target.name() + ": " + summary(now) + "; " + runsText(now) + ".");
        }, failure -> {
            following = false;
            if (failure instanceof ForgeFlowApiException api && api.isNotFound() && result.get() == last) {
                result.set(new Backfill(last.id(), last.jobId(), last.from(), last.to(), last.overlap(), last.ticks(),
                        last.created(), last.skipped(), last.createdAt(), true, last.runs()));
                message.set(message.get() + " Its progress is no longer kept (retention).");
            }
        });
    }

    /** Runs by status, those still to come first: {@code 2 succeeded, 1 running, 3 pending}; {@code done: ...}. */
    static String runsText(Backfill b) {
        List<String> parts = new java.util.ArrayList<>();
        for (String status : List.of("pending", "waiting", "running", "succeeded", "dead", "cancelled")) {
            long n = b.runs().getOrDefault(status, 0L);
            if (n > 0) {
                parts.add(n + " " + status);
            }
        }
        String runs = parts.isEmpty() ? "no runs left" : String.join(", ", parts);
        return b.done() ? "done: " + runs : runs;
    }

    /** The share of its runs that have ended (1 once done). */
    static double finishedShare(Backfill b) {
        if (b.done()) {
            return 1;
        }
        long all = b.runs().values().stream().mapToLong(Long::longValue).sum();
        long ended = List.of("succeeded", "dead", "cancelled").stream().mapToLong(s -> b.runs().getOrDefault(s, 0L))
                .sum();
        return all == 0 ? 0 : (double) ended / all;
    }

    /** {@code 6 ticks, 6 runs created, 0 already had one}. */
    static String summary(Backfill b) {
        return b.ticks() + (b.ticks() == 1 ? " tick, " : " ticks, ") + b.created()
                + (b.created() == 1 ? " run created, " : " runs created, ") + b.skipped() + " already had one";
    }

    private Instant time(Field field, String text, ZoneId zone) {
        String t = text == null ? "" : text.strip();
        if (t.isEmpty()) {
            errors.get(field).set("Required: an RFC 3339 time such as 2026-07-01T00:00:00Z, or 2026-07-01 00:00 in "
                    + zone.getId() + ".");
            return null;
        }
        Instant at = JobFormViewModel.parseRunAt(t, zone);
        if (at == null) {
            errors.get(field).set("Write the time as 2026-07-01T00:00:00Z or 2026-07-01 00:00 (in " + zone.getId()
                    + ").");
        }
        return at;
    }

    private static ZoneId zoneOf(Job job) {
        try {
            return ZoneId.of(job.timezone() == null || job.timezone().isBlank() ? "UTC" : job.timezone());
        } catch (DateTimeException e) {
            return ZoneId.of("UTC");
        }
    }

    private static Field fieldOf(String apiField) {
        return switch (apiField) {
            case "from" -> Field.FROM;
            case "to" -> Field.TO;
            case "overlap" -> Field.OVERLAP;
            default -> null;
        };
    }

    private void report(String text) {
        failed.set(true);
        message.set(text);
    }

    public ReadOnlyObjectProperty<Job> jobProperty() {
        return job.getReadOnlyProperty();
    }

    /** RFC 3339, or {@code 2026-07-01 09:30} in the job's time zone. */
    public StringProperty fromProperty() {
        return from;
    }

    public StringProperty toProperty() {
        return to;
    }

    /** One of {@link #OVERLAP_CHOICES}. */
    public StringProperty overlapProperty() {
        return overlap;
    }

    /** The problem to show beside a field; empty when none. */
    public ReadOnlyStringProperty errorProperty(Field field) {
        return errors.get(field).getReadOnlyProperty();
    }

    /** A recurring job (active or paused) is selected and no backfill is under way. */
    public BooleanBinding canBackfillProperty() {
        return canBackfill;
    }

    public ReadOnlyBooleanProperty runningProperty() {
        return running.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty messageProperty() {
        return message.getReadOnlyProperty();
    }

    public ReadOnlyBooleanProperty failedProperty() {
        return failed.getReadOnlyProperty();
    }

    /** The share of the last backfill's runs that have ended, 0 to 1 (1 once done). */
    public javafx.beans.property.ReadOnlyDoubleProperty progressProperty() {
        return progress.getReadOnlyProperty();
    }

    /** The server's last answer; null before one, or after another job was selected. */
    public ReadOnlyObjectProperty<Backfill> resultProperty() {
        return result.getReadOnlyProperty();
    }
}
