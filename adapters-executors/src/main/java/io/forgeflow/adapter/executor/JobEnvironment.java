package io.forgeflow.adapter.executor;

import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The environment a job's process gets: an allow-list, never the node's whole environment, because the node's holds
 * its secrets ({@code FORGEFLOW_DATABASE_URL} with the database password, {@code FORGEFLOW_API_TOKENS},
 * {@code FORGEFLOW_METRICS_TOKEN}, cloud credentials) and whoever may submit a shell job must not learn them.
 *
 * <ul>
 *   <li>from the node's environment, only {@code PATH}, {@code HOME}, {@code LANG}, {@code LC_*}, {@code TZ},
 *       {@code USER}, {@code TMPDIR}, and the names the operator lists in {@value #PASS_VARIABLE} (comma-separated
 *       names, never values; e.g. {@code FORGEFLOW_SHELL_ENV=AWS_REGION,HTTP_PROXY});</li>
 *   <li>then the attempt's own {@code FORGEFLOW_RUN_ID}, {@code FORGEFLOW_JOB_ID} and {@code FORGEFLOW_ATTEMPT},
 *       which no node variable of the same name can override.</li>
 * </ul>
 *
 * Every executor that starts a process (the shell executor, plug-ins) applies it where it builds the process:
 * {@code JobEnvironment.ofNode().applyTo(processBuilder.environment(), runId, jobId, attempt)}. Later additions of
 * the attempt's own variables (a trace context) go into {@link #applyTo} too. Immutable, thread-safe.
 */
public final class JobEnvironment {
    /** The node setting that lists extra variable names to pass to jobs. */
    public static final String PASS_VARIABLE = "FORGEFLOW_SHELL_ENV";
    /** Passed from the node's environment when set there. */
    static final Set<String> ALWAYS = Set.of("PATH", "HOME", "LANG", "TZ", "USER", "TMPDIR");

    private static final JobEnvironment NODE = of(System.getenv());

    private final Map<String, String> passed;

    private JobEnvironment(Map<String, String> passed) {
        this.passed = Collections.unmodifiableMap(passed);
    }

    /** The allow-list over this JVM's environment (read once). */
    public static JobEnvironment ofNode() {
        return NODE;
    }

    /** The allow-list over {@code node}, whose {@value #PASS_VARIABLE} names the extra variables to pass. */
    public static JobEnvironment of(Map<String, String> node) {
        Set<String> listed = listed(node.get(PASS_VARIABLE));
        Map<String, String> passed = new TreeMap<>();
        node.forEach((name, value) -> {
            if (value != null && (ALWAYS.contains(name) || name.startsWith("LC_") || listed.contains(name))) {
                passed.put(name, value);
            }
        });
        return new JobEnvironment(passed);
    }

    /** What the node passes on, before the attempt's own variables: name to value. */
    public Map<String, String> passed() {
        return passed;
    }

    /**
     * Replaces {@code environment} (a {@code ProcessBuilder}'s, which starts as a copy of the node's) with the
     * allowed variables and the attempt's own.
     */
    public void applyTo(Map<String, String> environment, String runId, String jobId, int attempt) {
        applyTo(environment, runId, jobId, attempt, null);
    }

    /**
     * As {@link #applyTo(Map, String, String, int)}, plus {@code TRACEPARENT}: the W3C context of the attempt's span
     * (OpenTelemetry SDKs and {@code otel-cli} continue the trace from it); left out when null.
     */
    public void applyTo(Map<String, String> environment, String runId, String jobId, int attempt, String traceparent) {
        environment.clear();
        environment.putAll(passed);
        environment.put("FORGEFLOW_RUN_ID", runId);
        environment.put("FORGEFLOW_JOB_ID", jobId == null ? "" : jobId);
        environment.put("FORGEFLOW_ATTEMPT", Integer.toString(attempt));
        if (traceparent != null) {
            environment.put("TRACEPARENT", traceparent);
        }
    }

    private static Set<String> listed(String value) {
        Set<String> names = new LinkedHashSet<>();
        if (value != null) {
            for (String name : value.split(",")) {
                if (!name.isBlank()) {
                    names.add(name.strip());
                }
            }
        }
        return names;
    }
}
