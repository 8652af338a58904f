package io.forgeflow.application.worker;

import io.forgeflow.application.trace.Tracing;
import io.forgeflow.application.executor.ExecutorRegistry;
import io.forgeflow.application.run.OutcomePolicy;
import io.forgeflow.application.support.RunLogContext;
import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.execution.ExecutionContext;
import io.forgeflow.domain.execution.ExecutionResult;
import io.forgeflow.domain.port.Acknowledgement;
import io.forgeflow.domain.port.RunExecutor;
import io.forgeflow.domain.port.RunFence;
import io.forgeflow.domain.run.RunStatus;
import io.forgeflow.domain.run.AttemptOutcome;
import io.forgeflow.domain.run.Run;
import io.forgeflow.domain.trace.TraceContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The execution slots: one pool of threads per queue lane, the attempts they run, the watchdog that stops an
 * executor that overruns its timeout, and cancellation. Owns the in-flight attempts, keyed by (run, attempt): a run
 * claimed again while an older attempt of it still ends here has two entries, and the newer starts only once the
 * older has ended. An ended attempt's result goes to the {@link Acknowledger}, which writes it fenced, unless the
 * attempt was stopped for a lost or untrusted lease ({@link LeaseDeadlines}) and did not succeed: then it is discarded.
 */
final class ExecutionSlots {
    private static final Logger LOG = LoggerFactory.getLogger(ExecutionSlots.class);
    static final Duration WATCHDOG_GRACE = Duration.ofSeconds(10);

    private final WorkerSettings settings;
    private final ExecutorRegistry executors;
    private final Ticker ticker;
    private final WorkerListener listener;
    private final OutcomePolicy policy;
    private final LeaseDeadlines deadlines;
    private final Acknowledger acknowledger;
    private final WakeUp wakeUp;
    private final Map<RunFence, InFlight> inFlight = new ConcurrentHashMap<>();
    /** Runs held per lane (executing, or claimed and about to start). */
    private final AtomicInteger[] heldPerLane;
    private final AtomicInteger busy = new AtomicInteger();
    /** Moving average of attempt durations, in milliseconds (NaN until the first attempt ends). */
    private volatile double averageMillis = Double.NaN;
    private final ExecutorService[] pools;
    private final ScheduledExecutorService watchdog;
    private final Object idle = new Object();
    private volatile boolean accepting = true;
    private final Tracing tracing;

    ExecutionSlots(WorkerSettings settings, ExecutorRegistry executors, Ticker ticker, WorkerListener listener,
                   OutcomePolicy policy, LeaseDeadlines deadlines, Acknowledger acknowledger, WakeUp wakeUp) {
        this(settings, executors, ticker, listener, policy, deadlines, acknowledger, wakeUp, Tracing.NONE);
    }

    ExecutionSlots(WorkerSettings settings, ExecutorRegistry executors, Ticker ticker, WorkerListener listener,
                   OutcomePolicy policy, LeaseDeadlines deadlines, Acknowledger acknowledger, WakeUp wakeUp,
                   Tracing tracing) {
        this.tracing = tracing;
        this.settings = settings;
        this.executors = executors;
        this.ticker = ticker;
        this.listener = listener;
        this.policy = policy;
        this.deadlines = deadlines;
        this.acknowledger = acknowledger;
        this.wakeUp = wakeUp;
        List<QueueLane> lanes = settings.lanes();
        this.heldPerLane = new AtomicInteger[lanes.size()];
        this.pools = new ExecutorService[lanes.size()];
        AtomicInteger n = new AtomicInteger();
        for (int i = 0; i < lanes.size(); i++) {
            heldPerLane[i] = new AtomicInteger();
            pools[i] = Executors.newFixedThreadPool(lanes.get(i).slots(), r -> daemon(r, "ff-exec-" + n.incrementAndGet()));
        }
        this.watchdog = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "ff-watchdog"));
    }

    /** Attempts held: executing, or claimed and about to start. */
    int size() {
        return inFlight.size();
    }

    /** Attempts held for one lane. */
    int heldIn(int lane) {
        return heldPerLane[lane].get();
    }

    /** The moving average of attempt durations in milliseconds; NaN until one ended. */
    double averageMillis() {
        return averageMillis;
    }

    /** The attempts whose leases this worker vouches for (not lost, not untrusted). */
    Set<RunFence> held() {
        Set<RunFence> held = new HashSet<>();
        for (InFlight f : inFlight.values()) {
            if (!f.leaseLost) {
                held.add(f.fence);
            }
        }
        return held;
    }

    /** Every attempt registered here, stopping ones included: gone only once its execution ended. */
    Set<RunFence> registered() {
        return Set.copyOf(inFlight.keySet());
    }

    /**
     * Takes an attempt claimed under {@code holder} (its fence): registers it, stops any older attempt of the same run still here (the worker paused
     * past its lease and claimed the run again), and executes it in a slot of its lane once the older one has ended.
     */
    void start(Run run, String holder, int lane, long askedNanos) {
        InFlight f = new InFlight(run, new RunFence(run.id(), holder, run.attempt()), lane);
        deadlines.claimed(f.fence, askedNanos);
        InFlight older = stopOlderAttempts(f);
        inFlight.put(f.fence, f);
        heldPerLane[lane].incrementAndGet();
        pools[lane].execute(() -> {
            if (older != null) {
                awaitEnd(older);
            }
            if (!accepting) {
                // held ready but not started when the drain began: give it straight back
                f.released = true;
                finish(f, ExecutionResult.cancelled("", StopReasons.SHUTDOWN), Duration.ZERO);
                return;
            }
            f.started = true;
            listener.busySlots(busy.incrementAndGet());
            execute(f);
        });
    }

    private InFlight stopOlderAttempts(InFlight f) {
        InFlight newest = null;
        for (InFlight other : inFlight.values()) {
            if (other.run.id().equals(f.run.id()) && other.run.attempt() < f.run.attempt()) {
                stop(other.fence, StopReasons.RECLAIMED);
                if (newest == null || other.run.attempt() > newest.run.attempt()) {
                    newest = other;
                }
            }
        }
        return newest;
    }

    /** Waits until an attempt that was told to stop has ended (its executor's own grace, then the watchdog's). */
    private static void awaitEnd(InFlight older) {
        try {
            if (!older.ended.await(WATCHDOG_GRACE.multipliedBy(3).toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.error("run {} attempt {} did not stop when told; starting attempt anyway", older.run.id(),
                        older.run.attempt());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Stops an attempt whose lease is lost or can no longer be trusted ({@code reason}): cancels it and discards its
     * result. Returns false when the attempt is not here, has ended, or was already stopped so.
     */
    boolean stop(RunFence fence, String reason) {
        InFlight f = inFlight.get(fence);
        if (f == null || f.finished || f.leaseLost) {
            return false;
        }
        f.leaseLost = true;
        f.cancellation.cancel(reason);
        try (RunLogContext ignored = RunLogContext.of(f.run.id(), f.run.jobId(), f.run.attempt(), settings.workerId())) {
            LOG.warn("run {} attempt {}: stopping it ({})", f.run.id(), f.run.attempt(), reason);
        }
        return true;
    }

    /** Stops the attempts of runs an operator asked to cancel. */
    void cancelRuns(Collection<String> runIds) {
        if (runIds.isEmpty()) {
            return;
        }
        Set<String> ids = Set.copyOf(runIds);
        for (InFlight f : inFlight.values()) {
            if (ids.contains(f.run.id()) && !f.cancellation.isCancelled()) {
                try (RunLogContext ignored = RunLogContext.of(f.run.id(), f.run.jobId(), f.run.attempt(),
                        settings.workerId())) {
                    LOG.info("run {} attempt {}: cancelled by an operator; stopping it", f.run.id(), f.run.attempt());
                }
                f.cancellation.cancel(StopReasons.OPERATOR);
            }
        }
    }

    private void execute(InFlight f) {
        Run run = f.run;
        MDC.put(RunLogContext.RUN_ID, run.id());
        MDC.put(RunLogContext.JOB_ID, run.jobId());
        MDC.put(RunLogContext.ATTEMPT, Integer.toString(run.attempt()));
        MDC.put(RunLogContext.WORKER_ID, settings.workerId());
        long began = ticker.nanos();
        ExecutionResult result;
        String invalid;
        ScheduledFuture<?> guard = watchdog.schedule(() -> f.cancellation.cancel(StopReasons.WATCHDOG),
                run.timeout().plus(WATCHDOG_GRACE).toMillis(), TimeUnit.MILLISECONDS);
        try {
            RunExecutor executor = executors.enabled(run.executor()).orElse(null);
            if (executor == null) {
                result = ExecutionResult.failed("", "executor '" + run.executor() + "' is not enabled on worker "
                        + settings.workerId());
            } else if (f.cancellation.isCancelled()) {
                result = ExecutionResult.cancelled("", f.cancellation.reason());
            } else if ((invalid = invalidPayload(executor, run)) != null) {
                result = ExecutionResult.failed("", "invalid payload: " + invalid);
            } else {
                f.span = tracing.attempt(run, settings.workerId());
                TraceContext trace = f.span.context();
                try (Tracing.Scope inside = f.span.makeCurrent()) {
                    result = executor.execute(new ExecutionContext(run.id(), run.jobId(), run.attempt(), run.payload(),
                            run.timeout(), f.cancellation, settings.maxOutputBytes(),
                            trace == null ? null : trace.traceparent(), trace == null ? null : trace.tracestate()));
                }
            }
        } catch (Throwable t) {
            result = ExecutionResult.failed("", "executor '" + run.executor() + "' crashed: " + t);
            LOG.error("executor {} threw instead of returning a result", run.executor(), t);
        } finally {
            guard.cancel(false);
        }
        try {
            finish(f, result, Duration.ofNanos(ticker.nanos() - began));
        } finally {
            MDC.clear();
        }
    }

    /** The executor's validation message for the payload, or null: runs enqueued in SQL reach a worker unchecked. */
    private static String invalidPayload(RunExecutor executor, Run run) {
        try {
            executor.validate(run.payload());
            return null;
        } catch (ValidationException e) {
            return e.getMessage();
        }
    }

    private void finish(InFlight f, ExecutionResult result, Duration took) {
        f.finished = true;
        try {
            // A job that ended by itself after its local deadline (a starved CPU, before the keeper stopped it) is
            // written like any other: the database takes it only while the run is still this attempt's, when no other
            // attempt can have started it. Discarding it would send a finished run back to pending and run it twice.
            // So is a success that raced a stop (the job exited 0 as the kill came): the job's doing, not the stop's.
            // Any other result of a stopped attempt may be the stop's doing and is discarded: the lease decides.
            if (f.leaseLost && result.outcome() != AttemptOutcome.SUCCEEDED) {
                listener.fenceLost(f.fence, "result of an attempt whose lease was lost");
                LOG.warn("run {} attempt {} ended ({}) after its lease was lost; result discarded", f.run.id(),
                        f.run.attempt(), result.outcome().wireName());
                endSpan(f, "lease_lost", null, "the attempt's lease was lost: its result was discarded");
                return;
            }
            if (f.released) {
                acknowledger.released(f.fence, f.run.jobId());
                endSpan(f, "released", RunStatus.PENDING, null);
                return;
            }
            Acknowledgement ack = decide(f, result);
            endSpan(f, ack.outcome().wireName(), ack.next(), ack.error());
            listener.finished(f.run, ack.outcome(), ack.next(), took);
            if (ack.outcome() == AttemptOutcome.SUCCEEDED) {
                LOG.debug("run {} attempt {} succeeded in {} ms", f.run.id(), f.run.attempt(), took.toMillis());
            } else {
                LOG.info("run {} attempt {} {} in {} ms -> {}: {}", f.run.id(), f.run.attempt(),
                        ack.outcome().wireName(), took.toMillis(), ack.next().wireName(), ack.error());
            }
            acknowledger.offer(ack, f.run); // records the run span once written
        } finally {
            if (f.started) {
                double millis = took.toNanos() / 1e6;
                double average = averageMillis;
                averageMillis = Double.isNaN(average) ? millis : 0.9 * average + 0.1 * millis;
            }
            if (inFlight.remove(f.fence) != null) {
                heldPerLane[f.lane].decrementAndGet();
            }
            deadlines.ended(f.fence);
            f.ended.countDown();
            if (f.started) {
                listener.busySlots(busy.decrementAndGet());
            }
            if (accepting) {
                wakeUp.roomFreed();
            } else {
                synchronized (idle) {
                    idle.notifyAll();
                }
            }
        }
    }

    private static void endSpan(InFlight f, String outcome, RunStatus next, String error) {
        Tracing.Span span = f.span;
        if (span == null) {
            return;
        }
        f.span = null;
        span.attribute("forgeflow.attempt.outcome", outcome);
        if (next != null) {
            span.attribute("forgeflow.run.next_status", next.wireName());
        }
        span.end(error);
    }

    /**
     * The acknowledgement of an ended attempt. How the attempt was stopped classifies its outcome: a stop an operator
     * asked for is a cancellation however the executor ended it, the watchdog's is a timeout; the
     * {@link OutcomePolicy} decides where the run goes.
     */
    Acknowledgement decide(InFlight f, ExecutionResult result) {
        AttemptOutcome outcome = result.outcome();
        String error = result.error();
        String reason = f.cancellation.reason();
        if ((outcome == AttemptOutcome.FAILED || outcome == AttemptOutcome.TIMED_OUT
                || outcome == AttemptOutcome.SNOOZED) && StopReasons.OPERATOR.equals(reason)) {
            outcome = AttemptOutcome.CANCELLED;
            error = error == null ? StopReasons.OPERATOR : StopReasons.OPERATOR + "; the executor reported: " + error;
        }
        if (outcome == AttemptOutcome.CANCELLED && StopReasons.WATCHDOG.equals(reason)) {
            outcome = AttemptOutcome.TIMED_OUT;
            error = "timed out after " + f.run.timeoutSeconds() + "s; " + (error == null ? StopReasons.WATCHDOG : error);
        }
        if (outcome == AttemptOutcome.CANCELLED && error == null) {
            error = StopReasons.OPERATOR;
        }
        OutcomePolicy.Next next = policy.after(outcome, f.run.attempt(), f.run.maxAttempts(), false,
                result.permanent(), result.retryAfter(), f.run.retry());
        if (next.failure() != null) {
            listener.failureDecided(f.run, next.failure());
        }
        return new Acknowledgement(f.fence, outcome, next.status(), next.delay(), result.output(),
                outcome == AttemptOutcome.SUCCEEDED ? null : error, next.retryAfter());
    }

    /** The drain begins: attempts held ready but not started are given back instead of started. */
    void stopAccepting() {
        accepting = false;
    }

    /** Waits until no attempt is held, or until {@code deadlineNanos} (System.nanoTime). */
    void awaitIdle(long deadlineNanos) {
        synchronized (idle) {
            long left;
            while (!inFlight.isEmpty() && (left = deadlineNanos - System.nanoTime()) > 0) {
                try {
                    TimeUnit.NANOSECONDS.timedWait(idle, Math.min(left, 50_000_000L));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /** The drain grace is over: stops every attempt still held; each is given back to the queue. */
    void releaseAll() {
        for (InFlight f : inFlight.values()) {
            f.released = true;
            f.cancellation.cancel(StopReasons.SHUTDOWN);
        }
    }

    /** The attempts still held (executors that ignored their cancellation), with their jobs. */
    Map<RunFence, String> remaining() {
        Map<RunFence, String> remaining = new java.util.HashMap<>();
        inFlight.forEach((fence, f) -> remaining.put(fence, f.run.jobId()));
        return remaining;
    }

    void shutdown() {
        for (ExecutorService pool : pools) {
            pool.shutdownNow();
        }
        watchdog.shutdownNow();
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }
}
