package io.forgeflow.embedded;

import io.forgeflow.domain.execution.Cancellation;
import io.forgeflow.domain.execution.ExecutionResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * One attempt of a handler, run on a thread of its own while the worker's slot waits for it: the slot waits until the
 * handler ends, the attempt's timeout passes or the worker cancels it. A timeout or a cancellation cancels the
 * handler's {@link JobCancellation} and interrupts its thread, then waits up to the interrupt grace for it to end; a
 * handler that does not is reported (logged at ERROR, {@link WorkerMetrics#handlerIgnoredInterruption}) and its
 * attempt ends without it: a thread cannot be killed, the slot and the run must not wait for ever.
 */
final class HandlerAttempt {
    private static final Logger LOG = LoggerFactory.getLogger(HandlerAttempt.class);
    private static final int TRACE_LINES = 40;

    private final JobHandler handler;
    private final AttemptContext job;
    private final Cancellation workerCancellation;
    private final Duration interruptGrace;
    private final WorkerMetrics metrics;
    private final java.util.concurrent.atomic.AtomicInteger leftBehind;

    /** Guards the fields below; notified when the handler ends or the worker cancels. */
    private final Object lock = new Object();
    private Thread runner;
    private boolean started;
    private boolean ended;
    private Throwable thrown;
    private String cancelledBecause;
    private boolean abandoned;

    /**
     * @param leftBehind counts the handlers whose attempt was ended without them and that still run: raised when this
     *                   one is left behind, lowered when it ends after all
     */
    HandlerAttempt(JobHandler handler, AttemptContext job, Cancellation workerCancellation, Duration interruptGrace,
                   WorkerMetrics metrics, java.util.concurrent.atomic.AtomicInteger leftBehind) {
        this.handler = handler;
        this.job = job;
        this.workerCancellation = workerCancellation;
        this.interruptGrace = interruptGrace;
        this.metrics = metrics;
        this.leftBehind = leftBehind;
    }

    /** Runs the attempt on one of {@code threads} and waits for its result (see the class comment). */
    ExecutionResult run(Executor threads) {
        Map<String, String> mdc = MDC.getCopyOfContextMap();
        workerCancellation.onCancel(() -> {
            synchronized (lock) {
                if (cancelledBecause == null) {
                    cancelledBecause = workerCancellation.reason();
                }
                lock.notifyAll();
            }
        });
        try {
            threads.execute(() -> body(mdc));
        } catch (RejectedExecutionException e) {
            return ExecutionResult.cancelled("", "the worker is stopping: the handler was not started");
        }
        long deadline = System.nanoTime() + job.timeout().toNanos();
        boolean timedOut = false;
        String stopReason;
        synchronized (lock) {
            try {
                while (!ended && cancelledBecause == null) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        timedOut = true;
                        break;
                    }
                    TimeUnit.NANOSECONDS.timedWait(lock, left);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // the worker's slot pool is stopping: stop the handler too
                if (cancelledBecause == null) {
                    cancelledBecause = "the worker is stopping";
                }
            }
            if (ended && !timedOut && cancelledBecause == null) {
                return outcome();
            }
            stopReason = timedOut ? "timed out after " + seconds(job.timeout()) : cancelledBecause;
        }
        job.cancellation().cancel(stopReason);
        boolean stopped = interruptAndWait();
        String note = stopped ? "" : "; the handler ignored the interruption and was still running "
                + seconds(interruptGrace) + " later (its thread was left behind)";
        if (timedOut) {
            return ExecutionResult.timedOut(job.outputText(), stopReason + ": the handler was interrupted" + note);
        }
        return ExecutionResult.cancelled(job.outputText(), stopReason + note);
    }

    /** Interrupts the handler's thread and waits up to the grace for it to end; false (and reported) if it did not. */
    private boolean interruptAndWait() {
        long deadline = System.nanoTime() + interruptGrace.toNanos();
        boolean interrupted = Thread.interrupted(); // a slot interrupted by a stopping pool still waits out the grace
        try {
            synchronized (lock) {
                boolean sent = false;
                long left;
                while ((!started || !ended) && (left = deadline - System.nanoTime()) > 0) {
                    if (!sent && runner != null) {
                        runner.interrupt(); // once, as soon as it has a thread
                        sent = true;
                    }
                    try {
                        TimeUnit.NANOSECONDS.timedWait(lock, left);
                    } catch (InterruptedException e) {
                        interrupted = true;
                    }
                }
                if (!started) {
                    abandoned = true; // never got a thread: when it does, it returns at once
                    return true;
                }
                if (ended) {
                    return true;
                }
                abandoned = true;
                leftBehind.incrementAndGet();
                LOG.error("handler {} ignored the interruption: run {} attempt {} was stopped ({}) but its thread {} "
                                + "still runs {} later; the attempt ends without it (a thread cannot be killed: make "
                                + "the handler end on interruption or check ctx.cancellation())", job.handler(),
                        job.runId(), job.attempt(), job.cancellation().reason(), runner.getName(), seconds(interruptGrace));
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        try {
            metrics.handlerIgnoredInterruption(job.handler(), job.runId(), job.attempt());
        } catch (RuntimeException e) {
            LOG.debug("metrics listener failed: {}", e.toString());
        }
        return false;
    }

    /** On the handler's thread. */
    private void body(Map<String, String> mdc) {
        Thread me = Thread.currentThread();
        String name = me.getName();
        synchronized (lock) {
            if (abandoned) {
                return; // stopped before it could start
            }
            runner = me;
            started = true;
            lock.notifyAll();
        }
        if (mdc != null) {
            MDC.setContextMap(mdc);
        }
        me.setName("ff-handler " + job.handler() + " run " + job.runId() + " attempt " + job.attempt());
        Throwable failure = null;
        try {
            handler.handle(job);
        } catch (Throwable t) {
            failure = t;
        } finally {
            boolean late;
            synchronized (lock) {
                ended = true;
                thrown = failure;
                late = abandoned;
                runner = null;
                lock.notifyAll();
            }
            Thread.interrupted(); // the pool's thread goes back clean
            me.setName(name);
            MDC.clear();
            if (late) {
                LOG.warn("handler {} of run {} attempt {} ended after its attempt had been ended without it; its result "
                        + "was discarded", job.handler(), job.runId(), job.attempt());
                leftBehind.decrementAndGet();
            }
        }
    }

    /** The result of a handler that ended by itself. */
    private ExecutionResult outcome() {
        if (thrown == null) {
            return ExecutionResult.succeeded(job.outputText());
        }
        if (thrown instanceof Snooze) {
            return ExecutionResult.snoozed(job.outputText(), ((Snooze) thrown).duration());
        }
        if (thrown instanceof GiveUp) {
            return ExecutionResult.gaveUp(job.outputText(), thrown.getMessage());
        }
        if (thrown instanceof PermanentFailureException) {
            return ExecutionResult.failedPermanently(job.outputText(), messageOf(thrown));
        }
        job.output((job.outputText().isEmpty() || job.outputText().endsWith("\n") ? "" : "\n") + trace(thrown));
        return ExecutionResult.failed(job.outputText(), messageOf(thrown));
    }

    private static String messageOf(Throwable t) {
        String message = t.getMessage();
        return message == null || message.isBlank() ? t.getClass().getName() : message;
    }

    /** The first lines of the stack trace, for the run's output. */
    private static String trace(Throwable t) {
        StringWriter text = new StringWriter();
        t.printStackTrace(new PrintWriter(text));
        String[] lines = text.toString().split("\n");
        StringBuilder kept = new StringBuilder();
        for (int i = 0; i < lines.length && i < TRACE_LINES; i++) {
            kept.append(lines[i]).append('\n');
        }
        if (lines.length > TRACE_LINES) {
            kept.append("\t... ").append(lines.length - TRACE_LINES).append(" more lines\n");
        }
        return kept.toString();
    }

    private static String seconds(Duration d) {
        long millis = d.toMillis();
        return millis % 1000 == 0 ? (millis / 1000) + "s" : String.format(java.util.Locale.ROOT, "%.1fs", millis / 1000.0);
    }
}
