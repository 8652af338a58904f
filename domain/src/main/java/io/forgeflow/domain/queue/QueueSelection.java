package io.forgeflow.domain.queue;

import java.util.Set;

/**
 * Which queues a claim takes runs from: those in {@code include} (null: every queue), minus those in
 * {@code exclude}.
 */
public record QueueSelection(Set<String> include, Set<String> exclude) {
    public static final QueueSelection ALL = new QueueSelection(null, Set.of());

    public QueueSelection {
        include = include == null ? null : Set.copyOf(include);
        exclude = exclude == null ? Set.of() : Set.copyOf(exclude);
        if (include != null && include.isEmpty()) {
            throw new IllegalArgumentException("a selection of no queue takes nothing: give null for every queue");
        }
    }

    public static QueueSelection only(Set<String> queues) {
        return new QueueSelection(queues, Set.of());
    }

    public static QueueSelection allBut(Set<String> queues) {
        return new QueueSelection(null, queues);
    }

    /** Whether runs of {@code queue} are taken. */
    public boolean takes(String queue) {
        return (include == null || include.contains(queue)) && !exclude.contains(queue);
    }

    @Override
    public String toString() {
        if (include == null) {
            return exclude.isEmpty() ? "all queues" : "all queues but " + exclude;
        }
        return "queues " + include;
    }
}
