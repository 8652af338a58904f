package io.forgeflow.adapter.rest;

import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.job.JobDraft;

import java.io.InputStream;
import java.math.BigInteger;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Turns the body of {@code POST /api/jobs} into a {@link JobDraft}: only the fields of API.md, each of its JSON
 * type. Unknown fields are refused (a typo such as {@code cron} would otherwise submit a job that runs once, now),
 * with a suggestion; read-only fields of the response are refused as such. Rules about values (ranges, lengths,
 * time zones, cron syntax) are the domain's and the use case's.
 */
final class JobSubmission {
    static final String EXAMPLE = "{\"name\": \"nightly-report\", \"executor\": \"shell\", "
            + "\"payload\": {\"command\": \"echo hello\"}, \"cron_expr\": \"0 3 * * *\"}";

    /** The submittable fields, in the order the API documents them. */
    static final List<String> FIELDS = List.of("name", "executor", "payload", "cron_expr", "run_at", "timezone",
            "priority", "max_attempts", "timeout_seconds", "catch_up", "idempotency_key", "queue", "concurrency_key",
            "max_concurrent", "overlap", "unique_key", "unique_on_conflict", "retry",
            "labels", "start_at", "end_at", "max_runs", "jitter_seconds", "pause_after_failures", "sequence_key",
            "on_dead", "notify", "debounce", "throttle", "tenant");
    /** The fields of {@code debounce}. */
    static final List<String> DEBOUNCE_FIELDS = List.of("key", "period_seconds", "max_wait_seconds", "edge");
    /** The fields of {@code throttle}. */
    static final List<String> THROTTLE_FIELDS = List.of("key", "count", "per_seconds");
    /** The fields of {@code notify}. */
    static final List<String> NOTIFY_FIELDS = List.of("url", "on");
    /** The fields of {@code retry}. */
    static final List<String> RETRY_FIELDS = List.of("base_seconds", "max_seconds");
    private static final Set<String> READ_ONLY = Set.of("id", "status", "next_run_at", "created_at", "updated_at",
            "parents", "children", "batch_id", "fired_runs", "dead_streak", "paused_note",
            "paused_by");
    private static final String RUN_AT_FORMAT = "an RFC 3339 timestamp with a UTC offset, such as \"2026-07-01T09:30:00Z\"";

    /** Where a wrong name most likely came from. Keys are normalized (lower case, letters and digits only). */
    private static final Map<String, String> ALIASES = Map.ofEntries(
            Map.entry("cron", "cron_expr"), Map.entry("schedule", "cron_expr"), Map.entry("cronexpression", "cron_expr"),
            Map.entry("crontab", "cron_expr"), Map.entry("expression", "cron_expr"),
            Map.entry("at", "run_at"), Map.entry("when", "run_at"), Map.entry("startat", "run_at"),
            Map.entry("runtime", "run_at"), Map.entry("scheduledfor", "run_at"), Map.entry("runon", "run_at"),
            Map.entry("tz", "timezone"), Map.entry("zone", "timezone"), Map.entry("zoneid", "timezone"),
            Map.entry("retries", "max_attempts"), Map.entry("maxretries", "max_attempts"), Map.entry("attempts", "max_attempts"),
            Map.entry("timeout", "timeout_seconds"), Map.entry("timeoutsecs", "timeout_seconds"),
            Map.entry("type", "executor"), Map.entry("kind", "executor"), Map.entry("runner", "executor"),
            Map.entry("params", "payload"), Map.entry("parameters", "payload"), Map.entry("args", "payload"),
            Map.entry("data", "payload"), Map.entry("config", "payload"),
            Map.entry("command", "payload.command"), Map.entry("cmd", "payload.command"),
            Map.entry("url", "payload.url"), Map.entry("method", "payload.method"), Map.entry("headers", "payload.headers"),
            Map.entry("key", "idempotency_key"), Map.entry("idempotency", "idempotency_key"),
            Map.entry("requestid", "idempotency_key"),
            Map.entry("catchup", "catch_up"), Map.entry("misfire", "catch_up"), Map.entry("title", "name"),
            Map.entry("jobname", "name"), Map.entry("queuename", "queue"), Map.entry("concurrency", "max_concurrent"),
            Map.entry("maxconcurrency", "max_concurrent"), Map.entry("concurrencylimit", "max_concurrent"),
            Map.entry("overlappolicy", "overlap"), Map.entry("concurrencygroup", "concurrency_key"),
            Map.entry("unique", "unique_key"), Map.entry("uniqueness", "unique_key"),
            Map.entry("onconflict", "unique_on_conflict"), Map.entry("backoff", "retry"),
            Map.entry("retrypolicy", "retry"), Map.entry("label", "labels"), Map.entry("tags", "labels"),
            Map.entry("tag", "labels"), Map.entry("notifications", "notify"), Map.entry("webhook", "notify"),
            Map.entry("notices", "notify"), Map.entry("alerts", "notify"));

    private JobSubmission() {
    }

    static JobDraft read(InputStream body) {
        return toDraft(JsonBody.readObject(body, EXAMPLE));
    }

    /** A submission with its workflow fields ({@code depends_on}, {@code on_parent_failure}). */
    record WithParents(JobDraft draft, io.forgeflow.domain.workflow.Dependencies dependencies, String tenant) {
    }

    /** The fields of a job with parents, beside those of {@link #FIELDS}; and {@code tenant}, the job's owner. */
    static final List<String> WORKFLOW_FIELDS = List.of("depends_on", "on_parent_failure");

    /**
     * The {@code tenant} field of a submission, taken out of {@code body}: null when absent or null, else the name as
     * given (checked by {@link Tenancy}); 422 when it is not a string.
     */
    static String takeTenant(Map<String, Object> body, String prefix) {
        Object tenant = body.remove("tenant");
        if (tenant != null && !(tenant instanceof String)) {
            throw new ValidationException(prefix + "tenant", prefix + "tenant must be a string, a tenant name such as "
                    + "\"acme\", not " + kind(tenant));
        }
        return (String) tenant;
    }

    static WithParents readWithParents(InputStream body) {
        return withParents(JsonBody.readObject(body, EXAMPLE), "", java.util.Set.of());
    }

    /**
     * A job body that may have {@code depends_on} and {@code on_parent_failure} ({@code refs}: names its
     * {@code depends_on} may use besides job ids; {@code prefix}: of every field an error names, such as "jobs[3].").
     */
    static WithParents withParents(Map<String, Object> body, String prefix, java.util.Set<String> refs) {
        Map<String, Object> rest = new java.util.LinkedHashMap<>(body);
        String tenant = takeTenant(rest, prefix);
        Object dependsOn = rest.remove("depends_on");
        Object policy = rest.remove("on_parent_failure");
        if (dependsOn != null && !(dependsOn instanceof List)) {
            throw new ValidationException(prefix + "depends_on", prefix + "depends_on must be a JSON array of job ids, "
                    + "such as [\"0190a1b2-...\"], not " + kind(dependsOn));
        }
        if (policy != null && !(policy instanceof String)) {
            throw new ValidationException(prefix + "on_parent_failure", prefix + "on_parent_failure must be a string: "
                    + "\"cancel\", \"run\" or \"wait\", not " + kind(policy));
        }
        JobDraft draft = toDraft(rest);
        return new WithParents(draft, io.forgeflow.domain.workflow.Dependencies.validate((List<?>) dependsOn,
                (String) policy, refs, prefix), tenant);
    }

    static final String PATCH_EXAMPLE = "{\"cron_expr\": \"0 4 * * *\", \"priority\": 2}";

    /**
     * The body of {@code PATCH /api/jobs/{id}}: the fields to change (JobPatch.MUTABLE), each of its JSON type; a read-only
     * or unknown field is refused, as on submission.
     */
    static io.forgeflow.domain.job.JobPatch readPatch(InputStream body) {
        Map<String, Object> fields = JsonBody.readObject(body, PATCH_EXAMPLE);
        for (String key : fields.keySet()) {
            if (READ_ONLY.contains(key)) {
                throw new ValidationException(key, "'" + key + "' is set by the server and cannot be changed: leave it "
                        + "out of the request");
            }
            if (!io.forgeflow.domain.job.JobPatch.MUTABLE.contains(key)
                    && !io.forgeflow.domain.job.JobPatch.FIXED.contains(key)) {
                String suggestion = suggest(key);
                throw new ValidationException(JsonBody.shorten(key), "unknown field '" + JsonBody.shorten(key) + "'"
                        + (suggestion != null && io.forgeflow.domain.job.JobPatch.MUTABLE.contains(suggestion)
                        ? " — did you mean " + suggestion + "?" : "") + ": a PATCH may change "
                        + String.join(", ", io.forgeflow.domain.job.JobPatch.MUTABLE));
            }
        }
        return new io.forgeflow.domain.job.JobPatch(toDraft(fields), fields.keySet());
    }

    static JobDraft toDraft(Map<String, Object> body) {
        for (String key : body.keySet()) {
            if (READ_ONLY.contains(key)) {
                throw new ValidationException(key, "'" + key + "' is set by the server and cannot be submitted: "
                        + "leave it out of the request");
            }
            if (!FIELDS.contains(key)) {
                throw new ValidationException(JsonBody.shorten(key), unknownField(key));
            }
        }
        Map<String, Object> retry = retry(body);
        return new JobDraft(
                string(body, "name", "a short name such as \"nightly-report\""),
                string(body, "executor", "an executor name such as \"shell\" or \"http\""),
                payload(body),
                string(body, "cron_expr", "a cron expression such as \"*/5 * * * *\""),
                timestamp(body, "run_at"),
                string(body, "timezone", "an IANA time zone such as \"Europe/Berlin\""),
                integer(body, "priority", 1, 9),
                integer(body, "max_attempts", 1, 100),
                integer(body, "timeout_seconds", 1, 86_400),
                string(body, "catch_up", "\"skip\" or \"once\""),
                string(body, "idempotency_key", "a string of up to 200 characters"),
                string(body, "queue", "a queue name such as \"reports\""),
                string(body, "concurrency_key", "a key such as \"billing\" shared by the jobs that must not run "
                        + "more than max_concurrent runs at once"),
                integer(body, "max_concurrent", 1, JobDraft.MAX_CONCURRENT_LIMIT),
                string(body, "overlap", "\"allow\", \"skip\", \"queue_one\" or \"cancel_running\""),
                string(body, "unique_key", "a key such as \"sync-customer-42\" that only one live job may hold"),
                string(body, "unique_on_conflict", "\"reject\" or \"return_existing\""),
                integer(retry, "retry.base_seconds", "base_seconds", 1, 86_400),
                integer(retry, "retry.max_seconds", "max_seconds", 1, 86_400), labels(body), schedule(body),
                string(body, "sequence_key", "a key such as \"order-42\" whose runs start one at a time, in order"),
                string(body, "on_dead", "\"block\" or \"continue\""), notices(body), debounce(body),
                throttle(body));
    }

    static final String DEBOUNCE_EXAMPLE = "{\"key\": \"user-42\", \"period_seconds\": 30, \"edge\": \"trailing\"}";
    static final String THROTTLE_EXAMPLE = "{\"key\": \"partner-api:account-7\", \"count\": 5, \"per_seconds\": 2}";

    /** {@code debounce}: an object of {@link #DEBOUNCE_FIELDS}; null or absent: none. Values checked by the domain. */
    static io.forgeflow.domain.job.Debounce debounce(Map<String, Object> body) {
        Map<String, Object> d = object(body, "debounce", DEBOUNCE_FIELDS, DEBOUNCE_EXAMPLE,
                "key, period_seconds, max_wait_seconds and edge");
        if (d == null) {
            return null;
        }
        return new io.forgeflow.domain.job.Debounce(
                string(d, "debounce.key", "key", "a key such as \"user-42\" the submissions to collapse share"),
                integer(d, "debounce.period_seconds", "period_seconds", 1, io.forgeflow.domain.job.Debounce.MAX_PERIOD_SECONDS),
                integer(d, "debounce.max_wait_seconds", "max_wait_seconds", 1,
                        io.forgeflow.domain.job.Debounce.MAX_WAIT_SECONDS),
                string(d, "debounce.edge", "edge", "\"trailing\" or \"leading\""));
    }

    /** {@code throttle}: an object of {@link #THROTTLE_FIELDS}; null or absent: none. Values checked by the domain. */
    static io.forgeflow.domain.job.Throttle throttle(Map<String, Object> body) {
        Map<String, Object> t = object(body, "throttle", THROTTLE_FIELDS, THROTTLE_EXAMPLE,
                "key, count and per_seconds");
        if (t == null) {
            return null;
        }
        return new io.forgeflow.domain.job.Throttle(
                string(t, "throttle.key", "key", "a key such as \"partner-api:account-7\" whose runs share the limit"),
                integer(t, "throttle.count", "count", 1, io.forgeflow.domain.job.Throttle.MAX_COUNT),
                integer(t, "throttle.per_seconds", "per_seconds", 1, io.forgeflow.domain.job.Throttle.MAX_PER_SECONDS));
    }

    /** A nested object of known fields: null when absent, 422 naming the field when not an object or unknown. */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> object(Map<String, Object> body, String field, List<String> fields,
                                              String example, String has) {
        Object v = body.get(field);
        if (v == null) {
            return null;
        }
        if (!(v instanceof Map)) {
            throw new ValidationException(field, field + " must be a JSON object such as " + example + ", not "
                    + kind(v));
        }
        Map<String, Object> m = (Map<String, Object>) v;
        for (String key : m.keySet()) {
            if (!fields.contains(key)) {
                throw new ValidationException(field + "." + JsonBody.shorten(key), "unknown field '" + field + "."
                        + JsonBody.shorten(key) + "': " + field + " has " + has + ", e.g. " + example);
            }
        }
        return m;
    }

    static final String NOTIFY_EXAMPLE = "{\"url\": \"https://hooks.example.com/forgeflow\", \"on\": [\"dead\", "
            + "\"paused\", \"recovered\"]}";

    /**
     * {@code notify}: an object with {@code url} (a string) and {@code on} (an array of strings), nothing else; null or
     * absent: none. The values are checked by the domain (Notify).
     */
    @SuppressWarnings("unchecked")
    private static io.forgeflow.domain.job.Notify notices(Map<String, Object> body) {
        Object v = body.get("notify");
        if (v == null) {
            return null;
        }
        if (!(v instanceof Map)) {
            throw new ValidationException("notify", "notify must be a JSON object such as " + NOTIFY_EXAMPLE + ", not "
                    + kind(v));
        }
        Map<String, Object> notify = (Map<String, Object>) v;
        for (String key : notify.keySet()) {
            if (!NOTIFY_FIELDS.contains(key)) {
                throw new ValidationException("notify." + JsonBody.shorten(key), "unknown field 'notify."
                        + JsonBody.shorten(key) + "': notify has url (where the notices are POSTed) and on (the "
                        + "events: dead, paused, recovered)");
            }
        }
        Object url = notify.get("url");
        if (url != null && !(url instanceof String)) {
            throw new ValidationException("notify.url", "notify.url must be a string such as "
                    + "\"https://hooks.example.com/forgeflow\", not " + kind(url));
        }
        Object on = notify.get("on");
        if (on != null && !(on instanceof List)) {
            throw new ValidationException("notify.on", "notify.on must be an array of events such as [\"dead\", "
                    + "\"paused\"], not " + kind(on));
        }
        List<String> events = null;
        if (on != null) {
            events = new java.util.ArrayList<>();
            for (Object event : (List<Object>) on) {
                if (!(event instanceof String)) {
                    throw new ValidationException("notify.on", "notify.on must list events as strings (dead, paused, "
                            + "recovered), not " + kind(event));
                }
                events.add((String) event);
            }
        }
        return new io.forgeflow.domain.job.Notify((String) url, events);
    }

    /** start_at, end_at, max_runs, jitter_seconds, pause_after_failures (issue 45); ranges are the domain's. */
    private static io.forgeflow.domain.job.ScheduleControls schedule(Map<String, Object> body) {
        if (!body.containsKey("start_at") && !body.containsKey("end_at") && !body.containsKey("max_runs")
                && !body.containsKey("jitter_seconds") && !body.containsKey("pause_after_failures")) {
            return null;
        }
        return new io.forgeflow.domain.job.ScheduleControls(timestamp(body, "start_at"), timestamp(body, "end_at"),
                integer(body, "max_runs", 1, io.forgeflow.domain.job.ScheduleControls.MAX_RUNS_LIMIT),
                integer(body, "jitter_seconds", 0, io.forgeflow.domain.job.ScheduleControls.MAX_JITTER_SECONDS),
                integer(body, "pause_after_failures", 1,
                        io.forgeflow.domain.job.ScheduleControls.MAX_PAUSE_AFTER_FAILURES));
    }

    static final String PAUSE_EXAMPLE = "{\"note\": \"waiting for the vendor's fix\"}";

    /** The optional body of {@code POST /api/jobs/{id}/pause}: {@code {"note": "..."}}; empty: no note. */
    static String readPauseNote(InputStream body) {
        byte[] bytes;
        try {
            bytes = body == null ? new byte[0] : body.readNBytes(16 * 1024 + 1);
        } catch (java.io.IOException e) {
            throw ApiException.badRequest("the request body could not be read completely (" + e.getMessage()
                    + "): send it again");
        }
        if (bytes.length == 0 || new String(bytes, java.nio.charset.StandardCharsets.UTF_8).isBlank()) {
            return null;
        }
        Map<String, Object> fields = JsonBody.readObject(new java.io.ByteArrayInputStream(bytes), PAUSE_EXAMPLE,
                16 * 1024);
        for (String key : fields.keySet()) {
            if (!key.equals("note")) {
                throw new ValidationException(JsonBody.shorten(key), "unknown field '" + JsonBody.shorten(key)
                        + "': a pause takes only note, such as " + PAUSE_EXAMPLE);
            }
        }
        return string(fields, "note", "why the job is paused, at most 500 characters");
    }

    /** {@code payload}: an object of at most {@link JobDraft#MAX_PAYLOAD_BYTES} as compact JSON, on every entry point. */
    private static Map<String, Object> payload(Map<String, Object> body) {
        Map<String, Object> payload = object(body, "payload");
        if (payload != null) {
            long bytes;
            try {
                bytes = PAYLOAD_JSON.writeValueAsBytes(payload).length;
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                throw new ValidationException("payload", "payload could not be read as JSON: " + e.getOriginalMessage());
            }
            if (bytes > JobDraft.MAX_PAYLOAD_BYTES) {
                throw new ValidationException("payload", "payload is " + bytes + " bytes of JSON, more than the "
                        + JobDraft.MAX_PAYLOAD_BYTES + " a job may hold: keep large data elsewhere and pass a reference");
            }
        }
        return payload;
    }

    private static final com.fasterxml.jackson.databind.ObjectMapper PAYLOAD_JSON =
            new com.fasterxml.jackson.databind.ObjectMapper();

    /** {@code labels}: an object (its entries are checked by the domain's Labels rules). */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> labels(Map<String, Object> body) {
        Object v = body.get("labels");
        if (v == null || v instanceof Map) {
            return (Map<String, Object>) v;
        }
        throw new ValidationException("labels", "labels must be a JSON object of strings, such as "
                + "{\"team\": \"billing\", \"env\": \"prod\"}, not " + kind(v));
    }

    /**
     * {@code retry}: an object with {@code base_seconds} and {@code max_seconds} only (an unknown key is refused, as
     * unknown fields are); absent or null is an empty map (the node's defaults).
     */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> retry(Map<String, Object> body) {
        Object v = body.get("retry");
        if (v == null) {
            return Map.of();
        }
        if (!(v instanceof Map)) {
            throw new ValidationException("retry", "retry must be a JSON object such as "
                    + "{\"base_seconds\": 10, \"max_seconds\": 600}, not " + kind(v));
        }
        Map<String, Object> retry = (Map<String, Object>) v;
        for (String key : retry.keySet()) {
            if (!RETRY_FIELDS.contains(key)) {
                throw new ValidationException("retry." + JsonBody.shorten(key), "unknown field 'retry."
                        + JsonBody.shorten(key) + "': retry has base_seconds (the first retry waits up to it) and "
                        + "max_seconds (the cap of the doubling waits), each 1 to 86400");
            }
        }
        return retry;
    }

    private static String string(Map<String, Object> body, String field, String example) {
        return string(body, field, field, example);
    }

    /** As {@link #string(Map, String, String)}, for the value at {@code key} reported as {@code field}. */
    private static String string(Map<String, Object> body, String field, String key, String example) {
        Object v = body.get(key);
        if (v == null || v instanceof String) {
            return (String) v;
        }
        throw new ValidationException(field, field + " must be a string (" + example + "), not " + kind(v));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> object(Map<String, Object> body, String field) {
        Object v = body.get(field);
        if (v == null || v instanceof Map) {
            return (Map<String, Object>) v;
        }
        throw new ValidationException(field, field + " must be a JSON object holding the executor's settings, "
                + "such as {\"command\": \"echo hello\"}, not " + kind(v));
    }

    /**
     * A whole number. Values that do not fit an int are out of range for every field; the range in the message
     * repeats the domain's rule ({@link JobDraft#validate()} checks values that do fit).
     */
    private static Integer integer(Map<String, Object> body, String field, int min, int max) {
        return integer(body, field, field, min, max);
    }

    /** As {@link #integer(Map, String, int, int)}, for the value at {@code key} reported as {@code field}. */
    private static Integer integer(Map<String, Object> body, String field, String key, int min, int max) {
        Object v = body.get(key);
        if (v == null || v instanceof Integer) {
            return (Integer) v;
        }
        if (v instanceof Long || v instanceof BigInteger) {
            throw new ValidationException(field, field + " must be between " + min + " and " + max + ", was "
                    + JsonBody.shorten(v.toString()));
        }
        throw new ValidationException(field, field + " must be a whole number from " + min + " to " + max + ", not "
                + kind(v));
    }

    private static Instant timestamp(Map<String, Object> body, String field) {
        Object v = body.get(field);
        if (v == null) {
            return null;
        }
        if (!(v instanceof String)) {
            throw new ValidationException(field, field + " must be " + RUN_AT_FORMAT + ", not " + kind(v));
        }
        String text = ((String) v).trim();
        try {
            OffsetDateTime parsed = OffsetDateTime.parse(rfc3339ToIso(text), DateTimeFormatter.ISO_OFFSET_DATE_TIME);
            if (parsed.getYear() < 1 || parsed.getYear() > 9999) {
                throw new ValidationException(field, field + " must be within the years 0001 to 9999, was '"
                        + JsonBody.shorten(text) + "'");
            }
            // the database keeps microseconds; cutting here makes an idempotent replay compare equal to what was stored
            return parsed.toInstant().truncatedTo(ChronoUnit.MICROS);
        } catch (DateTimeException e) {
            throw new ValidationException(field, field + " must be " + RUN_AT_FORMAT + ", was '"
                    + JsonBody.shorten(text) + "'");
        }
    }

    /** RFC 3339 also allows a lower-case {@code t}/{@code z}, and a space between date and time. */
    private static String rfc3339ToIso(String text) {
        if (text.length() < 11) {
            return text;
        }
        char sep = text.charAt(10);
        String s = sep == ' ' || sep == 't' ? text.substring(0, 10) + 'T' + text.substring(11) : text;
        return s.endsWith("z") ? s.substring(0, s.length() - 1) + 'Z' : s;
    }

    static String kind(Object v) {
        if (v instanceof String) {
            return "a string";
        }
        if (v instanceof Number) {
            return "a number (" + JsonBody.shorten(v.toString()) + ")";
        }
        if (v instanceof Boolean) {
            return "a boolean (" + v + ")";
        }
        if (v instanceof Map) {
            return "an object";
        }
        if (v instanceof List) {
            return "an array";
        }
        return "null";
    }

    static String unknownField(String key) {
        String shown = JsonBody.shorten(key);
        String suggestion = suggest(key);
        if (suggestion == null) {
            return "unknown field '" + shown + "': a job has " + String.join(", ", FIELDS);
        }
        if (suggestion.startsWith("payload.")) {
            return "unknown field '" + shown + "' — did you mean " + suggestion + "? Executor settings go inside "
                    + "payload, e.g. {\"payload\": {\"" + suggestion.substring("payload.".length()) + "\": ...}}";
        }
        return "unknown field '" + shown + "' — did you mean " + suggestion + "?";
    }

    /** The field the client most likely meant, or null. */
    static String suggest(String key) {
        String k = normalize(key);
        for (String f : FIELDS) {
            if (normalize(f).equals(k)) {
                return f;
            }
        }
        String alias = ALIASES.get(k);
        if (alias != null) {
            return alias;
        }
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String f : FIELDS) {
            int d = distance(k, normalize(f));
            if (d < bestDistance) {
                best = f;
                bestDistance = d;
            }
        }
        return bestDistance <= 2 && k.length() > 2 ? best : null;
    }

    private static String normalize(String s) {
        StringBuilder sb = new StringBuilder();
        for (char c : s.toLowerCase(Locale.ROOT).toCharArray()) {
            if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
                sb.append(c);
            }
        }
        return sb.toString();
    }

    /** Levenshtein distance (short strings only: keys are cut to 60 characters first). */
    private static int distance(String a, String b) {
        a = a.length() > 60 ? a.substring(0, 60) : a;
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }
}
