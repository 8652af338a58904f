package io.forgeflow.adapter.rest;

import io.dropwizard.core.Configuration;

/** The test server's configuration: Dropwizard's server settings only (see rest-test.yml). */
public class RestTestConfiguration extends Configuration {
}
