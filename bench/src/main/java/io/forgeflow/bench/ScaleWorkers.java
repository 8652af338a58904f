package io.forgeflow.bench;

import io.forgeflow.embedded.ForgeFlowWorker;
import org.apache.tomcat.jdbc.pool.DataSource;
import org.apache.tomcat.jdbc.pool.PoolProperties;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * One JVM of the scale test (scripts/scale-test.sh): hosts N embedded workers ({@link ForgeFlowWorker}), each with its
 * own worker id, incarnation and small connection pool, all running handler {@code scale-noop}, which does nothing
 * but write its run's id to a file (one line per execution) so the driver can count executions per run.
 *
 * <pre>java -cp forgeflow-bench.jar io.forgeflow.bench.ScaleWorkers JDBC_URL PREFIX WORKERS CONCURRENCY POOL POLL_MS OUT</pre>
 *
 * Prints {@code ready} once every worker has started; on SIGTERM closes them all (drain), then closes the file.
 */
public final class ScaleWorkers {
    private ScaleWorkers() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 7) {
            System.err.println("usage: ScaleWorkers JDBC_URL PREFIX WORKERS CONCURRENCY POOL POLL_MS OUT");
            System.exit(2);
        }
        String url = args[0];
        String prefix = args[1];
        int count = Integer.parseInt(args[2]);
        int concurrency = Integer.parseInt(args[3]);
        int poolSize = Integer.parseInt(args[4]);
        Duration poll = Duration.ofMillis(Long.parseLong(args[5]));
        Path out = Path.of(args[6]);

        ConcurrentLinkedQueue<String> executed = new ConcurrentLinkedQueue<>();
        BufferedWriter file = Files.newBufferedWriter(out);
        CountDownLatch writerStop = new CountDownLatch(1);
        Thread writer = new Thread(() -> {
            try {
                boolean last = false;
                while (true) {
                    for (String id = executed.poll(); id != null; id = executed.poll()) {
                        file.write(id);
                        file.write('\n');
                    }
                    file.flush();
                    if (last) {
                        return;
                    }
                    last = writerStop.await(100, TimeUnit.MILLISECONDS);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "scale-executions");
        writer.start();

        List<DataSource> pools = new ArrayList<>();
        List<ForgeFlowWorker> workers = java.util.Collections.synchronizedList(new ArrayList<>());
        ExecutorService starting = Executors.newFixedThreadPool(8);
        List<Future<?>> started = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String id = String.format("%s-w%03d", prefix, i);
            DataSource pool = pool(url, poolSize, id);
            pools.add(pool);
            started.add(starting.submit(() -> workers.add(ForgeFlowWorker.builder()
                    .dataSource(pool)
                    .workerId(id)
                    .concurrency(concurrency)
                    .pollInterval(poll)
                    .drainGrace(Duration.ofSeconds(5))
                    .transactionPooling(true) // through PgBouncer: polling, no session state; migrated beforehand
                    .handler("scale-noop", ctx -> executed.add(ctx.runId()))
                    .start())));
        }
        for (Future<?> f : started) {
            f.get();
        }
        starting.shutdown();
        System.out.println("ready: " + workers.size() + " workers of " + prefix);
        System.out.flush();

        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            ExecutorService closing = Executors.newFixedThreadPool(16);
            List<ForgeFlowWorker> all;
            synchronized (workers) {
                all = new ArrayList<>(workers);
            }
            all.forEach(w -> closing.submit(w::close));
            closing.shutdown();
            try {
                closing.awaitTermination(60, TimeUnit.SECONDS);
                writerStop.countDown();
                writer.join(10_000);
                file.close();
            } catch (InterruptedException | IOException e) {
                System.err.println("scale workers " + prefix + ": stopping: " + e);
            }
            pools.forEach(p -> p.close(true));
            System.out.println("stopped: " + all.size() + " workers of " + prefix);
            stopped.countDown();
        }, "scale-stop"));
        stopped.await();
    }

    /** A worker's own small pool (tomcat-jdbc): connections open on demand, to PgBouncer. */
    private static DataSource pool(String url, int size, String name) {
        PoolProperties p = new PoolProperties();
        p.setUrl(url);
        p.setDriverClassName("org.postgresql.Driver");
        p.setMaxActive(size);
        p.setMaxIdle(size);
        p.setMinIdle(0);
        p.setInitialSize(0);
        p.setMaxWait(30_000);
        p.setName(name);
        p.setTestOnBorrow(false);
        p.setJmxEnabled(false);
        return new DataSource(p);
    }
}
