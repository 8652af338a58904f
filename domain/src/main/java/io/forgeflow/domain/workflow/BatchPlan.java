package io.forgeflow.domain.workflow;

import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.job.JobDraft;
import io.forgeflow.domain.job.JobSpec;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A validated batch: its jobs in an order where every parent of the batch comes before its children, and the
 * optional job that runs when all of them have ended. Errors name the job: {@code jobs[3].payload}.
 *
 * @param jobs in creation order (parents first); each knows its index in the request
 */
public record BatchPlan(String name, String idempotencyKey, List<Planned> jobs, JobSpec onComplete) {
    public static final int MAX_JOBS = 10_000;
    public static final int MAX_REF_LENGTH = 100;
    public static final int MAX_NAME_LENGTH = 200;

    public BatchPlan {
        jobs = List.copyOf(jobs);
    }

    /** One job of a request as submitted: its optional ref and its dependencies as given. */
    public record Entry(String ref, JobDraft draft, List<?> dependsOn, String onParentFailure) {
    }

    /**
     * One job of the plan.
     *
     * @param index           its position in the request's {@code jobs}
     * @param batchParents    the indexes of its parents in this batch
     * @param externalParents the ids of its parents outside the batch
     */
    public record Planned(int index, String ref, JobSpec spec, ParentFailure onParentFailure,
                          List<Integer> batchParents, List<String> externalParents) {
        public Planned {
            batchParents = List.copyOf(batchParents);
            externalParents = List.copyOf(externalParents);
        }

        public boolean hasParents() {
            return !batchParents.isEmpty() || !externalParents.isEmpty();
        }
    }

    /** Validates a batch request completely, or throws a {@link ValidationException} naming the first fault. */
    public static BatchPlan validate(String name, String idempotencyKey, List<Entry> entries, JobDraft onComplete) {
        if (name != null && (name.isBlank() || name.length() > MAX_NAME_LENGTH || name.indexOf('\0') >= 0)) {
            throw new ValidationException("name", "name must be 1 to " + MAX_NAME_LENGTH
                    + " characters, not blank, without NUL, or left out");
        }
        if (idempotencyKey != null && (idempotencyKey.isEmpty()
                || idempotencyKey.length() > JobDraft.MAX_IDEMPOTENCY_KEY_LENGTH || idempotencyKey.indexOf('\0') >= 0
                || idempotencyKey.indexOf(io.forgeflow.domain.tenant.Tenants.SEPARATOR) >= 0)) {
            throw new ValidationException("idempotency_key", "idempotency_key must be 1 to "
                    + JobDraft.MAX_IDEMPOTENCY_KEY_LENGTH + " characters without NUL or U+001F, or left out");
        }
        if (entries == null || entries.isEmpty()) {
            throw new ValidationException("jobs", "jobs must list 1 to " + MAX_JOBS + " job bodies");
        }
        if (entries.size() > MAX_JOBS) {
            throw new ValidationException("jobs", "jobs lists " + entries.size() + " jobs: at most " + MAX_JOBS
                    + " are allowed in one batch");
        }
        Map<String, Integer> refs = new HashMap<>();
        for (int i = 0; i < entries.size(); i++) {
            Entry e = entries.get(i);
            if (e == null) {
                throw new ValidationException("jobs[" + i + "]", "jobs[" + i + "] must be a job body (an object)");
            }
            String ref = e.ref();
            if (ref != null) {
                if (ref.isBlank() || ref.length() > MAX_REF_LENGTH || ref.chars().anyMatch(Character::isISOControl)) {
                    throw new ValidationException("jobs[" + i + "].ref", "jobs[" + i + "].ref must be 1 to "
                            + MAX_REF_LENGTH + " characters, not blank, without control characters");
                }
                Integer before = refs.putIfAbsent(ref, i);
                if (before != null) {
                    throw new ValidationException("jobs[" + i + "].ref", "jobs[" + i + "].ref '" + ref
                            + "' is already the ref of jobs[" + before + "]: refs must be unique in a batch");
                }
            }
        }
        List<Planned> byIndex = new ArrayList<>(entries.size());
        for (int i = 0; i < entries.size(); i++) {
            byIndex.add(plan(i, entries.get(i), refs));
        }
        JobSpec then = null;
        if (onComplete != null) {
            then = prefixed("on_complete.", () -> onComplete.validate());
            if (then.isRecurring()) {
                throw new ValidationException("on_complete.cron_expr", "on_complete must be a one-off job: leave "
                        + "cron_expr out");
            }
            if (then.idempotencyKey() != null || then.uniqueKey() != null) {
                throw new ValidationException("on_complete.idempotency_key", "on_complete cannot have an "
                        + "idempotency_key or unique_key: give the batch an idempotency_key instead");
            }
        }
        return new BatchPlan(name, idempotencyKey, order(byIndex, entries), then);
    }

    private static Planned plan(int i, Entry e, Map<String, Integer> refs) {
        String prefix = "jobs[" + i + "].";
        JobSpec spec = prefixed(prefix, () -> e.draft().validate());
        if (spec.isRecurring()) {
            throw new ValidationException(prefix + "cron_expr", prefix + "cron_expr: a batch holds one-off jobs "
                    + "only: submit a recurring job with POST /api/jobs");
        }
        if (spec.idempotencyKey() != null) {
            throw new ValidationException(prefix + "idempotency_key", prefix + "idempotency_key is not allowed in a "
                    + "batch: give the batch an idempotency_key instead");
        }
        if (spec.uniqueKey() != null) {
            throw new ValidationException(prefix + "unique_key", prefix + "unique_key is not allowed in a batch");
        }
        if (spec.sequenceKey() != null) {
            throw new ValidationException(prefix + "sequence_key", prefix + "sequence_key is not allowed in a batch: "
                    + "submit sequenced jobs with POST /api/jobs");
        }
        if (spec.debounce() != null) {
            throw new ValidationException(prefix + "debounce", prefix + "debounce is not allowed in a batch: a "
                    + "batch's jobs run together by design; submit debounced jobs with POST /api/jobs");
        }
        Dependencies deps = Dependencies.validate(e.dependsOn(), e.onParentFailure(), refs.keySet(), prefix);
        List<Integer> inBatch = new ArrayList<>();
        List<String> outside = new ArrayList<>();
        for (String parent : deps.parents()) {
            Integer at = refs.get(parent);
            if (at != null) {
                if (at == i) {
                    throw new ValidationException(prefix + "depends_on", prefix + "depends_on names the job itself ("
                            + parent + "): a job cannot wait for itself");
                }
                inBatch.add(at);
            } else {
                outside.add(parent);
            }
        }
        return new Planned(i, e.ref(), spec, deps.onParentFailure(), inBatch, outside);
    }

    /** Kahn's order; what is left over lies on a cycle, reported by its path. */
    private static List<Planned> order(List<Planned> byIndex, List<Entry> entries) {
        int n = byIndex.size();
        int[] waiting = new int[n];
        List<List<Integer>> children = new ArrayList<>(n);
        for (Planned ignored : byIndex) {
            children.add(new ArrayList<>());
        }
        for (Planned p : byIndex) {
            waiting[p.index()] = p.batchParents().size();
            for (int parent : p.batchParents()) {
                children.get(parent).add(p.index());
            }
        }
        Deque<Integer> ready = new ArrayDeque<>();
        for (int i = 0; i < n; i++) {
            if (waiting[i] == 0) {
                ready.add(i);
            }
        }
        List<Planned> ordered = new ArrayList<>(n);
        while (!ready.isEmpty()) {
            int next = ready.poll();
            ordered.add(byIndex.get(next));
            for (int child : children.get(next)) {
                if (--waiting[child] == 0) {
                    ready.add(child);
                }
            }
        }
        if (ordered.size() < n) {
            int start = 0;
            while (waiting[start] == 0) {
                start++;
            }
            throw new ValidationException("jobs[" + start + "].depends_on", "jobs[" + start + "].depends_on makes a "
                    + "cycle: " + cycleFrom(start, byIndex, waiting, entries) + ": a job cannot wait for itself");
        }
        return ordered;
    }

    /** A cycle through the unordered jobs, as refs: {@code a -> b -> a}. */
    private static String cycleFrom(int start, List<Planned> byIndex, int[] waiting, List<Entry> entries) {
        Set<Integer> path = new LinkedHashSet<>();
        int at = start;
        while (path.add(at)) {
            for (int parent : byIndex.get(at).batchParents()) {
                if (waiting[parent] > 0) {
                    at = parent;
                    break;
                }
            }
        }
        List<Integer> loop = new ArrayList<>(path);
        loop = loop.subList(loop.indexOf(at), loop.size());
        List<String> names = new ArrayList<>();
        for (int i : loop) {
            names.add(entries.get(i).ref());
        }
        names.add(entries.get(at).ref());
        Collections.reverse(names);
        return String.join(" -> ", names);
    }

    private static JobSpec prefixed(String prefix, java.util.function.Supplier<JobSpec> validation) {
        try {
            return validation.get();
        } catch (ValidationException e) {
            throw new ValidationException(prefix + e.field(), prefix + e.getMessage());
        }
    }
}
