package io.forgeflow.admin.queues;

import io.forgeflow.admin.cluster.ClusterClient;
import io.forgeflow.admin.cluster.Tenancy;
import io.forgeflow.admin.support.Async;
import io.forgeflow.admin.support.Confirmation;
import io.forgeflow.admin.support.LimitInput;
import io.forgeflow.admin.support.Lists;
import io.forgeflow.admin.support.Problems;
import io.forgeflow.client.ForgeFlowApiException;
import io.forgeflow.client.Queue;
import io.forgeflow.client.QueueUpdate;
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

import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.Callable;

/**
 * The queues (API.md "Queues"): each one's pause switch, cluster-wide limits and load, pause and resume of the selected
 * one (pausing asks first), and a form for its limits that sends only what changed ({@code PUT /api/queues/{name}}: the
 * others keep their value); an emptied field clears that limit. A queue is a tenant's: every call acts on the row's
 * tenant's queue, and the list from a cluster-wide connection without a tenant holds every tenant's. A refused value
 * is the server's message next to the field it names, and nothing changes.
 */
public final class QueueListViewModel {
    /** The fields of the form, by the names the server's errors use ({@code rate_limit.count} is RATE_LIMIT's). */
    public enum Field {
        MAX_RUNNING("max_running"), RATE_LIMIT("rate_limit");

        private final String wire;

        Field(String wire) {
            this.wire = wire;
        }

        /** The form field a server error's {@code field} names, or null for none of them. */
        static Field of(String field) {
            String root = LimitInput.root(field);
            for (Field f : values()) {
                if (f.wire.equals(root)) {
                    return f;
                }
            }
            return null;
        }
    }

    private final ClusterClient cluster;
    private final Async async;

    private final ObservableList<Queue> queues = FXCollections.observableArrayList();
    private final ObjectProperty<Queue> selected = new SimpleObjectProperty<>(this, "selected");
    private final StringProperty maxRunning = new SimpleStringProperty(this, "maxRunning", "");
    private final StringProperty rateCount = new SimpleStringProperty(this, "rateCount", "");
    private final StringProperty ratePerSeconds = new SimpleStringProperty(this, "ratePerSeconds", "");
    private final ReadOnlyStringWrapper editing = new ReadOnlyStringWrapper(this, "editing", "");
    private final ReadOnlyBooleanWrapper loading = new ReadOnlyBooleanWrapper(this, "loading");
    private final ReadOnlyBooleanWrapper acting = new ReadOnlyBooleanWrapper(this, "acting");
    private final ReadOnlyStringWrapper count = new ReadOnlyStringWrapper(this, "count", "");
    private final ReadOnlyStringWrapper message = new ReadOnlyStringWrapper(this, "message", "");
    private final ReadOnlyBooleanWrapper failed = new ReadOnlyBooleanWrapper(this, "failed");
    private final ObjectProperty<Field> errorField = new SimpleObjectProperty<>(this, "errorField");
    private final ReadOnlyObjectWrapper<Confirmation> confirmation = new ReadOnlyObjectWrapper<>(this, "confirmation");
    private final BooleanBinding tenantColumnVisible;
    private final BooleanBinding canSave;
    private final BooleanBinding canPause;
    private final BooleanBinding canResume;
    private long generation;
    /** The queue as it was when the form was filled: saving sends what the operator changed from it. */
    private Queue filled;

    public QueueListViewModel(ClusterClient cluster, Async async) {
        this.cluster = Objects.requireNonNull(cluster, "cluster");
        this.async = Objects.requireNonNull(async, "async");
        // shown only while a row is outside the default tenant: one tenant looks as it always did
        tenantColumnVisible = Bindings.createBooleanBinding(
                () -> queues.stream().anyMatch(q -> Tenancy.outsideDefault(q.tenant())), queues);
        canSave = Bindings.createBooleanBinding(() -> !editing.get().isEmpty() && !acting.get(), editing, acting);
        canPause = Bindings.createBooleanBinding(() -> selected.get() != null && !selected.get().paused()
                && !acting.get(), selected, acting);
        canResume = Bindings.createBooleanBinding(() -> selected.get() != null && selected.get().paused()
                && !acting.get(), selected, acting);
        selected.addListener((o, was, now) -> {
            if (now != null && (was == null || !keyOf(was).equals(keyOf(now)) || editing.get().isEmpty())) {
                edit(now);
            }
        });
    }

    /** Reads the queues again; the selection and the form stay on the queue they show. */
    public void refresh() {
        long mine = ++generation;
        loading.set(true);
        async.run(cluster::queues, list -> {
            if (mine != generation) {
                return;
            }
            loading.set(false);
            String shown = selected.get() == null ? null : keyOf(selected.get());
            Lists.replaceIfChanged(queues, list);
            if (shown != null) {
                // the same queue, read again: the form keeps what the operator typed
                list.stream().filter(q -> keyOf(q).equals(shown)).findFirst().ifPresent(selected::set);
            }
            updateCount();
        }, failure -> {
            if (mine != generation) {
                return;
            }
            loading.set(false);
            report(Problems.describe("load the queues", failure), null);
        });
    }

    /** Keeps the list fresh unless the operator is acting or answering a confirmation; the form is left alone. */
    public void poll() {
        if (!loading.get() && !acting.get() && confirmation.get() == null) {
            refresh();
        }
    }

    /** Fills the form with the queue as read. */
    public void edit(Queue queue) {
        Objects.requireNonNull(queue, "queue");
        filled = queue;
        editing.set(describe(queue));
        maxRunning.set(queue.maxRunning() == null ? "" : String.valueOf(queue.maxRunning()));
        rateCount.set(queue.rateLimit() == null ? "" : String.valueOf(queue.rateLimit().count()));
        ratePerSeconds.set(queue.rateLimit() == null ? "" : String.valueOf(queue.rateLimit().perSeconds()));
        errorField.set(null);
        message.set("");
        failed.set(false);
    }

    /** Asks first: while paused, no run of the queue starts on any node. */
    public void pauseSelected() {
        Queue queue = selected.get();
        if (queue == null || acting.get()) {
            return;
        }
        confirmation.set(new Confirmation("Pause queue " + describe(queue) + "? No run of it starts on any node until "
                + "it is resumed; running runs go on.", "Pause queue",
                () -> act(queue, "pause", () -> cluster.pauseQueue(queue.tenant(), queue.name()),
                        after -> "Paused queue " + describe(after) + ".")));
    }

    /** Resumes at once: its due runs start at the next claim. */
    public void resumeSelected() {
        Queue queue = selected.get();
        if (queue == null || acting.get()) {
            return;
        }
        act(queue, "resume", () -> cluster.resumeQueue(queue.tenant(), queue.name()),
                after -> "Resumed queue " + describe(after) + ".");
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

    /** Sends what differs from the queue as read; the server's answer replaces the row. */
    public void save() {
        Queue before = filled;
        if (before == null || acting.get()) {
            return;
        }
        QueueUpdate update;
        try {
            update = changes(before);
        } catch (LimitInput.Invalid e) {
            report(e.getMessage(), Field.of(e.name()));
            return;
        }
        if (update.body().isEmpty()) {
            errorField.set(null);
            failed.set(false);
            message.set("Nothing changed.");
            return;
        }
        act(before, "save", () -> cluster.configureQueue(before.tenant(), before.name(), update),
                after -> "Saved queue " + describe(after) + ": limits " + limitsOf(after) + ".");
    }

    /** Puts the form back to the queue as last read. */
    public void revert() {
        if (filled != null) {
            int i = indexOf(keyOf(filled));
            edit(i >= 0 ? queues.get(i) : filled);
        }
    }

    private void act(Queue queue, String verb, Callable<Queue> call, java.util.function.Function<Queue, String> said) {
        if (acting.get()) {
            return;
        }
        errorField.set(null);
        failed.set(false);
        message.set(capitalized(verb) + "ing queue " + describe(queue) + "…"); // Pausing, Resuming, Saving
        acting.set(true);
        generation++; // a list read before this answer must not put the old row back
        loading.set(false);
        async.run(call, answer -> {
            acting.set(false);
            // an older server answers without a tenant: the queue is still the row's
            Queue after = answer.tenant() == null && queue.tenant() != null ? withTenant(answer, queue.tenant())
                    : answer;
            int i = indexOf(keyOf(queue));
            if (i >= 0) {
                queues.set(i, after);
            } else {
                queues.add(after);
            }
            updateCount();
            boolean shown = filled != null && keyOf(filled).equals(keyOf(queue));
            if (selected.get() != null && keyOf(selected.get()).equals(keyOf(queue))) {
                selected.set(after);
            }
            if (shown && verb.equals("save")) {
                edit(after);
            } else if (shown) {
                filled = after; // the limits did not change; what the operator typed stays
            }
            message.set(said.apply(after));
        }, failure -> {
            acting.set(false);
            String what = verb + " queue " + describe(queue);
            if (failure instanceof ForgeFlowApiException api && (api.status() == 400 || api.status() == 422)
                    && verb.equals("save")) {
                // the server's own words, next to the field it names
                report(api.error(), Field.of(api.field()));
            } else if (failure instanceof ForgeFlowApiException api && api.status() == 403) {
                // the token is good but may not do this: reconnecting with it would not help, another token would
                report("Could not " + what + ": " + api.error() + " (HTTP 403)", null);
            } else {
                report(Problems.describe(what, failure), null);
            }
        });
    }

    private QueueUpdate changes(Queue before) {
        QueueUpdate update = QueueUpdate.create();
        Integer max = LimitInput.whole(maxRunning.get(), "max_running");
        if (!Objects.equals(max, before.maxRunning())) {
            update.maxRunning(max);
        }
        int[] r = LimitInput.rate(rateCount.get(), ratePerSeconds.get());
        Queue.RateLimit rate = r == null ? null : new Queue.RateLimit(r[0], r[1]);
        if (!Objects.equals(rate, before.rateLimit())) {
            if (rate == null) {
                update.clearRateLimit();
            } else {
                update.rateLimit(rate.count(), rate.perSeconds());
            }
        }
        return update;
    }

    private int indexOf(String key) {
        for (int i = 0; i < queues.size(); i++) {
            if (keyOf(queues.get(i)).equals(key)) {
                return i;
            }
        }
        return -1;
    }

    private void updateCount() {
        long paused = queues.stream().filter(Queue::paused).count();
        long due = queues.stream().mapToLong(Queue::due).sum();
        long running = queues.stream().mapToLong(Queue::running).sum();
        count.set(queues.size() + (queues.size() == 1 ? " queue" : " queues") + ", " + paused + " paused; " + due
                + " due, " + running + " running");
    }

    private void report(String text, Field field) {
        errorField.set(field);
        failed.set(true);
        message.set(text);
    }

    private static String capitalized(String verb) {
        return Character.toUpperCase(verb.charAt(0)) + verb.substring(1, verb.length() - (verb.endsWith("e") ? 1 : 0));
    }

    private static Queue withTenant(Queue q, String tenant) {
        return new Queue(q.name(), q.paused(), q.maxRunning(), q.rateLimit(), q.pending(), q.due(), q.running(),
                q.lagSeconds(), q.startsInWindow(), tenant);
    }

    // ---------------------------------------------------------------- how a queue reads

    /** Tenant and name: two tenants' queues of one name are two queues. */
    static String keyOf(Queue q) {
        return tenantOf(q) + "/" + q.name();
    }

    /** The queue's tenant; a server without tenants has only the default one. */
    public static String tenantOf(Queue q) {
        return q.tenant() == null ? Tenancy.DEFAULT : q.tenant();
    }

    /** "reports", or "reports (tenant acme)" for a queue outside the default tenant. */
    public static String describe(Queue q) {
        return q.name() + (Tenancy.outsideDefault(q.tenant()) ? " (tenant " + q.tenant() + ")" : "");
    }

    /** "paused" or "open". */
    public static String stateOf(Queue q) {
        return q.paused() ? "paused" : "open";
    }

    /** "5", or "none". */
    public static String maxRunningOf(Queue q) {
        return q.maxRunning() == null ? "none" : String.valueOf(q.maxRunning());
    }

    /** "100 per 60 s (40 used)", or "none". */
    public static String rateLimitOf(Queue q) {
        return q.rateLimit() == null ? "none"
                : q.rateLimit().count() + " per " + q.rateLimit().perSeconds() + " s (" + q.startsInWindow() + " used)";
    }

    /** "max 5 running, 100 per 60 s (40 used)", or "none". */
    public static String limitsOf(Queue q) {
        if (q.maxRunning() == null && q.rateLimit() == null) {
            return "none";
        }
        return q.maxRunning() == null ? rateLimitOf(q)
                : "max " + q.maxRunning() + " running" + (q.rateLimit() == null ? "" : ", " + rateLimitOf(q));
    }

    /** How long the oldest due run has waited: "0 s", "12.3 s", "4 min 05 s", "2 h 03 min". */
    public static String lagOf(Queue q) {
        double s = q.lagSeconds();
        if (s <= 0) {
            return "0 s";
        }
        if (s < 60) {
            return String.format(Locale.ROOT, "%.1f s", s);
        }
        long whole = (long) s;
        if (whole < 3600) {
            return String.format(Locale.ROOT, "%d min %02d s", whole / 60, whole % 60);
        }
        return String.format(Locale.ROOT, "%d h %02d min", whole / 3600, whole % 3600 / 60);
    }

    // ---------------------------------------------------------------- state for the view

    public ObservableList<Queue> queues() {
        return queues;
    }

    /** The row selected in the table; selecting one fills the form. */
    public ObjectProperty<Queue> selectedProperty() {
        return selected;
    }

    public StringProperty maxRunningProperty() {
        return maxRunning;
    }

    public StringProperty rateCountProperty() {
        return rateCount;
    }

    public StringProperty ratePerSecondsProperty() {
        return ratePerSeconds;
    }

    /** The queue the form edits ("reports (tenant acme)"); empty when none. */
    public ReadOnlyStringProperty editingProperty() {
        return editing.getReadOnlyProperty();
    }

    /** The field the current error is about (the view marks it); null when none. */
    public ObjectProperty<Field> errorFieldProperty() {
        return errorField;
    }

    public ReadOnlyBooleanProperty loadingProperty() {
        return loading.getReadOnlyProperty();
    }

    /** True while a pause, resume or save is on its way. */
    public ReadOnlyBooleanProperty actingProperty() {
        return acting.getReadOnlyProperty();
    }

    /** "3 queues, 1 paused; 12 due, 4 running". */
    public ReadOnlyStringProperty countProperty() {
        return count.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty messageProperty() {
        return message.getReadOnlyProperty();
    }

    public ReadOnlyBooleanProperty failedProperty() {
        return failed.getReadOnlyProperty();
    }

    /** A pause waiting for the operator's yes; null when none. */
    public ReadOnlyObjectProperty<Confirmation> confirmationProperty() {
        return confirmation.getReadOnlyProperty();
    }

    public BooleanBinding tenantColumnVisibleProperty() {
        return tenantColumnVisible;
    }

    public BooleanBinding canSaveProperty() {
        return canSave;
    }

    public BooleanBinding canPauseProperty() {
        return canPause;
    }

    public BooleanBinding canResumeProperty() {
        return canResume;
    }
}
