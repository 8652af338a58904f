package io.forgeflow.server;

import io.dropwizard.core.setup.Environment;
import io.forgeflow.adapter.rest.EventStreams;
import io.forgeflow.adapter.rest.RestModule;
import io.forgeflow.application.event.RunEventFeed;
import io.forgeflow.application.node.QueryNodes;
import io.forgeflow.application.retention.RetentionSweeper;
import io.forgeflow.application.retention.RetentionRole;
import io.forgeflow.domain.port.LeaderElection;
import io.forgeflow.domain.port.NodeRegistry;
import io.forgeflow.domain.port.Retention;
import io.forgeflow.domain.port.RunEvents;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.component.LifeCycle;

import java.time.Duration;

/** Wiring for the live event stream (api nodes) and for retention (scheduler nodes; only the leader deletes). */
final class ObservabilityWiring {
    /** The pause between two retention batches. */
    static final Duration RETENTION_PAUSE = Duration.ofMillis(50);
    /** How often the leader checks whether the tables' planner statistics need refreshing (autovacuum off only). */
    static final Duration STATISTICS_INTERVAL = Duration.ofSeconds(15);

    private ObservabilityWiring() {
    }

    /**
     * {@code GET /api/events}: a feed of the cluster's run changes with its replay buffer, and the streams that serve
     * it. The streams are closed as soon as the server starts stopping (clients reconnect to another node) so that
     * open streams never hold up a graceful shutdown.
     */
    static EventStreams liveEvents(Environment environment, RunEvents events, ForgeFlowSettings settings,
                                   io.forgeflow.domain.port.TenantDirectory tenants) {
        RunEventFeed feed = new RunEventFeed(events, settings.eventBuffer);
        EventStreams streams = new EventStreams(feed, settings.eventKeepAlive.toJavaDuration(), settings.eventStreams)
                .tenants(tenants);
        environment.jersey().register(RestModule.events(streams));
        environment.lifecycle().manage(NodeWiring.managed(feed::start, () -> {
            streams.close();
            feed.close();
        }));
        environment.lifecycle().addEventListener(new LifeCycle.Listener() {
            @Override
            public void lifeCycleStopping(LifeCycle event) {
                if (event instanceof Server) {
                    streams.close();
                }
            }
        });
        return streams;
    }

    /** The leader's retention loop: every {@code retentionInterval}, delete what is older than {@code retention}. */
    static void retention(Environment environment, Retention retention, NodeRegistry nodes, LeaderElection election,
                          ForgeFlowSettings settings, ForgeFlowMetrics metrics) {
        Duration heartbeat = settings.heartbeatInterval.toJavaDuration();
        RetentionSweeper sweeper = new RetentionSweeper(retention, nodes, election, settings.retention.toJavaDuration(),
                Duration.ofSeconds(QueryNodes.keepWindowSeconds(heartbeat)), RETENTION_PAUSE, RetentionSweeper.BATCH,
                settings.historyAfter.toJavaDuration(), metrics::retentionDeleted);
        // where autovacuum is off, the leader keeps the planner's statistics fresh itself (README, "Keep autovacuum on")
        RetentionRole role = new RetentionRole(sweeper, settings.retentionInterval.toJavaDuration(), STATISTICS_INTERVAL);
        environment.lifecycle().manage(NodeWiring.managed(role::start, role::stop));
    }
}
