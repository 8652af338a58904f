package io.forgeflow.server;

import com.zaxxer.hikari.HikariDataSource;
import io.forgeflow.embedded.ForgeFlowWorker;

import java.time.Duration;

/**
 * An application with an embedded worker, as a JVM of its own (EmbeddedWorkerKillIT SIGKILLs it): handler
 * {@code slow} says {@code started <run id>} on stdout, then waits until it is cancelled. Arguments: JDBC URL, user,
 * password, worker id.
 */
public final class EmbeddedWorkerMain {
    private EmbeddedWorkerMain() {
    }

    public static void main(String[] args) throws Exception {
        HikariDataSource pool = EmbeddedWorkers.pool(args[0], args[1], args[2], 8);
        ForgeFlowWorker worker = EmbeddedWorkers.fast(pool, args[3]).handler("slow", ctx -> {
            System.out.println("started " + ctx.runId());
            System.out.flush();
            ctx.cancellation().await(Duration.ofMinutes(10));
        }).start();
        System.out.println("ready " + worker.workerId());
        System.out.flush();
        Thread.currentThread().join(); // until killed
    }
}
