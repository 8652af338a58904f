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
}
