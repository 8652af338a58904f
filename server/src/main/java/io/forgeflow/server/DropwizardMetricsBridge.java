package io.forgeflow.server;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.Histogram;
import com.codahale.metrics.Meter;
import com.codahale.metrics.Metric;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.MetricRegistryListener;
import com.codahale.metrics.Timer;
import io.prometheus.metrics.instrumentation.dropwizard.DropwizardExports;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Dropwizard's own metrics (Jetty, the connection pool, logback, its executors) in Prometheus, each once and with a
 * snake_case name: {@code io.dropwizard.db.ManagedPooledDataSource.postgresql.active} is exported as
 * {@code io_dropwizard_db_managed_pooled_data_source_postgresql_active}. Dropwizard's {@code jvm.*} metrics are left
 * out: the Prometheus JVM instrumentation exports the JVM already, under the names Prometheus users know, and the
 * Dropwizard ones would repeat it (some as gauges named {@code _count}, which Prometheus reserves for histograms).
 *
 * <p>A mirror registry holds the same metric objects under the new names; it follows every metric added to or removed
 * from Dropwizard's registry later (the servlet handlers register theirs when the server starts).
 */
final class DropwizardMetricsBridge implements MetricRegistryListener {
    private static final Logger LOG = LoggerFactory.getLogger(DropwizardMetricsBridge.class);
    private final MetricRegistry mirror = new MetricRegistry();

    private DropwizardMetricsBridge() {
    }

    /** Exports {@code dropwizard}'s metrics, but the JVM's, to {@code registry} under snake_case names. */
    static void register(MetricRegistry dropwizard, PrometheusRegistry registry) {
        DropwizardMetricsBridge bridge = new DropwizardMetricsBridge();
        dropwizard.addListener(bridge); // replays the metrics registered so far
        DropwizardExports.builder().dropwizardRegistry(bridge.mirror).register(registry);
    }

    /**
     * The Prometheus-style name of a Dropwizard metric: camelCase words split with '_', all lower case
     * ({@code QueuedThreadPool.dw.jobs} becomes {@code queued_thread_pool.dw.jobs}; the exporter then turns '.' and
     * '-' into '_').
     */
    static String snakeCase(String name) {
        StringBuilder out = new StringBuilder(name.length() + 8);
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (Character.isUpperCase(c)) {
                char before = i > 0 ? name.charAt(i - 1) : '.';
                boolean wordStart = Character.isLowerCase(before) || Character.isDigit(before);
                boolean acronymEnd = Character.isUpperCase(before) && i + 1 < name.length()
                        && Character.isLowerCase(name.charAt(i + 1));
                if (wordStart || acronymEnd) {
                    out.append('_');
                }
                out.append(Character.toLowerCase(c));
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    /** Dropwizard's JVM metrics: exported by the Prometheus JVM instrumentation instead. */
    static boolean isJvm(String name) {
        return name.startsWith("jvm.");
    }

    private void added(String name, Metric metric) {
        if (isJvm(name)) {
            return;
        }
        try {
            mirror.register(snakeCase(name), metric);
        } catch (IllegalArgumentException e) {
            LOG.warn("Dropwizard metric {} is not exported: its name {} is taken", name, snakeCase(name));
        }
    }

    private void removed(String name) {
        mirror.remove(snakeCase(name));
    }

    @Override
    public void onGaugeAdded(String name, Gauge<?> gauge) {
        added(name, gauge);
    }

    @Override
    public void onGaugeRemoved(String name) {
        removed(name);
    }

    @Override
    public void onCounterAdded(String name, Counter counter) {
        added(name, counter);
    }

    @Override
    public void onCounterRemoved(String name) {
        removed(name);
    }

    @Override
    public void onHistogramAdded(String name, Histogram histogram) {
        added(name, histogram);
    }

    @Override
    public void onHistogramRemoved(String name) {
        removed(name);
    }

    @Override
    public void onMeterAdded(String name, Meter meter) {
        added(name, meter);
    }

    @Override
    public void onMeterRemoved(String name) {
        removed(name);
    }

    @Override
    public void onTimerAdded(String name, Timer timer) {
        added(name, timer);
    }

    @Override
    public void onTimerRemoved(String name) {
        removed(name);
    }
}
