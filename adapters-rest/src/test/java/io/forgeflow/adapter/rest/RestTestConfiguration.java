package io.forgeflow.adapter.rest;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.core.Configuration;

import java.util.ArrayList;
import java.util.List;

/**
 * The test server's configuration: Dropwizard's server settings (see rest-test.yml), and the API tokens and metrics
 * token of the authenticated test server (rest-auth-test.yml).
 */
public class RestTestConfiguration extends Configuration {
    /** As FORGEFLOW_API_TOKENS: empty, an open API. */
    @JsonProperty
    public List<String> apiTokens = new ArrayList<>();

    /** As FORGEFLOW_METRICS_TOKEN: null, an open /metrics. */
    @JsonProperty
    public String metricsToken;

    /** As FORGEFLOW_ALLOWED_ORIGINS. */
    @JsonProperty
    public List<String> allowedOrigins = new ArrayList<>();

    /** As FORGEFLOW_ALLOWED_HOSTS. */
    @JsonProperty
    public List<String> allowedHosts = new ArrayList<>();

    /** The most event streams at once (FORGEFLOW_EVENT_STREAMS on a node). */
    @JsonProperty
    public int eventStreams = EventStreams.DEFAULT_MAX_STREAMS;

    /** The frames an event stream may have waiting before its client counts as too slow. */
    @JsonProperty
    public int eventQueueFrames = EventStreams.MAX_QUEUED_FRAMES;

    /** SO_SNDBUF of accepted connections (0: the kernel's, which grows to megabytes on loopback). */
    @JsonProperty
    public int sendBufferBytes;

    /** The event streams' keep-alive interval, in milliseconds. */
    @JsonProperty
    public long eventKeepAliveMillis = EventStreams.DEFAULT_KEEP_ALIVE.toMillis();

    /**
     * As FORGEFLOW_MAX_CONNECTIONS_PER_ADDRESS; high here: every test connects from 127.0.0.1, and java.net.http
     * keeps each client's connections open for minutes (rest-flood-test.yml sets a real one).
     */
    @JsonProperty
    public int maxConnectionsPerAddress = 100_000;

    /** As FORGEFLOW_MIN_REQUEST_DATA_RATE, in bytes per second. */
    @JsonProperty
    public long minRequestBytesPerSecond = SlowClientLimits.DEFAULTS.minBytesPerSecond();

    /** As FORGEFLOW_REQUEST_BODY_GRACE, in milliseconds. */
    @JsonProperty
    public long requestBodyGraceMillis = SlowClientLimits.DEFAULTS.grace().toMillis();
}
