package io.forgeflow.admin.jobs;

import io.forgeflow.admin.jobs.JobFormViewModel.Field;
import io.forgeflow.admin.jobs.JobFormViewModel.ScheduleMode;
import io.forgeflow.client.Debounce;
import io.forgeflow.client.Job;
import io.forgeflow.client.JobUpdate;
import io.forgeflow.client.Throttle;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The job form's flow control (README "Flow control"), part of {@link JobFormViewModel} kept in its own class: a
 * debounce (a new job that runs once, now; it cannot change afterwards) and a throttle (set on a new job, changed or
 * removed on an edit). Checked as the server checks them; its problems show on {@link Field#DEBOUNCE} and
 * {@link Field#THROTTLE}, where the server's 422 naming {@code debounce.*} or {@code throttle.*} shows too.
 */
public final class FlowControlForm {
    /** {@code debounce.edge} choices; trailing is the server's default. */
    public static final List<String> EDGES = List.of(Debounce.TRAILING, Debounce.LEADING);
    static final int MAX_KEY = 200;

    private final StringProperty debounceKey;
    private final StringProperty debouncePeriod;
    private final StringProperty debounceMaxWait;
    private final StringProperty debounceEdge;
    private final StringProperty throttleKey;
    private final StringProperty throttleCount;
    private final StringProperty throttlePer;

    FlowControlForm(Object bean) {
        debounceKey = new SimpleStringProperty(bean, "debounceKey", "");
        debouncePeriod = new SimpleStringProperty(bean, "debouncePeriod", "");
        debounceMaxWait = new SimpleStringProperty(bean, "debounceMaxWait", "");
        debounceEdge = new SimpleStringProperty(bean, "debounceEdge", Debounce.TRAILING);
        throttleKey = new SimpleStringProperty(bean, "throttleKey", "");
        throttleCount = new SimpleStringProperty(bean, "throttleCount", "");
        throttlePer = new SimpleStringProperty(bean, "throttlePer", "");
    }

    /** Each property with the field its problems show on. */
    Map<StringProperty, Field> watched() {
        Map<StringProperty, Field> m = new LinkedHashMap<>();
        for (StringProperty p : List.of(debounceKey, debouncePeriod, debounceMaxWait, debounceEdge)) {
            m.put(p, Field.DEBOUNCE);
        }
        for (StringProperty p : List.of(throttleKey, throttleCount, throttlePer)) {
            m.put(p, Field.THROTTLE);
        }
        return m;
    }

    /** Adds the problems of the debounce (when submitting) and the throttle to {@code p}. */
    void check(Map<Field, String> p, boolean submitting, ScheduleMode schedule) {
        if (submitting && debounceGiven()) {
            String problem = debounceProblem(schedule);
            if (problem != null) {
                p.put(Field.DEBOUNCE, problem);
            }
        }
        if (throttleGiven()) {
            String problem = throttleProblem();
            if (problem != null) {
                p.put(Field.THROTTLE, problem);
            }
        }
    }

    private boolean debounceGiven() {
        return !value(debounceKey).isEmpty() || !value(debouncePeriod).isEmpty() || !value(debounceMaxWait).isEmpty();
    }

    private boolean throttleGiven() {
        return !value(throttleKey).isEmpty() || !value(throttleCount).isEmpty() || !value(throttlePer).isEmpty();
    }

    private String debounceProblem(ScheduleMode schedule) {
        String key = keyProblem(value(debounceKey), "the key the submissions to collapse share, e.g. user-42");
        if (key != null) {
            return "Debounce key: " + key;
        }
        if (schedule != ScheduleMode.NOW) {
            return "A debounce applies to a job that runs once, now: choose \"" + ScheduleMode.NOW + "\" or leave the "
                    + "debounce key empty.";
        }
        Integer period = whole(debouncePeriod);
        if (period == null || period < 1 || period > 86_400) {
            return "Debounce period: 1 to 86400 seconds a run waits for another submission with the key.";
        }
        String edge = value(debounceEdge).isEmpty() ? Debounce.TRAILING : value(debounceEdge);
        if (!EDGES.contains(edge)) {
            return "Debounce edge: trailing or leading.";
        }
        if (!value(debounceMaxWait).isEmpty()) {
            if (edge.equals(Debounce.LEADING)) {
                return "Max wait applies to a trailing debounce only (a leading run starts at once): leave it empty.";
            }
            Integer wait = whole(debounceMaxWait);
            if (wait == null || wait < period || wait > 604_800) {
                return "Debounce max wait: " + period + " (the period) to 604800 seconds after the first submission; "
                        + "empty: 10 periods.";
            }
        }
        return null;
    }

    private String throttleProblem() {
        String key = keyProblem(value(throttleKey), "the key whose runs share the limit, e.g. partner-api:account-7");
        if (key != null) {
            return "Throttle key: " + key;
        }
        Integer count = whole(throttleCount);
        if (count == null || count < 1 || count > 100_000) {
            return "Throttle starts: 1 to 100000 runs with the key per window.";
        }
        Integer per = whole(throttlePer);
        if (per == null || per < 1 || per > 86_400) {
            return "Throttle window: 1 to 86400 seconds.";
        }
        return null;
    }

    private static String keyProblem(String key, String what) {
        if (key.isEmpty()) {
            return "required: " + what + ".";
        }
        if (key.length() > MAX_KEY) {
            return "at most " + MAX_KEY + " characters (this has " + key.length() + ").";
        }
        if (key.chars().anyMatch(Character::isISOControl)) {
            return "no control characters.";
        }
        return null;
    }

    /** The debounce to submit; null when the key is empty. Only when {@link #check} found nothing. */
    Debounce debounce() {
        if (value(debounceKey).isEmpty()) {
            return null;
        }
        String edge = value(debounceEdge);
        return new Debounce(value(debounceKey), whole(debouncePeriod), whole(debounceMaxWait),
                edge.isEmpty() || edge.equals(Debounce.TRAILING) ? null : edge);
    }

    /** The throttle to submit; null when the key is empty. Only when {@link #check} found nothing. */
    Throttle throttle() {
        return value(throttleKey).isEmpty() ? null
                : new Throttle(value(throttleKey), whole(throttleCount), whole(throttlePer));
    }

    /** Fills the fields with the job's debounce (shown, fixed) and throttle. */
    void fill(Job job) {
        Debounce d = job.debounce();
        debounceKey.set(d == null ? "" : d.key());
        debouncePeriod.set(d == null || d.periodSeconds() == null ? "" : d.periodSeconds().toString());
        debounceMaxWait.set(d == null || d.maxWaitSeconds() == null ? "" : d.maxWaitSeconds().toString());
        debounceEdge.set(d == null || d.edge() == null ? Debounce.TRAILING : d.edge());
        Throttle t = job.throttle();
        throttleKey.set(t == null ? "" : t.key());
        throttleCount.set(t == null || t.count() == null ? "" : t.count().toString());
        throttlePer.set(t == null || t.perSeconds() == null ? "" : t.perSeconds().toString());
    }

    /** Adds the throttle to {@code u} when it differs from the job's: replaced whole, an emptied key removes it. */
    void changes(Job original, JobUpdate u) {
        Throttle now = throttle();
        if (!Objects.equals(now, original.throttle())) {
            if (now == null) {
                u.noThrottle();
            } else {
                u.throttle(now.key(), now.count(), now.perSeconds());
            }
        }
    }

    void reset() {
        debounceKey.set("");
        debouncePeriod.set("");
        debounceMaxWait.set("");
        debounceEdge.set(Debounce.TRAILING);
        throttleKey.set("");
        throttleCount.set("");
        throttlePer.set("");
    }

    /** The form field a server field such as {@code throttle.count} names; null when not one of these. */
    static Field fieldOf(String apiField) {
        return apiField.startsWith("debounce") ? Field.DEBOUNCE : apiField.startsWith("throttle") ? Field.THROTTLE
                : null;
    }

    private static String value(StringProperty p) {
        return p.get() == null ? "" : p.get().strip();
    }

    private static Integer whole(StringProperty p) {
        try {
            return value(p).isEmpty() ? null : Integer.valueOf(value(p));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** Submissions with this key within the period collapse into one run; empty: no debounce. */
    public StringProperty debounceKeyProperty() {
        return debounceKey;
    }

    /** 1–86400 seconds ({@code debounce.period_seconds}). */
    public StringProperty debouncePeriodProperty() {
        return debouncePeriod;
    }

    /** Trailing only: the period to 604800 seconds; empty: 10 periods. */
    public StringProperty debounceMaxWaitProperty() {
        return debounceMaxWait;
    }

    /** One of {@link #EDGES}. */
    public StringProperty debounceEdgeProperty() {
        return debounceEdge;
    }

    /** Runs sharing this key share the limit; empty: no throttle (on an edit: removes it). */
    public StringProperty throttleKeyProperty() {
        return throttleKey;
    }

    /** 1–100000 starts per window. */
    public StringProperty throttleCountProperty() {
        return throttleCount;
    }

    /** The window, 1–86400 seconds. */
    public StringProperty throttlePerProperty() {
        return throttlePer;
    }
}
