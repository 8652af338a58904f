package io.forgeflow.application.worker;

import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.job.QueueNames;
import io.forgeflow.domain.queue.QueueSelection;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A share of a worker's execution slots reserved for some queues: runs of {@code queues} are claimed into these
 * {@code slots} only.
 */
public record QueueLane(QueueSelection queues, int slots) {
    public static final int MAX_SLOTS = 1000;

    public QueueLane {
        Objects.requireNonNull(queues, "queues");
        if (slots < 1 || slots > MAX_SLOTS) {
            throw new IllegalArgumentException("a queue lane needs 1 to " + MAX_SLOTS + " slots, was " + slots);
        }
    }

    /** Every queue, in {@code slots} slots: a worker without FORGEFLOW_QUEUES. */
    public static List<QueueLane> all(int slots) {
        return List.of(new QueueLane(QueueSelection.ALL, slots));
    }

    /**
     * Reads FORGEFLOW_QUEUES: a comma-separated list of {@code name} or {@code name=slots}. A queue with a count
     * gets its own slots (local concurrency); queues without one share {@code defaultSlots}; {@code *} stands for
     * every queue not named (with or without a count). Blank or {@code *}: every queue in {@code defaultSlots}.
     * Examples: {@code reports=2,webhooks=16} (only these two queues); {@code reports=2,*} (reports in 2 slots of its
     * own, every other queue in the default slots).
     *
     * @throws IllegalArgumentException naming the entry at fault and how to write it
     */
    public static List<QueueLane> parse(String spec, int defaultSlots) {
        if (spec == null || spec.isBlank() || spec.trim().equals("*")) {
            return all(defaultSlots);
        }
        Map<String, Integer> own = new LinkedHashMap<>();
        Set<String> shared = new LinkedHashSet<>();
        Integer rest = null;
        boolean restShared = false;
        Set<String> seen = new LinkedHashSet<>();
        for (String raw : spec.split(",", -1)) {
            String entry = raw.trim();
            if (entry.isEmpty()) {
                throw bad(spec, "an empty entry (two commas in a row, or a trailing comma)");
            }
            int eq = entry.indexOf('=');
            String name = (eq < 0 ? entry : entry.substring(0, eq)).trim();
            Integer slots = null;
            if (eq >= 0) {
                String count = entry.substring(eq + 1).trim();
                try {
                    slots = Integer.parseInt(count);
                } catch (NumberFormatException e) {
                    throw bad(spec, "'" + entry + "': the slots after '=' must be a whole number, e.g. reports=2");
                }
                if (slots < 1 || slots > MAX_SLOTS) {
                    throw bad(spec, "'" + entry + "': slots must be between 1 and " + MAX_SLOTS);
                }
            }
            if (!seen.add(name)) {
                throw bad(spec, "queue '" + name + "' is listed twice");
            }
            if (name.equals("*")) {
                rest = slots;
                restShared = slots == null;
                continue;
            }
            try {
                QueueNames.require("FORGEFLOW_QUEUES", name);
            } catch (ValidationException e) {
                throw bad(spec, "'" + name + "' is not a queue name (letters, digits, '.', '_', '-')");
            }
            if (slots == null) {
                shared.add(name);
            } else {
                own.put(name, slots);
            }
        }
        List<QueueLane> lanes = new ArrayList<>();
        own.forEach((name, slots) -> lanes.add(new QueueLane(QueueSelection.only(Set.of(name)), slots)));
        Set<String> named = new LinkedHashSet<>(own.keySet());
        named.addAll(shared);
        if (restShared || rest != null) {
            if (restShared) {
                // '*' without a count: every queue not given its own slots shares the default slots
                lanes.add(new QueueLane(QueueSelection.allBut(own.keySet()), defaultSlots));
            } else {
                lanes.add(new QueueLane(QueueSelection.allBut(named), rest));
                if (!shared.isEmpty()) {
                    lanes.add(new QueueLane(QueueSelection.only(shared), defaultSlots));
                }
            }
        } else if (!shared.isEmpty()) {
            lanes.add(new QueueLane(QueueSelection.only(shared), defaultSlots));
        }
        return List.copyOf(lanes);
    }

    private static IllegalArgumentException bad(String spec, String why) {
        return new IllegalArgumentException("FORGEFLOW_QUEUES '" + spec + "' is not valid: " + why
                + ". Write a comma-separated list of queue names, each optionally with its own slots: "
                + "\"reports=2,webhooks=16\", or \"reports=2,*\" for reports in 2 slots of its own and every other "
                + "queue in the default slots");
    }

    @Override
    public String toString() {
        return queues + " in " + slots + " slot(s)";
    }
}
