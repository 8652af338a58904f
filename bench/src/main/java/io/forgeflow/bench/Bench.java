package io.forgeflow.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import net.sourceforge.argparse4j.ArgumentParsers;
import net.sourceforge.argparse4j.inf.ArgumentParser;
import net.sourceforge.argparse4j.inf.ArgumentParserException;
import net.sourceforge.argparse4j.inf.Namespace;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * {@code java -jar bench/target/forgeflow-bench.jar}: the workloads of BENCHMARKS.md (W0, W1, W1-large, W2 at several
 * rates, the REST submission load) against fresh databases on {@code FORGEFLOW_DATABASE_URL} (or, said loudly, an
 * embedded PostgreSQL whose settings differ), printed as one table and written as JSON. Every drain checks that
 * nothing was lost and nothing ran twice. A tool of its own: nothing of it ships in the node's jar.
 */
public final class Bench {

    private Bench() {
    }

    public static void main(String[] args) throws Exception {
        ArgumentParser parser = ArgumentParsers.newFor("forgeflow-bench").build()
                .description("Run the benchmark workloads (W0, W1, W1-large, W2, REST) and print the results");
        configure(parser);
        Namespace ns;
        try {
            ns = parser.parseArgs(args);
        } catch (ArgumentParserException e) {
            parser.handleError(e);
            System.exit(2);
            return;
        }
        run(ns);
        System.exit(0);
    }

    static void configure(ArgumentParser subparser) {
        subparser.addArgument("--workloads").setDefault("W0,W1,W1-limits,W1-large,W2,REST")
                .help("comma-separated: W0, W1, W1-limits (W1 with a queue limit and with a concurrency key, neither "
                        + "reached), W1-large (about 2 minutes on 2 cores), W2, W2-SQL (W2 enqueued through client-jdbc; not in the "
                        + "default set), REST, ENQ-TX (enqueue in the "
                        + "application's transaction, for --rest-seconds; not in the default set), TRACE (the tracing calls of a "
                        + "run alone, no database, 30,000 runs at 1,000/s; not in the default set)");
        subparser.addArgument("--n").type(Integer.class).setDefault(20_000).help("W1 runs (20000)");
        subparser.addArgument("--large-n").type(Integer.class).setDefault(1_000_000).help("W1-large runs (1000000)");
        subparser.addArgument("--jit-warmup").type(Integer.class).setDefault(20_000)
                .help("runs of an untimed drain before the measured ones, so that they measure a worker whose JVM has "
                        + "compiled its hot code, as a long-running node's has, and with W2 an untimed W2 pass (10 s at "
                        + "500/s) for the submission path (20000; 0: measure a cold JVM)");
        subparser.addArgument("--rates").setDefault("200,1000,5000").help("W2 rates per second");
        subparser.addArgument("--measure-seconds").type(Integer.class).setDefault(30).help("W2 measured window");
        subparser.addArgument("--warmup-seconds").type(Integer.class).setDefault(3).help("W2 warm-up");
        subparser.addArgument("--rest-warmup-seconds").type(Integer.class).setDefault(60)
                .help("REST warm-up: the node is a fresh JVM, compiling its request path while it serves (measured "
                        + "here: about 1,300 requests/s in its first 20 s of load, 3,000 and more after a minute)");
        subparser.addArgument("--rest-seconds").type(Integer.class).setDefault(20).help("REST measured window");
        subparser.addArgument("--rest-clients").type(Integer.class).setDefault(32).help("REST concurrent clients");
        subparser.addArgument("--w0-seconds").type(Integer.class).setDefault(10).help("W0 length");
        subparser.addArgument("--w2-traceparent")
                .help("a W3C traceparent W2's submissions are made under, as a caller's would be (none by default); "
                        + "spans are exported only when FORGEFLOW_OTLP_ENDPOINT is set, as on a node");
        subparser.addArgument("--out").setDefault("bench-results.json").help("where to write the JSON results");
        subparser.addArgument("--node-jar").setDefault("server/target/forgeflow.jar")
                .help("the node's jar, which the REST workload starts (server/target/forgeflow.jar)");
    }

    static void run(Namespace ns) throws Exception {
        PrintStream out = System.out;
        Set<String> workloads = Set.copyOf(Arrays.stream(ns.getString("workloads").split(","))
                .map(s -> s.trim().toUpperCase(Locale.ROOT)).toList());
        Duration warmup = Duration.ofSeconds(ns.getInt("warmup_seconds"));
        HeapWatch heap = new HeapWatch();
        heap.start();
        List<BenchResult> results = new ArrayList<>();
        Instant started = Instant.now();
        try (BenchDatabase db = BenchDatabase.open(System.getenv("FORGEFLOW_DATABASE_URL"))) {
            out.println("ForgeFlow bench on " + db.describe() + ", " + Runtime.getRuntime().availableProcessors()
                    + " cores, max heap " + (Runtime.getRuntime().maxMemory() >> 20) + " MiB");
            out.println(db.serverSettings());
            if (db.embedded()) {
                out.println();
                out.println("*** WARNING: FORGEFLOW_DATABASE_URL is not set, so this runs on an embedded PostgreSQL  ***");
                out.println("*** started for the bench, whose settings differ from a real server's (see above):   ***");
                out.println("*** its figures compare with nothing. Set FORGEFLOW_DATABASE_URL to the PostgreSQL   ***");
                out.println("*** you measure on, e.g. postgresql://postgres@127.0.0.1:5432/postgres               ***");
                out.println();
            }
            // traces as a node has them (issue 31): an OTLP exporter only when FORGEFLOW_OTLP_ENDPOINT is set
            io.forgeflow.application.trace.Tracing tracing = io.forgeflow.adapter.otel.OpenTelemetryTracing
                    .fromEnvironment(System.getenv());
            String caller = ns.getString("w2_traceparent");
            io.forgeflow.domain.trace.TraceContext incoming = caller == null ? null
                    : io.forgeflow.domain.trace.TraceContext.parse(caller, null);
            if (caller != null && incoming == null) {
                throw new IllegalArgumentException("--w2-traceparent is not a W3C traceparent: " + caller);
            }
            out.println("traces: " + (tracing instanceof io.forgeflow.adapter.otel.OpenTelemetryTracing otel
                    ? "exported over OTLP to " + otel.endpoint() : "off (FORGEFLOW_OTLP_ENDPOINT unset)")
                    + (incoming == null ? "" : "; W2 submitted under " + incoming.traceparent()));
            Workloads w = new Workloads(db, out).traced(tracing, incoming);
            Double reference = null;
            if (workloads.contains("W0")) {
                out.println("W0 ...");
                BenchResult w0 = w.w0(Duration.ofSeconds(ns.getInt("w0_seconds")));
                reference = w0.runsPerSecond();
                results.add(w0);
            }
            int jitWarmup = ns.getInt("jit_warmup");
            if (jitWarmup > 0 && workloads.stream().anyMatch(x -> x.startsWith("W1") || x.startsWith("W2"))) {
                out.println("JVM warm-up: an untimed drain of " + jitWarmup + " runs ...");
                w.w1("warm-up", jitWarmup, null);
            }
            if (jitWarmup > 0 && workloads.contains("W2")) {
                // the drain does not compile the submission path: without this the compiler's threads took 55-65 %
                // of a core during a measured W2 at 200/s, as much CPU as the workload itself
                out.println("JVM warm-up: an untimed W2 pass, 10 s at 500/s ...");
                w.w2(500, Duration.ZERO, Duration.ofSeconds(10));
            }
            if (workloads.contains("W1")) {
                out.println("W1 ...");
                results.add(w.w1("W1", ns.getInt("n"), reference));
            }
            if (workloads.contains("W1-LIMITS")) {
                out.println("W1 with a queue limit ...");
                results.add(w.w1("W1-queue-limit", ns.getInt("n"), reference, Workloads.Limits.QUEUE));
                out.println("W1 with a concurrency key ...");
                results.add(w.w1("W1-key-limit", ns.getInt("n"), reference, Workloads.Limits.KEY));
            }
            if (workloads.contains("W1-LARGE")) {
                out.println("W1-large ...");
                results.add(w.w1("W1-large", ns.getInt("large_n"), reference));
            }
            if (workloads.contains("W2")) {
                for (String r : ns.getString("rates").split(",")) {
                    int rate = Integer.parseInt(r.trim());
                    out.println("W2 at " + rate + "/s ...");
                    results.add(w.w2Counted(rate, warmup, Duration.ofSeconds(ns.getInt("measure_seconds"))));
                }
            }
            if (workloads.contains("W2-SQL")) {
                for (String r : ns.getString("rates").split(",")) {
                    int rate = Integer.parseInt(r.trim());
                    out.println("W2-SQL at " + rate + "/s ...");
                    results.add(w.w2Sql(rate, warmup, Duration.ofSeconds(ns.getInt("measure_seconds"))));
                }
            }
            if (workloads.contains("ENQ-TX")) {
                Duration length = Duration.ofSeconds(ns.getInt("rest_seconds"));
                out.println("ENQ-TX ...");
                results.add(w.enqueueInTransaction(length, false, false));
                out.println("ENQ-TX, a worker node watching ...");
                results.add(w.enqueueInTransaction(length, false, true));
                out.println("ENQ-TX delayed ...");
                results.add(w.enqueueInTransaction(length, true, false));
            }
            if (workloads.contains("REST")) {
                out.println("REST ...");
                results.add(new RestLoad(db, out, Path.of(ns.getString("node_jar"))).run(ns.getInt("rest_clients"),
                        Duration.ofSeconds(ns.getInt("rest_warmup_seconds")),
                        Duration.ofSeconds(ns.getInt("rest_seconds"))));
            }
            if (workloads.contains("TRACE")) {
                // twice: the first warms the JIT up; both are printed
                TraceCalls.measure(tracing, incoming, 10_000, 1_000, out);
                TraceCalls.measure(tracing, incoming, 20_000, 1_000, out);
            }
            if (tracing instanceof io.forgeflow.adapter.otel.OpenTelemetryTracing otel) {
                otel.close(); // flushes the spans still buffered
            }
        } finally {
            heap.stop();
        }
        print(out, results, heap.peakMiB());
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("date", started.toString());
        json.put("cores", Runtime.getRuntime().availableProcessors());
        json.put("max_heap_mib", Runtime.getRuntime().maxMemory() >> 20);
        json.put("peak_heap_used_mib", heap.peakMiB());
        json.put("java", System.getProperty("java.version"));
        json.put("results", results);
        Path file = Path.of(ns.getString("out"));
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(file.toFile(), json);
        out.println("results written to " + file.toAbsolutePath());
        if (results.stream().anyMatch(r -> !r.correct() && !r.workload().startsWith("REST"))) {
            out.println("CORRECTNESS FAILURE: a workload lost or duplicated runs");
            System.exit(1);
        }
    }

    static void print(PrintStream out, List<BenchResult> results, long peakHeap) {
        out.println();
        out.printf("%-48s %11s %8s %8s %8s %9s %8s %8s %9s %5s %5s %12s %10s %10s %6s%n", "workload", "runs/s", "p50 ms",
                "p95 ms", "p99 ms", "max ms", "enq p50", "enq p99", "executed", "lost", "dup", "vs reference",
                "jvm us/op", "db us/op", "load");
        for (BenchResult r : results) {
            out.printf("%-48s %11.0f %8s %8s %8s %9s %8s %8s %9d %5d %5d %12s %10s %10s %6s%n", r.workload(),
                    r.runsPerSecond(), f(r.p50()), f(r.p95()), f(r.p99()), f(r.max()), f(r.enqueueP50()),
                    f(r.enqueueP99()), r.executed(), r.lost(), r.duplicated(),
                    r.ratio() == null ? "" : String.format(Locale.ROOT, "%.2f x %s", r.ratio(), r.reference()),
                    f0(r.jvmCpuMicros()), f0(r.dbCpuMicros()), f(r.loadAverage()));
        }
        out.printf("peak heap used: %d MiB of %d MiB%n", peakHeap, Runtime.getRuntime().maxMemory() >> 20);
    }

    private static String f0(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.0f", v);
    }

    private static String f(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.1f", v);
    }

    /** Samples heap use after collections (the pools' collection usage), i.e. what the process really holds. */
    static final class HeapWatch {
        private volatile boolean running = true;
        private volatile long peak;
        private final Thread thread = new Thread(this::loop, "bench-heap");

        void start() {
            thread.setDaemon(true);
            thread.start();
        }

        void stop() {
            running = false;
        }

        long peakMiB() {
            return peak >> 20;
        }

        private void loop() {
            while (running) {
                long used = 0;
                for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
                    if (pool.getType() == MemoryType.HEAP && pool.getCollectionUsage() != null) {
                        used += pool.getCollectionUsage().getUsed();
                    }
                }
                peak = Math.max(peak, used);
                try {
                    Thread.sleep(200);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }
}
