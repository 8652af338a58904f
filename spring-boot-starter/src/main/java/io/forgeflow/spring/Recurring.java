package io.forgeflow.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A recurring job that runs this method on a cron schedule. The method is a handler too: named by its
 * {@link ForgeFlowHandler} when it has one, else by {@link #name()}. At start, the application reconciles the
 * schedules it declares with the database: a new one is created, a changed one updated (its next fire time
 * recomputed when the cron or zone changed), and one whose annotation is gone is paused. Two replicas starting at
 * once create one job, never two: the job is keyed by {@code recurring:<owner>:<name>}
 * ({@code forgeflow.recurring-owner}, default {@code spring.application.name}).
 *
 * <pre>{@code
 * @Recurring(name = "nightly-report", cron = "0 2 * * *", zone = "Europe/Paris", overlap = Recurring.Overlap.SKIP)
 * void nightlyReport() { ... }
 * }</pre>
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Recurring {
    /** The job's name, unique among this application's recurring jobs (1 to 150 characters). */
    String name();

    /** 5-field Unix cron ({@code "0 2 * * *"}), 6 fields with seconds first, or a macro such as {@code @daily}. */
    String cron();

    /** The time zone the cron is read in (an IANA name such as {@code Europe/Paris}). */
    String zone() default "UTC";

    /** What a tick does while the previous run still runs. */
    Overlap overlap() default Overlap.ALLOW;

    /** Ticks missed while no scheduler ran: skipped, or one run for them all. */
    CatchUp catchUp() default CatchUp.SKIP;

    /** The handler's args for every run, as a JSON object. */
    String args() default "{}";

    String queue() default "default";

    /** 1 (highest) to 9. */
    int priority() default 5;

    int maxAttempts() default 3;

    int timeoutSeconds() default 300;

    /** The API's {@code overlap} values. */
    enum Overlap {
        ALLOW("allow"), SKIP("skip"), QUEUE_ONE("queue_one"), CANCEL_RUNNING("cancel_running");

        private final String value;

        Overlap(String value) {
            this.value = value;
        }

        /** As the API and the {@code jobs} table spell it. */
        public String value() {
            return value;
        }
    }

    /** The API's {@code catch_up} values. */
    enum CatchUp {
        SKIP("skip"), ONCE("once");

        private final String value;

        CatchUp(String value) {
            this.value = value;
        }

        /** As the API and the {@code jobs} table spell it. */
        public String value() {
            return value;
        }
    }
}
