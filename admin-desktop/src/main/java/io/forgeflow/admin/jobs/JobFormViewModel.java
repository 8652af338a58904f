package io.forgeflow.admin.jobs;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.forgeflow.admin.cluster.ClusterClient;
import io.forgeflow.admin.cluster.JobWorkflow;
import io.forgeflow.admin.cluster.Parents;
import io.forgeflow.admin.support.Async;
import io.forgeflow.admin.support.LabelText;
import io.forgeflow.admin.support.Navigator;
import io.forgeflow.admin.support.Problems;
import io.forgeflow.admin.support.Times;
import io.forgeflow.client.ForgeFlowApiException;
import io.forgeflow.client.Job;
import io.forgeflow.client.JobRequest;
import io.forgeflow.client.JobUpdate;
import io.forgeflow.client.ScheduledFire;
import io.forgeflow.client.SubmitResult;
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
import javafx.beans.value.ObservableValue;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The job form, for a new job or to edit one. Its checks mirror the server's (API.md): name 1–200 characters, an
 * executor, priority 1–9, max_attempts 1–100, timeout_seconds 1–86400, idempotency key at most 200 characters, a valid
 * IANA time zone, a queue name, max_concurrent 1–10000 (required with a concurrency key), an overlap policy, labels,
 * a cron expression checked as it is typed, with its next five fire times, and for a recurring job its schedule
 * controls (start_at, end_at, max_runs 1–1000000, jitter_seconds 0–86400, pause_after_failures 1–1000; each optional,
 * neither checked nor sent for a one-off job). A field shows its problem once it was
 * edited or a submit was tried. The server has the last word: its 422 message is shown on the field it names.
 *
 * <p>{@link #edit(Job)} fills the form with a job as the server has it; {@link #submit()} then sends only the fields
 * that differ ({@code PATCH /api/jobs/{id}}, with {@code ?pending=keep} when {@link #keepPendingProperty()} is set).
 * The executor and idempotency key are fixed at submission and shown read-only; an emptied schedule control is sent
 * as null, which removes it. {@code notify} (README "Notices"): a URL and the dead/paused/recovered boxes; an empty
 * URL sends none on submission (the cluster's default applies) and removes the job's on an edit.
 */
public final class JobFormViewModel {
    /** The form's fields, each with its own error text. */
    public enum Field { NAME, EXECUTOR, COMMAND, URL, METHOD, HEADERS, BODY, CRON, RUN_AT, TIMEZONE, PRIORITY,
        MAX_ATTEMPTS, TIMEOUT, CATCH_UP, IDEMPOTENCY_KEY, QUEUE, CONCURRENCY_KEY, MAX_CONCURRENT, OVERLAP, LABELS,
        PARENTS, ON_PARENT_FAILURE, START_AT, END_AT, MAX_RUNS, JITTER, PAUSE_AFTER_FAILURES, NOTIFY_URL, NOTIFY_ON,
        /* flow control ({@link FlowControlForm}) */ DEBOUNCE, THROTTLE, TENANT }

    /** Whether the form makes a new job or changes one. */
    public enum Mode { SUBMIT, EDIT }

    /** When the job runs. */
    public enum ScheduleMode {
        NOW("Run once, now"), CRON("Repeat on a cron schedule"), ONCE("Run once, at a time");

        private final String label;

        ScheduleMode(String label) {
            this.label = label;
        }

        @Override
        public String toString() {
            return label;
        }
    }

    public static final List<String> EXECUTORS = List.of("shell", "http");
    public static final List<String> HTTP_METHODS = List.of("POST", "GET", "PUT", "PATCH", "DELETE");
    public static final List<String> CATCH_UP_CHOICES = List.of("skip", "once");
    public static final List<String> OVERLAP_CHOICES = List.of("allow", "skip", "queue_one", "cancel_running");
    /** {@code on_parent_failure} choices: what a dead or cancelled parent does (cancel is the server's default). */
    public static final List<String> ON_PARENT_FAILURE_CHOICES = JobWorkflow.POLICIES;
    static final int MAX_PARENTS = 100;
    static final int MAX_CONCURRENT_LIMIT = 10_000;
    private static final java.util.regex.Pattern QUEUE_NAME = java.util.regex.Pattern.compile(
            "[A-Za-z0-9][A-Za-z0-9._-]{0,99}");
    static final int PREVIEW_SIZE = 5;
    private static final DateTimeFormatter RUN_AT_FORMAT = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm[:ss]");
    private static final DateTimeFormatter EDIT_RUN_AT = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");

    private final ClusterClient cluster;
    private final Async async;
    private final Times times;
    private final Navigator navigator;
    private final ObjectMapper json = new ObjectMapper();

    private final StringProperty name = text("name", "");
    private final StringProperty executor = text("executor", "shell");
    private final StringProperty command = text("command", "");
    private final StringProperty url = text("url", "");
    private final StringProperty method = text("method", "POST");
    private final StringProperty headers = text("headers", "");
    private final StringProperty body = text("body", "");
    private final ObjectProperty<ScheduleMode> scheduleMode = new SimpleObjectProperty<>(this, "scheduleMode",
            ScheduleMode.NOW);
    private final StringProperty cronExpr = text("cronExpr", "");
    private final StringProperty runAt = text("runAt", "");
    private final StringProperty timezone = text("timezone", "UTC");
    private final StringProperty priority = text("priority", "5");
    private final StringProperty maxAttempts = text("maxAttempts", "3");
    private final StringProperty timeoutSeconds = text("timeoutSeconds", "300");
    private final StringProperty catchUp = text("catchUp", "skip");
    private final StringProperty idempotencyKey = text("idempotencyKey", "");
    private final StringProperty queue = text("queue", Job.DEFAULT_QUEUE);
    private final StringProperty concurrencyKey = text("concurrencyKey", "");
    private final StringProperty maxConcurrent = text("maxConcurrent", "");
    private final StringProperty overlap = text("overlap", Job.ALLOW);
    private final StringProperty labels = text("labels", "");
    private final StringProperty parents = text("parents", "");
    private final StringProperty onParentFailure = text("onParentFailure", "cancel");
    // the tenant the new job belongs to (the tenant body field); empty: the connection's tenant, else default
    private final StringProperty tenant = text("tenant", "");
    // schedule controls: recurring jobs only (RFC 3339 times, whole numbers; empty: none)
    private final StringProperty startAt = text("startAt", "");
    private final StringProperty endAt = text("endAt", "");
    private final StringProperty maxRuns = text("maxRuns", "");
    private final StringProperty jitterSeconds = text("jitterSeconds", "");
    private final StringProperty pauseAfterFailures = text("pauseAfterFailures", "");
    private final FlowControlForm flow = new FlowControlForm(this);
    // notices (README "Notices"): an empty URL sends none (a new job then gets the cluster's default, if any)
    private final StringProperty notifyUrl = text("notifyUrl", "");
    private final javafx.beans.property.BooleanProperty notifyDead = event("notifyDead");
    private final javafx.beans.property.BooleanProperty notifyPaused = event("notifyPaused");
    private final javafx.beans.property.BooleanProperty notifyRecovered = event("notifyRecovered");
    private final javafx.beans.property.BooleanProperty keepPending =
            new javafx.beans.property.SimpleBooleanProperty(this, "keepPending");
    private final ReadOnlyObjectWrapper<Mode> mode = new ReadOnlyObjectWrapper<>(this, "mode", Mode.SUBMIT);
    /** The job being edited, as the server last answered it; null when submitting. */
    private final ReadOnlyObjectWrapper<Job> editing = new ReadOnlyObjectWrapper<>(this, "editing");
    private final ReadOnlyStringWrapper title = new ReadOnlyStringWrapper(this, "title", "Submit a job");
    private final ReadOnlyStringWrapper actionLabel = new ReadOnlyStringWrapper(this, "actionLabel", "Submit job");
    private final ReadOnlyBooleanWrapper canReload = new ReadOnlyBooleanWrapper(this, "canReload");
    private Consumer<Job> onSaved = job -> { };

    private final Map<Field, ReadOnlyStringWrapper> errors = new EnumMap<>(Field.class);
    private final Map<Field, String> serverErrors = new EnumMap<>(Field.class);
    private final Set<Field> touched = EnumSet.noneOf(Field.class);
    private final ObservableList<String> cronPreview = FXCollections.observableArrayList();
    private final ReadOnlyStringWrapper cronStatus = new ReadOnlyStringWrapper(this, "cronStatus", "");
    /** The expression and zone last sent for a preview, its sequence number, and the server's refusal of it. */
    private String previewKey;
    private long previewSeq;
    private String cronProblem;
    private final ReadOnlyBooleanWrapper valid = new ReadOnlyBooleanWrapper(this, "valid");
    private final ReadOnlyBooleanWrapper submitting = new ReadOnlyBooleanWrapper(this, "submitting");
    private final ReadOnlyStringWrapper message = new ReadOnlyStringWrapper(this, "message", "");
    private final ReadOnlyBooleanWrapper failed = new ReadOnlyBooleanWrapper(this, "failed");
    private final ReadOnlyObjectWrapper<Job> submitted = new ReadOnlyObjectWrapper<>(this, "submitted");
    private Consumer<Job> onSubmitted = job -> { };
    private boolean attempted;
    private boolean resetting;

    public JobFormViewModel(ClusterClient cluster, Async async, Times times, Navigator navigator) {
        this.cluster = Objects.requireNonNull(cluster, "cluster");
        this.async = Objects.requireNonNull(async, "async");
        this.times = Objects.requireNonNull(times, "times");
        this.navigator = Objects.requireNonNull(navigator, "navigator");
        for (Field f : Field.values()) {
            errors.put(f, new ReadOnlyStringWrapper(this, "error" + f, ""));
        }
        watch(name, Field.NAME);
        watch(executor, Field.EXECUTOR);
        watch(command, Field.COMMAND);
        watch(url, Field.URL);
        watch(method, Field.METHOD);
        watch(headers, Field.HEADERS);
        watch(body, Field.BODY);
        watch(cronExpr, Field.CRON);
        watch(runAt, Field.RUN_AT);
        watch(timezone, Field.TIMEZONE);
        watch(priority, Field.PRIORITY);
        watch(maxAttempts, Field.MAX_ATTEMPTS);
        watch(timeoutSeconds, Field.TIMEOUT);
        watch(catchUp, Field.CATCH_UP);
        watch(idempotencyKey, Field.IDEMPOTENCY_KEY);
        watch(queue, Field.QUEUE);
        watch(concurrencyKey, Field.CONCURRENCY_KEY);
        watch(maxConcurrent, Field.MAX_CONCURRENT);
        watch(overlap, Field.OVERLAP);
        watch(labels, Field.LABELS);
        watch(parents, Field.PARENTS);
        watch(onParentFailure, Field.ON_PARENT_FAILURE);
        watch(tenant, Field.TENANT);
        watch(startAt, Field.START_AT);
        watch(endAt, Field.END_AT);
        watch(maxRuns, Field.MAX_RUNS);
        watch(jitterSeconds, Field.JITTER);
        watch(pauseAfterFailures, Field.PAUSE_AFTER_FAILURES);
        flow.watched().forEach(this::watch);
        watch(notifyUrl, Field.NOTIFY_URL);
        for (javafx.beans.property.BooleanProperty box : List.of(notifyDead, notifyPaused, notifyRecovered)) {
            box.addListener((o, a, b) -> {
                if (!resetting) {
                    touched.add(Field.NOTIFY_ON);
                    serverErrors.remove(Field.NOTIFY_ON);
                }
                validate();
            });
        }
        scheduleMode.addListener((o, a, b) -> validate());
        validate();
    }

    private StringProperty text(String property, String initial) {
        return new SimpleStringProperty(this, property, initial);
    }

    private javafx.beans.property.BooleanProperty event(String property) {
        return new javafx.beans.property.SimpleBooleanProperty(this, property, true);
    }

    private void watch(ObservableValue<String> property, Field field) {
        property.addListener((o, a, b) -> {
            if (!resetting) {
                touched.add(field);
                serverErrors.remove(field);
            }
            validate();
        });
    }

    /** Called with each job the server accepted (new or replayed), e.g. to show it in the Jobs list. */
    public void setOnSubmitted(Consumer<Job> onSubmitted) {
        this.onSubmitted = Objects.requireNonNull(onSubmitted, "onSubmitted");
    }

    /** Called with each job the server changed through this form, e.g. to refresh the Jobs list. */
    public void setOnSaved(Consumer<Job> onSaved) {
        this.onSaved = Objects.requireNonNull(onSaved, "onSaved");
    }

    /** Checks every field, updates the shown errors and the cron preview; true when the form can be sent. */
    public boolean validate() {
        Map<Field, String> problems = problems();
        for (Field f : Field.values()) {
            String problem = serverErrors.containsKey(f) ? serverErrors.get(f) : problems.get(f);
            boolean show = attempted || touched.contains(f) || serverErrors.containsKey(f);
            errors.get(f).set(problem != null && show ? problem : "");
        }
        valid.set(problems.isEmpty());
        return problems.isEmpty();
    }

    private Map<Field, String> problems() {
        Map<Field, String> p = new LinkedHashMap<>();
        String n = value(name);
        if (n.isEmpty()) {
            p.put(Field.NAME, "Required: a short name such as nightly-report.");
        } else if (n.length() > 200) {
            p.put(Field.NAME, "At most 200 characters (this has " + n.length() + ").");
        }
        String ex = value(executor);
        if (ex.isEmpty()) {
            p.put(Field.EXECUTOR, "Required: shell or http.");
        } else if (ex.equals("shell")) {
            if (value(command).isEmpty()) {
                p.put(Field.COMMAND, "Required: the command, run with /bin/sh -c (e.g. echo hello).");
            }
        } else if (ex.equals("http")) {
            checkUrl(p);
            checkJson(p, Field.HEADERS, value(headers), true);
            checkJson(p, Field.BODY, value(body), false);
        }
        ZoneId zone = null;
        try {
            zone = ZoneId.of(value(timezone).isEmpty() ? "UTC" : value(timezone));
        } catch (DateTimeException e) {
            p.put(Field.TIMEZONE, "Unknown time zone '" + value(timezone) + "': use an IANA name such as UTC, "
                    + "Europe/Berlin or America/New_York.");
        }
        switch (scheduleMode.get()) {
            case CRON -> {
                checkCron(p, zone);
                checkControls(p);
            }
            case ONCE -> {
                forgetPreview();
                if (zone != null && parseRunAt(value(runAt), zone) == null) {
                    p.put(Field.RUN_AT, "Write the time as 2026-07-01 09:30 (in the job's time zone) or "
                            + "2026-07-01T09:30:00Z.");
                }
            }
            case NOW -> forgetPreview();
            default -> throw new IllegalStateException("unknown schedule mode " + scheduleMode.get());
        }
        range(p, Field.PRIORITY, priority, 1, 9, "1 is the highest, 9 the lowest");
        range(p, Field.MAX_ATTEMPTS, maxAttempts, 1, 100, "tries before the run goes to the dead letters");
        range(p, Field.TIMEOUT, timeoutSeconds, 1, 86_400, "seconds; 86400 is one day");
        if (!CATCH_UP_CHOICES.contains(value(catchUp))) {
            p.put(Field.CATCH_UP, "skip or once.");
        }
        if (mode.get() == Mode.SUBMIT && value(idempotencyKey).length() > 200) {
            p.put(Field.IDEMPOTENCY_KEY, "At most 200 characters (this has " + value(idempotencyKey).length() + ").");
        }
        String t = value(tenant);
        if (mode.get() == Mode.SUBMIT && !t.isEmpty() && !io.forgeflow.admin.cluster.Tenancy.isValidName(t)) {
            p.put(Field.TENANT, "Use 1 to 63 lower-case letters, digits, '_', '.' or '-', e.g. acme (empty: "
                    + (cluster.tenant() == null ? "default" : "tenant " + cluster.tenant()) + ").");
        }
        String q = value(queue);
        if (!q.isEmpty() && !QUEUE_NAME.matcher(q).matches()) {
            p.put(Field.QUEUE, "Use 1 to 100 letters, digits, '.', '_' or '-', starting with a letter or digit, e.g. "
                    + "reports (empty: the default queue).");
        }
        String key = value(concurrencyKey);
        if (key.length() > 200) {
            p.put(Field.CONCURRENCY_KEY, "At most 200 characters (this has " + key.length() + ").");
        } else if (key.startsWith("job:")) {
            p.put(Field.CONCURRENCY_KEY, "Must not start with \"job:\" (reserved for a job's own limit).");
        }
        if (!value(maxConcurrent).isEmpty()) {
            range(p, Field.MAX_CONCURRENT, maxConcurrent, 1, MAX_CONCURRENT_LIMIT,
                    "runs sharing the key at once, cluster-wide");
        } else if (!key.isEmpty()) {
            p.put(Field.MAX_CONCURRENT, "Required with a concurrency key: how many runs sharing it may run at once, "
                    + "e.g. 2.");
        }
        if (!OVERLAP_CHOICES.contains(value(overlap))) {
            p.put(Field.OVERLAP, "allow, skip, queue_one or cancel_running.");
        } else if (!value(overlap).equals(Job.ALLOW) && scheduleMode.get() != ScheduleMode.CRON) {
            p.put(Field.OVERLAP, "Only a recurring job has overlapping runs: use allow for a one-off job.");
        }
        try {
            LabelText.parse(labels.get());
        } catch (IllegalArgumentException e) {
            p.put(Field.LABELS, e.getMessage());
        }
        if (mode.get() == Mode.SUBMIT) {
            checkParents(p);
        }
        flow.check(p, mode.get() == Mode.SUBMIT, scheduleMode.get());
        Job original = editing.get();
        if (original != null) {
            boolean recurring = original.cronExpr() != null;
            if (recurring && scheduleMode.get() != ScheduleMode.CRON) {
                p.put(Field.CRON, "A recurring job stays recurring: keep a cron expression (pause or delete the job "
                        + "instead).");
            } else if (!recurring && scheduleMode.get() == ScheduleMode.CRON) {
                p.put(Field.CRON, "A one-off job cannot become recurring: submit a new job with a cron expression.");
            }
        }
        checkNotify(p);
        return p;
    }

    /** Notify: optional; an absolute http(s) URL of at most 2000 characters and at least one event, as the server checks. */
    private void checkNotify(Map<Field, String> p) {
        String u = value(notifyUrl);
        if (u.isEmpty()) {
            return;
        }
        String lower = u.toLowerCase(java.util.Locale.ROOT);
        if (!lower.startsWith("http://") && !lower.startsWith("https://") || u.length() < 9) {
            p.put(Field.NOTIFY_URL, "An absolute http or https URL, e.g. https://hooks.example.com/forgeflow.");
        } else if (u.length() > 2000) {
            p.put(Field.NOTIFY_URL, "At most 2000 characters (this has " + u.length() + ").");
        }
        if (notifyEvents().isEmpty()) {
            p.put(Field.NOTIFY_ON, "Tick at least one event (dead, paused, recovered), or empty the URL for no notices.");
        }
    }

    /** The ticked events, in the API's order. */
    private List<String> notifyEvents() {
        List<String> on = new java.util.ArrayList<>();
        if (notifyDead.get()) {
            on.add(io.forgeflow.client.Notify.DEAD);
        }
        if (notifyPaused.get()) {
            on.add(io.forgeflow.client.Notify.PAUSED);
        }
        if (notifyRecovered.get()) {
            on.add(io.forgeflow.client.Notify.RECOVERED);
        }
        return on;
    }

    /** The form's notify; null when the URL is empty. */
    private io.forgeflow.client.Notify formNotify() {
        return value(notifyUrl).isEmpty() ? null : new io.forgeflow.client.Notify(value(notifyUrl), notifyEvents());
    }

    /** Start, end, max runs, jitter and pause after failures: each optional; checked as the server does (API.md). */
    private void checkControls(Map<Field, String> p) {
        Instant start = time(p, Field.START_AT, startAt);
        Instant end = time(p, Field.END_AT, endAt);
        if (start != null && end != null && !end.isAfter(start)) {
            p.put(Field.END_AT, "Must be later than the start.");
        }
        optionalRange(p, Field.MAX_RUNS, maxRuns, 1, 1_000_000, "runs fired before the job completes");
        optionalRange(p, Field.JITTER, jitterSeconds, 0, 86_400, "seconds each tick's run may be moved later");
        optionalRange(p, Field.PAUSE_AFTER_FAILURES, pauseAfterFailures, 1, 1_000, "dead runs in a row that pause it");
    }

    private static Instant time(Map<Field, String> p, Field field, StringProperty text) {
        if (value(text).isEmpty()) {
            return null;
        }
        Instant at = rfc3339(value(text));
        if (at == null) {
            p.put(field, "Write an RFC 3339 time such as 2026-07-01T00:00:00Z or 2026-07-01T02:00:00+02:00 "
                    + "(empty: none).");
        }
        return at;
    }

    /** An RFC 3339 time, or null when empty or not one. */
    static Instant rfc3339(String text) {
        if (text == null || text.isBlank()) {
            return null;
        }
        try {
            return OffsetDateTime.parse(text.strip()).toInstant();
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    private static void optionalRange(Map<Field, String> p, Field field, StringProperty text, int min, int max,
                                      String hint) {
        if (!value(text).isEmpty()) {
            range(p, field, text, min, max, hint + "; empty: none");
        }
    }

    private static Integer number(StringProperty text) {
        return value(text).isEmpty() ? null : Integer.valueOf(value(text));
    }

    private void checkParents(Map<Field, String> p) {
        List<String> ids;
        try {
            ids = parentIds(parents.get());
        } catch (IllegalArgumentException e) {
            p.put(Field.PARENTS, e.getMessage());
            return;
        }
        if (!ids.isEmpty() && scheduleMode.get() == ScheduleMode.CRON) {
            p.put(Field.PARENTS, "Only a one-off job can have parents: run it now or at a time, or leave this empty.");
        }
        if (!ON_PARENT_FAILURE_CHOICES.contains(value(onParentFailure))) {
            p.put(Field.ON_PARENT_FAILURE, "cancel, run or wait.");
        }
    }

    /**
     * The parent job ids written as {@code id1, id2} (commas or spaces between): 1 to 100 distinct ids; empty means
     * none. Throws with a message for the operator when the text is not that.
     */
    static List<String> parentIds(String text) {
        if (text == null || text.isBlank()) {
            return List.of();
        }
        List<String> ids = new java.util.ArrayList<>();
        for (String id : text.strip().split("[,\\s]+")) {
            if (id.isEmpty()) {
                continue;
            }
            if (!id.matches("[A-Za-z0-9._:-]{1,100}")) {
                throw new IllegalArgumentException("'" + id + "' is not a job id: copy ids from the Jobs list, "
                        + "separated by commas.");
            }
            if (ids.contains(id)) {
                throw new IllegalArgumentException("Job " + id + " is named twice: each parent once.");
            }
            ids.add(id);
        }
        if (ids.size() > MAX_PARENTS) {
            throw new IllegalArgumentException("At most " + MAX_PARENTS + " parents (this has " + ids.size() + ").");
        }
        return ids;
    }

    /** The parents this form describes ({@link Parents#NONE} when the field is empty); only when valid. */
    Parents parents() {
        List<String> ids = parentIds(parents.get());
        return ids.isEmpty() ? Parents.NONE : new Parents(ids, value(onParentFailure));
    }

    private void checkUrl(Map<Field, String> p) {
        String u = value(url);
        if (u.isEmpty()) {
            p.put(Field.URL, "Required: the URL to call, e.g. https://example.com/hook.");
            return;
        }
        try {
            java.net.URI uri = new java.net.URI(u);
            if (uri.getHost() == null || !("http".equalsIgnoreCase(uri.getScheme())
                    || "https".equalsIgnoreCase(uri.getScheme()))) {
                p.put(Field.URL, "Use an http:// or https:// URL with a host.");
            }
        } catch (java.net.URISyntaxException e) {
            p.put(Field.URL, "Not a URL: " + e.getReason() + ".");
        }
    }

    private void checkJson(Map<Field, String> p, Field field, String text, boolean objectOnly) {
        if (text.isEmpty()) {
            return;
        }
        try {
            Object parsed = json.readValue(text, Object.class);
            if (objectOnly && !(parsed instanceof Map)) {
                p.put(field, "Write a JSON object such as {\"Authorization\": \"Bearer …\"}.");
            }
        } catch (JsonProcessingException e) {
            p.put(field, "Not valid JSON: " + e.getOriginalMessage());
        }
    }

    /**
     * The server decides whether an expression is valid and when it fires (GET /api/schedules/preview), so the
     * preview is what the scheduler will do. A new expression or zone asks once; answers to older ones are dropped.
     */
    private void checkCron(Map<Field, String> p, ZoneId zone) {
        String expr = value(cronExpr);
        if (expr.isEmpty()) {
            forgetPreview();
            p.put(Field.CRON, "Required: a cron expression such as 0 3 * * * (03:00 daily) or 0 6 L * * (06:00 on "
                    + "the last day of the month).");
            return;
        }
        if (zone == null) {
            forgetPreview();
            return;
        }
        String key = expr + "\n" + zone.getId();
        if (!key.equals(previewKey)) {
            previewKey = key;
            cronProblem = null;
            requestPreview(expr, zone, ++previewSeq);
        }
        if (cronProblem != null) {
            p.put(Field.CRON, cronProblem);
        }
    }

    private void requestPreview(String expr, ZoneId zone, long seq) {
        cronPreview.clear();
        cronStatus.set("Asking the server for the next fire times…");
        async.run(() -> cluster.previewSchedule(expr, zone.getId(), PREVIEW_SIZE), (List<ScheduledFire> fires) -> {
            if (seq != previewSeq) {
                return;
            }
            cronPreview.setAll(fires.stream().map(f -> Times.in(f.at(), zone) + "   (" + Times.utc(f.at()) + ")"
                    + (f.note() == null ? "" : "   " + f.note())).toList());
            cronStatus.set(fires.isEmpty() ? "Valid, but it does not fire again."
                    : "Valid. Next " + fires.size() + " fire times in " + zone.getId() + ":");
        }, failure -> {
            if (seq != previewSeq) {
                return;
            }
            cronPreview.clear();
            if (failure instanceof ForgeFlowApiException api && "cron_expr".equals(api.field())) {
                cronStatus.set("");
                cronProblem = api.error();
                validate();
            } else {
                cronStatus.set("No preview: " + Problems.describe("preview the schedule", failure)
                        + " The server checks the expression on submit.");
            }
        });
    }

    private void forgetPreview() {
        previewKey = null;
        cronProblem = null;
        previewSeq++;
        clearPreview();
    }

    private void clearPreview() {
        cronPreview.clear();
        cronStatus.set("");
    }

    private static void range(Map<Field, String> p, Field field, StringProperty text, int min, int max, String hint) {
        String v = value(text);
        try {
            int n = Integer.parseInt(v);
            if (n < min || n > max) {
                p.put(field, "Must be " + min + " to " + max + " (" + hint + ").");
            }
        } catch (NumberFormatException e) {
            p.put(field, "Must be a whole number from " + min + " to " + max + " (" + hint + ").");
        }
    }

    static Instant parseRunAt(String text, ZoneId zone) {
        if (text.isEmpty()) {
            return null;
        }
        try {
            return OffsetDateTime.parse(text).toInstant();
        } catch (DateTimeParseException notIso) {
            try {
                return LocalDateTime.parse(text.replace('T', ' '), RUN_AT_FORMAT).atZone(zone).toInstant();
            } catch (DateTimeParseException e) {
                return null;
            }
        }
    }

    private static String value(StringProperty p) {
        return p.get() == null ? "" : p.get().strip();
    }

    /** The request this form describes; call only when {@link #validate()} is true. */
    JobRequest request() {
        String ex = value(executor);
        Map<String, Object> payload = new LinkedHashMap<>();
        if (ex.equals("shell")) {
            payload.put("command", command.get().strip());
        } else if (ex.equals("http")) {
            payload.put("url", value(url));
            payload.put("method", value(method).isEmpty() ? "POST" : value(method));
            readJson(value(headers)).ifPresent(h -> payload.put("headers", h));
            readJson(value(body)).ifPresent(b -> payload.put("body", b));
        }
        ZoneId zone = ZoneId.of(value(timezone).isEmpty() ? "UTC" : value(timezone));
        JobRequest.Builder b = JobRequest.builder(value(name), ex).payload(payload)
                .timezone(zone.getId())
                .priority(Integer.parseInt(value(priority)))
                .maxAttempts(Integer.parseInt(value(maxAttempts)))
                .timeoutSeconds(Integer.parseInt(value(timeoutSeconds)))
                .catchUp(value(catchUp))
                .idempotencyKey(value(idempotencyKey).isEmpty() ? null : value(idempotencyKey))
                .queue(value(queue).isEmpty() || value(queue).equals(Job.DEFAULT_QUEUE) ? null : value(queue))
                .concurrencyKey(value(concurrencyKey).isEmpty() ? null : value(concurrencyKey))
                .maxConcurrent(value(maxConcurrent).isEmpty() ? null : Integer.valueOf(value(maxConcurrent)))
                .overlap(value(overlap).equals(Job.ALLOW) ? null : value(overlap))
                .labels(LabelText.parse(labels.get()));
        if (formNotify() != null) {
            b.notices(value(notifyUrl), notifyEvents().toArray(String[]::new));
        }
        switch (scheduleMode.get()) {
            case CRON -> b.cron(value(cronExpr)).startAt(rfc3339(value(startAt))).endAt(rfc3339(value(endAt)))
                    .maxRuns(number(maxRuns)).jitterSeconds(number(jitterSeconds))
                    .pauseAfterFailures(number(pauseAfterFailures));
            case ONCE -> b.runAt(parseRunAt(value(runAt), zone));
            default -> { }
        }
        return b.build().withFlow(flow.debounce(), flow.throttle())
                .withTenant(value(tenant).isEmpty() ? null : value(tenant));
    }

    private java.util.Optional<Object> readJson(String text) {
        if (text.isEmpty()) {
            return java.util.Optional.empty();
        }
        try {
            return java.util.Optional.ofNullable(json.readValue(text, Object.class));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("validated JSON no longer parses", e);
        }
    }

    /**
     * Sends the job (a new one, or the changes to the one being edited). Problems found here are shown on their fields;
     * the server's 422 is shown on the field it names.
     */
    public void submit() {
        if (submitting.get()) {
            return;
        }
        if (mode.get() == Mode.EDIT) {
            save();
            return;
        }
        attempted = true;
        if (!validate()) {
            report("Fix the fields marked in red, then submit again.");
            return;
        }
        JobRequest request = request();
        Parents withParents = parents();
        submitting.set(true);
        message.set("Submitting " + request.name() + "…");
        failed.set(false);
        async.run(() -> withParents.none() ? cluster.submit(request) : cluster.submit(request, withParents),
                (SubmitResult result) -> {
            submitting.set(false);
            Job job = result.job();
            submitted.set(job);
            failed.set(false);
            message.set(result.debounced() ? "Debounced: joined run " + result.debouncedInto() + " of job "
                    + job.name() + " (" + job.id() + "); no new job was created." : result.created()
                    ? "Created job " + job.name() + " (" + job.id() + ")" + (withParents.none()
                            ? ", next run " + times.local(job.nextRunAt()) + "."
                            : "; it waits for " + withParents.ids().size() + (withParents.ids().size() == 1
                            ? " parent" : " parents") + " (on parent failure: " + withParents.onParentFailure() + ").")
                    : "Already submitted: the idempotency key matches job " + job.name() + " (" + job.id()
                            + "); no second job was created.");
            onSubmitted.accept(job);
        }, failure -> {
            submitting.set(false);
            if (failure instanceof ForgeFlowApiException api && api.field() != null) {
                Field field = fieldOf(api.field());
                if (field != null) {
                    serverErrors.put(field, api.error());
                    validate();
                }
                report("The server rejected the job: " + api.error());
            } else if (failure instanceof ForgeFlowApiException api) {
                report("The server rejected the job: " + api.error() + " (HTTP " + api.status() + ")");
            } else {
                report(Problems.describe("submit the job", failure));
            }
        });
    }

    /** Which form field a server {@code field} names. */
    Field fieldOf(String apiField) {
        String f = apiField.toLowerCase(java.util.Locale.ROOT);
        if (f.startsWith("payload")) {
            if (value(executor).equals("http")) {
                return f.contains("body") ? Field.BODY : f.contains("header") ? Field.HEADERS
                        : f.contains("method") ? Field.METHOD : Field.URL;
            }
            return Field.COMMAND;
        }
        return switch (f) {
            case "name" -> Field.NAME;
            case "executor" -> Field.EXECUTOR;
            case "cron_expr" -> Field.CRON;
            case "run_at" -> Field.RUN_AT;
            case "timezone" -> Field.TIMEZONE;
            case "priority" -> Field.PRIORITY;
            case "max_attempts" -> Field.MAX_ATTEMPTS;
            case "timeout_seconds" -> Field.TIMEOUT;
            case "catch_up" -> Field.CATCH_UP;
            case "idempotency_key" -> Field.IDEMPOTENCY_KEY;
            case "queue" -> Field.QUEUE;
            case "concurrency_key" -> Field.CONCURRENCY_KEY;
            case "max_concurrent" -> Field.MAX_CONCURRENT;
            case "overlap" -> Field.OVERLAP;
            case "labels" -> Field.LABELS;
            case "on_parent_failure" -> Field.ON_PARENT_FAILURE;
            case "tenant" -> Field.TENANT;
            case "start_at" -> Field.START_AT;
            case "end_at" -> Field.END_AT;
            case "max_runs" -> Field.MAX_RUNS;
            case "jitter_seconds" -> Field.JITTER;
            case "pause_after_failures" -> Field.PAUSE_AFTER_FAILURES;
            case "notify", "notify.url" -> Field.NOTIFY_URL;
            case "notify.on" -> Field.NOTIFY_ON;
            default -> f.startsWith("depends_on") ? Field.PARENTS : FlowControlForm.fieldOf(f);
        };
    }

    private void report(String text) {
        failed.set(true);
        message.set(text);
    }

    /** Clears the form for another job (leaving edit mode). */
    public void reset() {
        mode.set(Mode.SUBMIT);
        editing.set(null);
        title.set("Submit a job");
        actionLabel.set("Submit job");
        canReload.set(false);
        keepPending.set(false);
        resetting = true;
        try {
            name.set("");
            executor.set("shell");
            command.set("");
            url.set("");
            method.set("POST");
            headers.set("");
            body.set("");
            scheduleMode.set(ScheduleMode.NOW);
            cronExpr.set("");
            runAt.set("");
            timezone.set("UTC");
            priority.set("5");
            maxAttempts.set("3");
            timeoutSeconds.set("300");
            catchUp.set("skip");
            idempotencyKey.set("");
            queue.set(Job.DEFAULT_QUEUE);
            concurrencyKey.set("");
            maxConcurrent.set("");
            overlap.set(Job.ALLOW);
            labels.set("");
            parents.set("");
            onParentFailure.set("cancel");
            tenant.set("");
            startAt.set("");
            endAt.set("");
            maxRuns.set("");
            jitterSeconds.set("");
            pauseAfterFailures.set("");
            flow.reset();
            fillNotify(null);
        } finally {
            resetting = false;
        }
        touched.clear();
        serverErrors.clear();
        attempted = false;
        submitted.set(null);
        message.set("");
        failed.set(false);
        validate();
    }

    // ---------------------------------------------------------------- editing a job

    /** Fills the form with the job as the server has it; {@link #submit()} then sends only what differs. */
    public void edit(Job job) {
        Objects.requireNonNull(job, "job");
        editing.set(job);
        mode.set(Mode.EDIT);
        title.set("Edit job " + job.name() + " (" + job.id() + ")");
        actionLabel.set("Save changes");
        canReload.set(false);
        keepPending.set(false);
        fill(job);
        touched.clear();
        serverErrors.clear();
        attempted = false;
        submitted.set(null);
        message.set("");
        failed.set(false);
        validate();
    }

    private void fill(Job job) {
        Map<String, Object> payload = job.payload() == null ? Map.of() : job.payload();
        ZoneId zone = zoneOrUtc(job.timezone());
        resetting = true;
        try {
            name.set(job.name());
            executor.set(job.executor());
            command.set(textOf(payload.get("command")));
            url.set(textOf(payload.get("url")));
            method.set(payload.get("method") == null ? "POST" : textOf(payload.get("method")));
            headers.set(jsonOf(payload.get("headers")));
            body.set(jsonOf(payload.get("body")));
            scheduleMode.set(job.cronExpr() != null ? ScheduleMode.CRON
                    : job.runAt() != null ? ScheduleMode.ONCE : ScheduleMode.NOW);
            cronExpr.set(job.cronExpr() == null ? "" : job.cronExpr());
            runAt.set(job.runAt() == null ? "" : EDIT_RUN_AT.format(job.runAt().atZone(zone)));
            timezone.set(zone.getId());
            priority.set(Integer.toString(job.priority()));
            maxAttempts.set(Integer.toString(job.maxAttempts()));
            timeoutSeconds.set(Integer.toString(job.timeoutSeconds()));
            catchUp.set(job.catchUp() == null ? "skip" : job.catchUp());
            idempotencyKey.set(job.idempotencyKey() == null ? "" : job.idempotencyKey());
            queue.set(job.queue());
            concurrencyKey.set(job.concurrencyKey() == null ? "" : job.concurrencyKey());
            maxConcurrent.set(job.maxConcurrent() == null ? "" : job.maxConcurrent().toString());
            overlap.set(job.overlap());
            labels.set(LabelText.format(job.labels()));
            startAt.set(job.startAt() == null ? "" : job.startAt().toString());
            endAt.set(job.endAt() == null ? "" : job.endAt().toString());
            maxRuns.set(job.maxRuns() == null ? "" : job.maxRuns().toString());
            jitterSeconds.set(job.jitterSeconds() == 0 ? "" : Integer.toString(job.jitterSeconds()));
            pauseAfterFailures.set(job.pauseAfterFailures() == null ? "" : job.pauseAfterFailures().toString());
            flow.fill(job);
            fillNotify(job.notices());
        } finally {
            resetting = false;
        }
    }

    /** The notify fields from a job's notify; none: an empty URL and every event ticked. */
    private void fillNotify(io.forgeflow.client.Notify notify) {
        List<String> on = notify == null || notify.on() == null || notify.on().isEmpty()
                ? List.of(io.forgeflow.client.Notify.DEAD, io.forgeflow.client.Notify.PAUSED,
                io.forgeflow.client.Notify.RECOVERED) : notify.on();
        notifyUrl.set(notify == null ? "" : notify.url());
        notifyDead.set(on.contains(io.forgeflow.client.Notify.DEAD));
        notifyPaused.set(on.contains(io.forgeflow.client.Notify.PAUSED));
        notifyRecovered.set(on.contains(io.forgeflow.client.Notify.RECOVERED));
    }

    /** Whether two notifies send the same events to the same URL (the order of events aside). */
    private static boolean sameNotify(io.forgeflow.client.Notify a, io.forgeflow.client.Notify b) {
        if (a == null || b == null) {
            return a == b;
        }
        return a.url().equals(b.url()) && new java.util.TreeSet<>(a.on() == null ? List.of() : a.on())
                .equals(new java.util.TreeSet<>(b.on() == null ? List.of() : b.on()));
    }

    private static ZoneId zoneOrUtc(String zone) {
        try {
            return ZoneId.of(zone == null || zone.isBlank() ? "UTC" : zone);
        } catch (DateTimeException e) {
            return ZoneId.of("UTC");
        }
    }

    private static String textOf(Object value) {
        return value == null ? "" : value.toString();
    }

    private String jsonOf(Object value) {
        if (value == null) {
            return "";
        }
        try {
            return json.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a payload read from JSON no longer writes", e);
        }
    }

    /**
     * The fields that differ from the job being edited, as a PATCH body; call only when {@link #validate()} is true.
     * Payload keys the form does not show (such as {@code retry_on_status}) are kept as they are.
     */
    JobUpdate changes() {
        Job o = editing.get();
        JobUpdate u = JobUpdate.create();
        if (!value(name).equals(o.name())) {
            u.name(value(name));
        }
        Map<String, Object> before = o.payload() == null ? Map.of() : o.payload();
        Map<String, Object> payload = new LinkedHashMap<>(before);
        if (o.executor().equals("shell")) {
            payload.put("command", command.get().strip());
        } else if (o.executor().equals("http")) {
            payload.put("url", value(url));
            if (before.containsKey("method") || !value(method).equals("POST")) {
                payload.put("method", value(method));
            }
            readJson(value(headers)).ifPresentOrElse(h -> payload.put("headers", h), () -> payload.remove("headers"));
            readJson(value(body)).ifPresentOrElse(b -> payload.put("body", b), () -> payload.remove("body"));
        }
        if (!payload.equals(before)) {
            u.payload(payload);
        }
        ZoneId zone = ZoneId.of(value(timezone).isEmpty() ? "UTC" : value(timezone));
        if (o.cronExpr() != null) {
            if (!value(cronExpr).equals(o.cronExpr())) {
                u.cron(value(cronExpr));
            }
            changedControls(o, u);
        } else {
            Instant at = scheduleMode.get() == ScheduleMode.ONCE ? parseRunAt(value(runAt), zone) : null;
            if (!Objects.equals(at, o.runAt())) {
                u.runAt(at);
            }
        }
        if (!zone.getId().equals(zoneOrUtc(o.timezone()).getId())) {
            u.timezone(zone.getId());
        }
        if (Integer.parseInt(value(priority)) != o.priority()) {
            u.priority(Integer.valueOf(value(priority)));
        }
        if (Integer.parseInt(value(maxAttempts)) != o.maxAttempts()) {
            u.maxAttempts(Integer.valueOf(value(maxAttempts)));
        }
        if (Integer.parseInt(value(timeoutSeconds)) != o.timeoutSeconds()) {
            u.timeoutSeconds(Integer.valueOf(value(timeoutSeconds)));
        }
        if (!value(catchUp).equals(o.catchUp() == null ? "skip" : o.catchUp())) {
            u.catchUp(value(catchUp));
        }
        String q = value(queue).isEmpty() ? Job.DEFAULT_QUEUE : value(queue);
        if (!q.equals(o.queue())) {
            u.queue(q);
        }
        String key = value(concurrencyKey).isEmpty() ? null : value(concurrencyKey);
        if (!Objects.equals(key, o.concurrencyKey())) {
            u.concurrencyKey(key);
        }
        Integer limit = value(maxConcurrent).isEmpty() ? null : Integer.valueOf(value(maxConcurrent));
        if (!Objects.equals(limit, o.maxConcurrent())) {
            u.maxConcurrent(limit);
        }
        if (!value(overlap).equals(o.overlap())) {
            u.overlap(value(overlap));
        }
        Map<String, String> l = LabelText.parse(labels.get());
        if (!l.equals(o.labels())) {
            u.labels(l);
        }
        flow.changes(o, u);
        io.forgeflow.client.Notify notify = formNotify();
        if (!sameNotify(notify, o.notices())) {
            u.notices(notify); // an emptied URL: null, no more notices
        }
        return u;
    }

    /** The schedule controls that differ; an emptied one is sent as null, which removes it (as PATCH does). */
    private void changedControls(Job o, JobUpdate u) {
        Instant start = rfc3339(value(startAt));
        if (!Objects.equals(start, o.startAt())) {
            u.startAt(start);
        }
        Instant end = rfc3339(value(endAt));
        if (!Objects.equals(end, o.endAt())) {
            u.endAt(end);
        }
        if (!Objects.equals(number(maxRuns), o.maxRuns())) {
            u.maxRuns(number(maxRuns));
        }
        Integer jitter = number(jitterSeconds);
        if ((jitter == null ? 0 : jitter) != o.jitterSeconds()) {
            u.jitterSeconds(jitter);
        }
        if (!Objects.equals(number(pauseAfterFailures), o.pauseAfterFailures())) {
            u.pauseAfterFailures(number(pauseAfterFailures));
        }
    }

    private void save() {
        Job job = editing.get();
        attempted = true;
        if (!validate()) {
            report("Fix the fields marked in red, then save again.");
            return;
        }
        JobUpdate update = changes();
        if (update.isEmpty()) {
            failed.set(false);
            message.set("Nothing to save: every field is as the server has it.");
            return;
        }
        boolean keep = keepPending.get();
        String fields = String.join(", ", update.body().keySet());
        submitting.set(true);
        failed.set(false);
        message.set("Saving " + fields + "…");
        async.run(() -> cluster.update(job.id(), update, keep), (Job saved) -> {
            submitting.set(false);
            edit(saved);
            message.set("Saved " + saved.name() + ": changed " + fields
                    + (keep ? "; pending runs kept as they were." : "; pending runs follow the change."));
            onSaved.accept(saved);
        }, failure -> {
            submitting.set(false);
            if (failure instanceof ForgeFlowApiException api && api.isConflict()) {
                canReload.set(true);
                report("The server refused the change: " + api.error() + " (HTTP 409). Reload the job to see it as "
                        + "the server has it now.");
            } else if (failure instanceof ForgeFlowApiException api && api.field() != null) {
                Field field = fieldOf(api.field());
                if (field != null) {
                    serverErrors.put(field, api.error());
                    validate();
                }
                report("The server refused the change: " + api.error());
            } else if (failure instanceof ForgeFlowApiException api) {
                report("The server refused the change: " + api.error() + " (HTTP " + api.status() + ")");
            } else {
                report(Problems.describe("save job " + job.name(), failure));
            }
        });
    }

    /** Reads the edited job again from the server and fills the form with it (after a 409, or to drop edits). */
    public void reloadEdited() {
        Job job = editing.get();
        if (job == null || submitting.get()) {
            return;
        }
        submitting.set(true);
        async.run(() -> cluster.job(job.id()), (Job fresh) -> {
            submitting.set(false);
            edit(fresh);
            message.set("Reloaded " + fresh.name() + " as the server has it (status " + fresh.status() + ").");
        }, failure -> {
            submitting.set(false);
            report(Problems.describe("reload job " + job.name(), failure));
        });
    }

    /** Opens the runs of the job just submitted. */
    public void showRunsOfSubmitted() {
        Job job = submitted.get();
        if (job != null) {
            navigator.showRunsOfJob(job.id());
        }
    }

    // ---------------------------------------------------------------- state for the view

    public StringProperty nameProperty() {
        return name;
    }

    public StringProperty executorProperty() {
        return executor;
    }

    public StringProperty commandProperty() {
        return command;
    }

    public StringProperty urlProperty() {
        return url;
    }

    public StringProperty methodProperty() {
        return method;
    }

    public StringProperty headersProperty() {
        return headers;
    }

    public StringProperty bodyProperty() {
        return body;
    }

    public ObjectProperty<ScheduleMode> scheduleModeProperty() {
        return scheduleMode;
    }

    public StringProperty cronExprProperty() {
        return cronExpr;
    }

    public StringProperty runAtProperty() {
        return runAt;
    }

    public StringProperty timezoneProperty() {
        return timezone;
    }

    public StringProperty priorityProperty() {
        return priority;
    }

    public StringProperty maxAttemptsProperty() {
        return maxAttempts;
    }

    public StringProperty timeoutSecondsProperty() {
        return timeoutSeconds;
    }

    public StringProperty catchUpProperty() {
        return catchUp;
    }

    public StringProperty idempotencyKeyProperty() {
        return idempotencyKey;
    }

    /** The problem to show under a field; empty when none (or not shown yet). */
    public ReadOnlyStringProperty errorProperty(Field field) {
        return errors.get(field).getReadOnlyProperty();
    }

    /** The next fire times of the cron expression, in the job's zone and in UTC. */
    public ObservableList<String> cronPreview() {
        return cronPreview;
    }

    public ReadOnlyStringProperty cronStatusProperty() {
        return cronStatus.getReadOnlyProperty();
    }

    /** Whether every field passes the local checks (shown or not). */
    public ReadOnlyBooleanProperty validProperty() {
        return valid.getReadOnlyProperty();
    }

    public ReadOnlyBooleanProperty submittingProperty() {
        return submitting.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty messageProperty() {
        return message.getReadOnlyProperty();
    }

    public ReadOnlyBooleanProperty failedProperty() {
        return failed.getReadOnlyProperty();
    }

    /** The tenant of a new job (sent as the {@code tenant} field); empty: the connection's, else default. */
    public StringProperty tenantProperty() {
        return tenant;
    }

    public StringProperty queueProperty() {
        return queue;
    }

    public StringProperty concurrencyKeyProperty() {
        return concurrencyKey;
    }

    public StringProperty maxConcurrentProperty() {
        return maxConcurrent;
    }

    public StringProperty overlapProperty() {
        return overlap;
    }

    /** {@code team:ops, env:prod}. */
    public StringProperty labelsProperty() {
        return labels;
    }

    /** Parent job ids ({@code depends_on}), separated by commas; empty: none. Submitting only. */
    public StringProperty parentsProperty() {
        return parents;
    }

    /** One of {@link #ON_PARENT_FAILURE_CHOICES}; sent only with parents. */
    public StringProperty onParentFailureProperty() {
        return onParentFailure;
    }

    /** A recurring job's first allowed tick, RFC 3339 ({@code start_at}); empty: none. */
    public StringProperty startAtProperty() {
        return startAt;
    }

    /** A recurring job's last allowed tick, RFC 3339 ({@code end_at}); empty: none. */
    public StringProperty endAtProperty() {
        return endAt;
    }

    /** Runs fired before the recurring job completes, 1–1000000 ({@code max_runs}); empty: no limit. */
    public StringProperty maxRunsProperty() {
        return maxRuns;
    }

    /** 0–86400 seconds each tick's run may be moved later ({@code jitter_seconds}); empty: none. */
    public StringProperty jitterSecondsProperty() {
        return jitterSeconds;
    }

    /** Dead runs in a row after which the job pauses, 1–1000 ({@code pause_after_failures}); empty: never. */
    public StringProperty pauseAfterFailuresProperty() {
        return pauseAfterFailures;
    }

    /** The debounce and throttle fields. */
    public FlowControlForm flowControl() {
        return flow;
    }

    /** Where the job's notices go ({@code notify.url}); empty: none. */
    public StringProperty notifyUrlProperty() {
        return notifyUrl;
    }

    /** Whether a dead run sends a notice ({@code notify.on} holds {@code dead}); ticked by default. */
    public javafx.beans.property.BooleanProperty notifyDeadProperty() {
        return notifyDead;
    }

    /** Whether a pause sends a notice ({@code paused}). */
    public javafx.beans.property.BooleanProperty notifyPausedProperty() {
        return notifyPaused;
    }

    /** Whether a success after dead runs sends a notice ({@code recovered}). */
    public javafx.beans.property.BooleanProperty notifyRecoveredProperty() {
        return notifyRecovered;
    }

    /** Editing: pending runs keep their priority, queue, payload and labels ({@code ?pending=keep}). */
    public javafx.beans.property.BooleanProperty keepPendingProperty() {
        return keepPending;
    }

    public ReadOnlyObjectProperty<Mode> modeProperty() {
        return mode.getReadOnlyProperty();
    }

    /** The job being edited, as the server last answered it; null when submitting a new one. */
    public ReadOnlyObjectProperty<Job> editingProperty() {
        return editing.getReadOnlyProperty();
    }

    /** {@code Submit a job} or {@code Edit job nightly (job_1)}. */
    public ReadOnlyStringProperty titleProperty() {
        return title.getReadOnlyProperty();
    }

    /** {@code Submit job} or {@code Save changes}. */
    public ReadOnlyStringProperty actionLabelProperty() {
        return actionLabel.getReadOnlyProperty();
    }

    /** After a 409 while editing: the job changed state on the server; offer to read it again. */
    public ReadOnlyBooleanProperty canReloadProperty() {
        return canReload.getReadOnlyProperty();
    }

    /** The job the server accepted last; null before. */
    public ReadOnlyObjectProperty<Job> submittedProperty() {
        return submitted.getReadOnlyProperty();
    }
}
