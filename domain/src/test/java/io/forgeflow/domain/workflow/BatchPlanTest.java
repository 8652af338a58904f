package io.forgeflow.domain.workflow;

import io.forgeflow.domain.error.ValidationException;
import io.forgeflow.domain.job.JobDraft;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BatchPlanTest {
    static final String OUTSIDE = "0190a6f2-3c4d-7e8f-9a0b-1c2d3e4f5a6b";

    static JobDraft draft(String name) {
        return new JobDraft(name, "shell", Map.of("command", "true"), null, null, null, null, null, null, null, null);
    }

    static BatchPlan.Entry entry(String ref, String name, String... parents) {
        return new BatchPlan.Entry(ref, draft(name), parents.length == 0 ? null : List.of(parents), null);
    }

    static ValidationException refusal(String name, String key, List<BatchPlan.Entry> entries, JobDraft then) {
        try {
            BatchPlan.validate(name, key, entries, then);
        } catch (ValidationException e) {
            return e;
        }
        throw new AssertionError("accepted");
    }

    @Test
    void aSequencedJobIsNotAllowedInABatch() {
        JobDraft sequenced = new JobDraft("s", "shell", Map.of("command", "true"), null, null, null, null, null, null,
                null, null, null, null, null, null, null, null, null, null, null, "order-1", null);
        ValidationException e = refusal(null, null, List.of(entry(null, "a"),
                new BatchPlan.Entry(null, sequenced, null, null)), null);
        assertThat(e.field()).isEqualTo("jobs[1].sequence_key");
        assertThat(e.getMessage()).contains("sequence_key is not allowed in a batch");
    }

    @Test
    void parentsComeBeforeChildrenWhateverTheRequestOrder() {
        BatchPlan plan = BatchPlan.validate("nightly", "k", List.of(entry("d", "d", "b", "c"), entry("b", "b", "a"),
                entry("c", "c", "a", OUTSIDE), entry("a", "a"), entry(null, "alone")), draft("done"));
        List<String> order = plan.jobs().stream().map(p -> p.spec().name()).toList();
        assertThat(order.indexOf("a")).isLessThan(order.indexOf("b")).isLessThan(order.indexOf("d"));
        assertThat(order.indexOf("c")).isLessThan(order.indexOf("d"));
        assertThat(order).hasSize(5).containsExactlyInAnyOrder("a", "b", "c", "d", "alone");
        BatchPlan.Planned c = plan.jobs().get(order.indexOf("c"));
        assertThat(c.index()).isEqualTo(2);
        assertThat(c.ref()).isEqualTo("c");
        assertThat(c.batchParents()).containsExactly(3);
        assertThat(c.externalParents()).containsExactly(OUTSIDE);
        assertThat(c.onParentFailure()).isEqualTo(ParentFailure.CANCEL);
        assertThat(c.hasParents()).isTrue();
        BatchPlan.Planned a = plan.jobs().get(order.indexOf("a"));
        assertThat(a.hasParents()).isFalse();
        assertThat(a.onParentFailure()).isNull();
        assertThat(plan.jobs().get(order.indexOf("d")).batchParents()).containsExactly(1, 2);
        assertThat(plan.name()).isEqualTo("nightly");
        assertThat(plan.idempotencyKey()).isEqualTo("k");
        assertThat(plan.onComplete().name()).isEqualTo("done");
        assertThat(BatchPlan.validate(null, null, List.of(entry(null, "x")), null).onComplete()).isNull();
    }

    @Test
    void aBatchKeyMayNotHoldTheTenantSeparator() {
        for (String key : List.of("\u001fload", "load\u001f1")) {
            assertThatThrownBy(() -> BatchPlan.validate(null, key, List.of(entry(null, "x")), null))
                    .isInstanceOfSatisfying(ValidationException.class,
                            e -> assertThat(e.field()).isEqualTo("idempotency_key"))
                    .hasMessageContaining("U+001F");
        }
    }

    @Test
    void onlyAnExternalParentStillMakesAChildWithParents() {
        BatchPlan.Planned p = BatchPlan.validate(null, null, List.of(entry(null, "x", OUTSIDE)), null).jobs().get(0);
        assertThat(p.hasParents()).isTrue();
        assertThat(p.batchParents()).isEmpty();
    }

    @Test
    void aCycleIsRefusedNamingItsPath() {
        ValidationException e = refusal(null, null, List.of(entry("a", "a", "c"), entry("b", "b", "a"),
                entry("c", "c", "b"), entry("z", "z")), null);
        assertThat(e.field()).isEqualTo("jobs[0].depends_on");
        assertThat(e.getMessage()).isEqualTo("jobs[0].depends_on makes a cycle: a -> b -> c -> a: a job cannot wait "
                + "for itself");
        ValidationException later = refusal(null, null, List.of(entry("ok", "ok"), entry("x", "x", "ok", "y"),
                entry("y", "y", "x")), null);
        assertThat(later.field()).isEqualTo("jobs[1].depends_on");
        assertThat(later.getMessage()).contains("x -> y -> x").doesNotContain("ok ->");
        ValidationException tail = refusal(null, null, List.of(entry("p", "p", "q"), entry("q", "q", "r"),
                entry("r", "r", "q")), null);
        assertThat(tail.getMessage()).contains(": q -> r -> q:").doesNotContain("p ->");
    }

    @Test
    void aJobWaitingForItselfIsRefused() {
        ValidationException e = refusal(null, null, List.of(entry("a", "a", "a")), null);
        assertThat(e.field()).isEqualTo("jobs[0].depends_on");
        assertThat(e.getMessage()).contains("names the job itself (a)");
    }

    @Test
    void refsMustBeUniqueAndWellFormed() {
        ValidationException twice = refusal(null, null, List.of(entry("a", "a"), entry("a", "b")), null);
        assertThat(twice.field()).isEqualTo("jobs[1].ref");
        assertThat(twice.getMessage()).contains("already the ref of jobs[0]");
        for (String bad : List.of(" ", "x".repeat(101), "a\nb")) {
            assertThat(refusal(null, null, List.of(entry(bad, "a")), null).field()).isEqualTo("jobs[0].ref");
        }
        assertThat(BatchPlan.validate(null, null, List.of(entry("x".repeat(100), "a")), null).jobs()).hasSize(1);
    }

    @Test
    void jobErrorsAreNamedByTheirPlaceInTheBatch() {
        JobDraft noExecutor = new JobDraft("x", null, null, null, null, null, null, null, null, null, null);
        ValidationException e = refusal(null, null, List.of(entry(null, "ok"),
                new BatchPlan.Entry(null, noExecutor, null, null)), null);
        assertThat(e.field()).isEqualTo("jobs[1].executor");
        assertThat(e.getMessage()).startsWith("jobs[1].executor is required");
        JobDraft recurring = new JobDraft("x", "shell", Map.of(), "0 3 * * *", null, null, null, null, null, null, null);
        assertThat(refusal(null, null, List.of(new BatchPlan.Entry(null, recurring, null, null)), null).field())
                .isEqualTo("jobs[0].cron_expr");
        JobDraft keyed = new JobDraft("x", "shell", Map.of(), null, null, null, null, null, null, null, "k1");
        assertThat(refusal(null, null, List.of(new BatchPlan.Entry(null, keyed, null, null)), null).field())
                .isEqualTo("jobs[0].idempotency_key");
        JobDraft unique = new JobDraft("x", "shell", Map.of(), null, null, null, null, null, null, null, null, null,
                null, null, null, "u1", null);
        assertThat(refusal(null, null, List.of(new BatchPlan.Entry(null, unique, null, null)), null).field())
                .isEqualTo("jobs[0].unique_key");
        assertThat(refusal(null, null, List.of(new BatchPlan.Entry(null, draft("x"), List.of("ghost"), null)), null)
                .field()).isEqualTo("jobs[0].depends_on");
    }

    @Test
    void theOnCompleteJobIsAOneOffWithoutKeys() {
        assertThat(refusal(null, null, List.of(entry(null, "a")),
                new JobDraft("t", "shell", Map.of(), "0 3 * * *", null, null, null, null, null, null, null)).field())
                .isEqualTo("on_complete.cron_expr");
        assertThat(refusal(null, null, List.of(entry(null, "a")),
                new JobDraft("t", "shell", Map.of(), null, null, null, null, null, null, null, "k")).field())
                .isEqualTo("on_complete.idempotency_key");
        assertThat(refusal(null, null, List.of(entry(null, "a")), new JobDraft("t", "shell", Map.of(), null, null,
                null, null, null, null, null, null, null, null, null, null, "u", null)).field())
                .isEqualTo("on_complete.idempotency_key");
        ValidationException noName = refusal(null, null, List.of(entry(null, "a")),
                new JobDraft(null, "shell", Map.of(), null, null, null, null, null, null, null, null));
        assertThat(noName.field()).isEqualTo("on_complete.name");
        assertThat(noName.getMessage()).startsWith("on_complete.name is required");
    }

    @Test
    void theBatchItselfIsChecked() {
        assertThat(refusal(null, null, null, null).field()).isEqualTo("jobs");
        assertThat(refusal(null, null, List.of(), null).field()).isEqualTo("jobs");
        List<BatchPlan.Entry> tooMany = new ArrayList<>();
        for (int i = 0; i <= BatchPlan.MAX_JOBS; i++) {
            tooMany.add(entry(null, "j"));
        }
        assertThat(refusal(null, null, tooMany, null).getMessage()).contains("10001 jobs").contains("at most 10000");
        assertThat(BatchPlan.validate(null, null, tooMany.subList(0, BatchPlan.MAX_JOBS), null).jobs())
                .hasSize(BatchPlan.MAX_JOBS);
        assertThat(refusal(null, null, Arrays.asList(entry(null, "a"), null), null).field()).isEqualTo("jobs[1]");
        for (String name : List.of(" ", "n".repeat(201), "a\0b", "\0a")) {
            assertThat(refusal(name, null, List.of(entry(null, "a")), null).field()).isEqualTo("name");
        }
        assertThat(BatchPlan.validate("n".repeat(200), null, List.of(entry(null, "a")), null).name()).hasSize(200);
        for (String key : List.of("", "k".repeat(201), "a\0b", "\0a")) {
            assertThat(refusal(null, key, List.of(entry(null, "a")), null).field()).isEqualTo("idempotency_key");
        }
        assertThat(BatchPlan.validate(null, "k".repeat(200), List.of(entry(null, "a")), null).idempotencyKey())
                .hasSize(200);
    }

    @Test
    void aPlanIsImmutable() {
        BatchPlan plan = BatchPlan.validate(null, null, List.of(entry(null, "a")), null);
        assertThatThrownBy(() -> plan.jobs().clear()).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> plan.jobs().get(0).batchParents().add(1))
                .isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> plan.jobs().get(0).externalParents().add("x"))
                .isInstanceOf(UnsupportedOperationException.class);
    }
}
