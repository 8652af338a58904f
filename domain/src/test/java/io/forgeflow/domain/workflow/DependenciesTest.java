package io.forgeflow.domain.workflow;

import io.forgeflow.domain.error.ValidationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DependenciesTest {
    static final String A = "0190a6f2-3c4d-7e8f-9a0b-1c2d3e4f5a6b";
    static final String B = "0190A6F2-3C4D-7E8F-9A0B-1C2D3E4F5A6C";

    static ValidationException refusal(List<?> dependsOn, String policy, Set<String> refs, String prefix) {
        try {
            Dependencies.validate(dependsOn, policy, refs, prefix);
        } catch (ValidationException e) {
            return e;
        }
        throw new AssertionError("accepted " + dependsOn + " / " + policy);
    }

    @Test
    void noDependsOnIsNone() {
        assertThat(Dependencies.validate(null, null, Set.of(), "")).isSameAs(Dependencies.NONE);
        assertThat(Dependencies.NONE.isEmpty()).isTrue();
        assertThat(Dependencies.NONE.onParentFailure()).isNull();
    }

    @Test
    void idsAreKeptInOrderInLowerCaseWithCancelByDefault() {
        Dependencies d = Dependencies.validate(List.of(B, A), null, Set.of(), "");
        assertThat(d.parents()).containsExactly(B.toLowerCase(), A);
        assertThat(d.onParentFailure()).isEqualTo(ParentFailure.CANCEL);
        assertThat(d.isEmpty()).isFalse();
    }

    @Test
    void refsAreKeptAsGivenBesideIds() {
        Dependencies d = Dependencies.validate(List.of("Extract", A), "wait", Set.of("Extract"), "jobs[1].");
        assertThat(d.parents()).containsExactly("Extract", A);
        assertThat(d.onParentFailure()).isEqualTo(ParentFailure.WAIT);
        assertThat(d.withParents(List.of(B)).parents()).containsExactly(B);
        assertThat(d.withParents(List.of(B)).onParentFailure()).isEqualTo(ParentFailure.WAIT);
    }

    @Test
    void aPolicyWithoutParentsIsRefused() {
        ValidationException e = refusal(null, "run", Set.of(), "jobs[2].");
        assertThat(e.field()).isEqualTo("jobs[2].on_parent_failure");
        assertThat(e.getMessage()).startsWith("jobs[2].on_parent_failure needs depends_on");
    }

    @Test
    void anEmptyOrTooLongListIsRefused() {
        assertThat(refusal(List.of(), null, Set.of(), "").field()).isEqualTo("depends_on");
        assertThat(refusal(List.of(), null, Set.of(), "").getMessage()).contains("1 to 100");
        List<String> many = new ArrayList<>();
        for (int i = 0; i < 101; i++) {
            many.add(String.format("0190a6f2-3c4d-7e8f-9a0b-%012d", i));
        }
        ValidationException e = refusal(many, null, Set.of(), "");
        assertThat(e.field()).isEqualTo("depends_on");
        assertThat(e.getMessage()).contains("101 parents").contains("at most 100");
        assertThat(Dependencies.validate(many.subList(0, 100), null, Set.of(), "").parents()).hasSize(100);
    }

    @Test
    void entriesMustBeIdsOrRefs() {
        ValidationException notText = refusal(Arrays.asList(A, 7), null, Set.of(), "");
        assertThat(notText.getMessage()).isEqualTo("depends_on[1] must be a job id (a string), was 7");
        assertThat(refusal(Arrays.asList((Object) null), null, Set.of(), "").getMessage()).contains("was null");
        assertThat(refusal(List.of(" "), null, Set.of(), "").getMessage()).contains("depends_on[0] must be a job id");
        assertThat(refusal(List.of("nope"), null, Set.of(), "").getMessage())
                .isEqualTo("depends_on[0] 'nope' is not a job id");
        assertThat(refusal(List.of("nope"), null, Set.of("a"), "jobs[0].").getMessage())
                .isEqualTo("jobs[0].depends_on[0] 'nope' is not a job id nor the ref of a job in this batch");
        assertThat(refusal(List.of("y".repeat(60)), null, Set.of(), "").getMessage()).contains("'" + "y".repeat(60) + "' is")
                .doesNotContain("…");
        String longOne = "x".repeat(70);
        assertThat(refusal(List.of(longOne), null, Set.of(), "").getMessage()).contains("x".repeat(60) + "…'")
                .doesNotContain("x".repeat(61));
    }

    @Test
    void aParentListedTwiceIsRefusedEvenInAnotherCase() {
        ValidationException e = refusal(List.of(A, A.toUpperCase()), null, Set.of(), "");
        assertThat(e.field()).isEqualTo("depends_on");
        assertThat(e.getMessage()).startsWith("depends_on[1] repeats").contains("list each parent once");
        assertThat(refusal(List.of("a", "a"), null, Set.of("a"), "").getMessage()).startsWith("depends_on[1] repeats a");
    }

    @Test
    void anUnknownPolicyIsRefusedNamingTheChoices() {
        ValidationException e = refusal(List.of(A), "ignore", Set.of(), "");
        assertThat(e.field()).isEqualTo("on_parent_failure");
        assertThat(e.getMessage()).isEqualTo("on_parent_failure must be \"cancel\", \"run\" or \"wait\", was 'ignore'");
    }

    @Test
    void aPolicyBelongsExactlyToAJobWithParents() {
        assertThatThrownBy(() -> new Dependencies(List.of(A), null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Dependencies(List.of(), ParentFailure.RUN))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Dependencies.NONE.withParents(null)).isInstanceOf(NullPointerException.class);
    }

    @ParameterizedTest
    @EnumSource(ParentFailure.class)
    void policiesRoundTripTheirWireNames(ParentFailure p) {
        assertThat(ParentFailure.fromWire(p.wireName())).isSameAs(p);
        assertThat(p.wireName()).isEqualTo(p.name().toLowerCase());
    }

    @Test
    void anUnknownWireNameIsRefused() {
        assertThatThrownBy(() -> ParentFailure.fromWire("CANCEL")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("CANCEL");
    }
}
