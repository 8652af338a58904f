package io.forgeflow.admin.cluster;

/** Makes a client for a server URL and an optional token (it does not contact the server yet). */
@FunctionalInterface
public interface ClusterConnector {

    ClusterClient open(String serverUrl, String token);
}
