package io.forgeflow.admin.support;

import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Runs blocking work (every network call) off the UI thread and hands its result back on it. View models call
 * {@link #run(Callable, Consumer, Consumer)} and never block; in tests both sides run on the calling thread.
 */
public final class Async {
    private final Executor background;
    private final UiExecutor ui;

    public Async(Executor background, UiExecutor ui) {
        this.background = Objects.requireNonNull(background, "background");
        this.ui = Objects.requireNonNull(ui, "ui");
    }

    /** Everything on the calling thread, synchronously: for view-model tests. */
    public static Async sameThread() {
        return new Async(Runnable::run, UiExecutor.sameThread());
    }

    /** A pool of daemon threads for network calls, handing results to ui. */
    public static Async withDaemonPool(UiExecutor ui) {
        AtomicInteger n = new AtomicInteger();
        ExecutorService pool = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "forgeflow-io-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        return new Async(pool, ui);
    }

    /** Calls work in the background, then onSuccess or onFailure on the UI thread. */
    public <T> void run(Callable<T> work, Consumer<? super T> onSuccess, Consumer<? super Exception> onFailure) {
        background.execute(() -> {
            T result;
            try {
                result = work.call();
            } catch (Exception e) {
                ui.execute(() -> onFailure.accept(e));
                return;
            }
            ui.execute(() -> onSuccess.accept(result));
        });
    }

    /** Where results are delivered. */
    public UiExecutor ui() {
        return ui;
    }
}
