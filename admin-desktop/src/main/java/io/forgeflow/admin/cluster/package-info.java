/**
 * What the console needs from a cluster ({@link io.forgeflow.admin.cluster.ClusterClient}), its implementation over
 * the REST client ({@link io.forgeflow.admin.cluster.RestClusterClient}), and the job-name directory the screens share.
 */
package io.forgeflow.admin.cluster;
