package io.forgeflow.admin.jobs;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.forgeflow.admin.cluster.ClusterClient;
import io.forgeflow.admin.support.Async;
import io.forgeflow.admin.support.Navigator;
import io.forgeflow.admin.support.Problems;
import io.forgeflow.admin.support.Times;
import io.forgeflow.client.ForgeFlowApiException;
import io.forgeflow.client.Job;
import io.forgeflow.client.JobRequest;
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
 * The submit form. Its checks mirror the server's (API.md): name 1–200 characters, an executor, priority 1–9,
 * max_attempts 1–100, timeout_seconds 1–86400, idempotency key at most 200 characters, a valid IANA time zone, and a
 * cron expression checked as it is typed, with its next five fire times. A field shows its problem once it was edited
 * or a submit was tried. The server has the last word: its 422 message is shown on the field it names.
 */
public final class JobFormViewModel {
    /** The form's fields, each with its own error text. */
    public enum Field { NAME, EXECUTOR, COMMAND, URL, METHOD, HEADERS, BODY, CRON, RUN_AT, TIMEZONE, PRIORITY,
        MAX_ATTEMPTS, TIMEOUT, CATCH_UP, IDEMPOTENCY_KEY }

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
    static final int PREVIEW_SIZE = 5;
    private static final DateTimeFormatter RUN_AT_FORMAT = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm[:ss]");

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
        scheduleMode.addListener((o, a, b) -> validate());
        validate();
    }

    private StringProperty text(String property, String initial) {
        return new SimpleStringProperty(this, property, initial);
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
            case CRON -> checkCron(p, zone);
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
        if (value(idempotencyKey).length() > 200) {
            p.put(Field.IDEMPOTENCY_KEY, "At most 200 characters (this has " + value(idempotencyKey).length() + ").");
        }
        return p;
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
                .idempotencyKey(value(idempotencyKey).isEmpty() ? null : value(idempotencyKey));
        switch (scheduleMode.get()) {
            case CRON -> b.cron(value(cronExpr));
            case ONCE -> b.runAt(parseRunAt(value(runAt), zone));
            default -> { }
        }
        return b.build();
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

    /** Sends the job. Problems found here are shown on their fields; the server's 422 is shown on the field it names. */
    public void submit() {
        if (submitting.get()) {
            return;
        }
        attempted = true;
        if (!validate()) {
            report("Fix the fields marked in red, then submit again.");
            return;
        }
        JobRequest request = request();
        submitting.set(true);
        message.set("Submitting " + request.name() + "…");
        failed.set(false);
        async.run(() -> cluster.submit(request), (SubmitResult result) -> {
            submitting.set(false);
            Job job = result.job();
            submitted.set(job);
            failed.set(false);
            message.set(result.created()
                    ? "Created job " + job.name() + " (" + job.id() + "), next run " + times.local(job.nextRunAt()) + "."
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
            default -> null;
        };
    }

    private void report(String text) {
        failed.set(true);
        message.set(text);
    }

    /** Clears the form for another job. */
    public void reset() {
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

    /** The job the server accepted last; null before. */
    public ReadOnlyObjectProperty<Job> submittedProperty() {
        return submitted.getReadOnlyProperty();
    }
}
