package io.forgeflow.admin.cluster;

import io.forgeflow.admin.support.Async;
import io.forgeflow.client.Job;
import javafx.collections.FXCollections;
import javafx.collections.ObservableMap;

import java.util.Collection;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;

/**
 * Job names by id, shared by every screen: runs carry only a {@code job_id}, operators think in job names. Names are
 * learned from job lists and fetched once for ids not seen yet. Touch only on the UI thread.
 */
public final class JobNames {
    private final ClusterClient cluster;
    private final Async async;
    private final ObservableMap<String, String> names = FXCollections.observableHashMap();
    private final Set<String> asked = new HashSet<>();

    public JobNames(ClusterClient cluster, Async async) {
        this.cluster = Objects.requireNonNull(cluster, "cluster");
        this.async = Objects.requireNonNull(async, "async");
    }

    /** Id to name; views bind cells to it so names appear when they arrive. */
    public ObservableMap<String, String> names() {
        return names;
    }

    /** The job's name, or its id while the name is unknown. */
    public String nameOf(String jobId) {
        if (jobId == null) {
            return "";
        }
        return names.getOrDefault(jobId, jobId);
    }

    public void learn(Job job) {
        if (job != null) {
            learn(job.id(), job.name());
        }
    }

    public void learn(String jobId, String name) {
        if (jobId != null && name != null) {
            names.put(jobId, name);
        }
    }

    /** Fetches, in the background, the names of the ids not known yet (each id at most once). */
    public void resolve(Collection<String> jobIds) {
        for (String id : new HashSet<>(jobIds)) {
            if (id == null || names.containsKey(id) || !asked.add(id)) {
                continue;
            }
            async.run(() -> cluster.job(id), this::learn, failure -> {
                // the id stays as the label; a deleted or unreadable job is not worth an error
            });
        }
    }
}
