package io.forgeflow.bench;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * One row of the benchmark table.
 *
 * @param runsPerSecond throughput (W0: transactions per second; REST: submissions per second)
 * @param target        the requested rate (W2) or null
 * @param reference     what the row is compared with, measured in the same run (W0 for drains)
 * @param ratio         runsPerSecond / reference
 * @param jvmCpuMicros  CPU of the JVM that ran the workload (the node's, for REST) per run or request, in µs
 * @param dbCpuMicros   CPU of the database backends of the workload per run or request, in µs
 * @param loadAverage   the machine's 1-minute load average when the workload ended (other processes included)
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
record BenchResult(@JsonProperty("workload") String workload,
                   @JsonProperty("runs_per_second") double runsPerSecond,
                   @JsonProperty("target_per_second") Double target,
                   @JsonProperty("p50_ms") double p50, @JsonProperty("p95_ms") double p95,
                   @JsonProperty("p99_ms") double p99, @JsonProperty("max_ms") double max,
                   @JsonProperty("enqueue_p50_ms") double enqueueP50, @JsonProperty("enqueue_p99_ms") double enqueueP99,
                   @JsonProperty("executed") long executed, @JsonProperty("lost") long lost,
                   @JsonProperty("duplicated") long duplicated,
                   @JsonProperty("reference") String reference, @JsonProperty("ratio") Double ratio,
                   @JsonProperty("note") String note,
                   @JsonProperty("jvm_cpu_us_per_op") double jvmCpuMicros,
                   @JsonProperty("db_cpu_us_per_op") double dbCpuMicros,
                   @JsonProperty("load_average") double loadAverage) {

    BenchResult(String workload, double runsPerSecond, Double target, double p50, double p95, double p99, double max,
                double enqueueP50, double enqueueP99, long executed, long lost, long duplicated, String reference,
                Double ratio, String note) {
        this(workload, runsPerSecond, target, p50, p95, p99, max, enqueueP50, enqueueP99, executed, lost, duplicated,
                reference, ratio, note, Double.NaN, Double.NaN, Double.NaN);
    }

    /** This result with the CPU spent on {@code ops} runs (or requests). */
    BenchResult withCpu(CpuMeter.Cpu cpu, long ops) {
        return new BenchResult(workload, runsPerSecond, target, p50, p95, p99, max, enqueueP50, enqueueP99, executed,
                lost, duplicated, reference, ratio, note, cpu.jvmMicrosPer(ops), cpu.databaseMicrosPer(ops),
                CpuMeter.loadAverage());
    }

    static BenchResult throughput(String workload, double perSecond, long executed, long lost, long duplicated,
                                  String reference, Double ratio, String note) {
        return new BenchResult(workload, perSecond, null, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
                Double.NaN, executed, lost, duplicated, reference, ratio, note);
    }

    boolean correct() {
        return lost == 0 && duplicated == 0;
    }
}
