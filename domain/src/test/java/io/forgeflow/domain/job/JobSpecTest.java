package io.forgeflow.domain.job;

import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** An idempotent replay matches when the payloads are the same JSON values, whatever their Java form. */
class JobSpecTest {

    static JobSpec spec(Map<String, Object> payload) {
        return new JobSpec("n", "http", payload, null, null, "Europe/Berlin", 5, 3, 300, CatchUp.SKIP, "k");
    }

    static boolean same(Object a, Object b) {
        return spec(Map.of("v", a)).sameRequestAs(spec(Map.of("v", b)));
    }

    @Test
    void numbersMatchByValueWhateverTheirType() {
        assertThat(same(new BigInteger("100"), 100L)).isTrue();
        assertThat(same(1.5f, 1.5d)).isTrue();
        assertThat(same(1.5f, new BigDecimal("1.50"))).isTrue();
        assertThat(same(0, new BigDecimal("0.000"))).isTrue();
        assertThat(same(Double.NaN, Double.NaN)).isTrue();
    }

    @Test
    void differentNumbersDoNotMatch() {
        assertThat(same(new BigInteger("100"), 101L)).isFalse();
        assertThat(same(1.5f, 1)).isFalse();
        assertThat(same(1.5d, 1)).isFalse();
        assertThat(same(new BigDecimal("2.5"), new BigDecimal("1.5"))).isFalse();
    }

    @Test
    void listsMatchElementByElement() {
        assertThat(same(List.of(1, "a"), List.of(1L, "a"))).isTrue();
        assertThat(same(List.of(1, 2), List.of(1, 3))).isFalse();
        assertThat(same(List.of(1, 2), List.of(2, 1))).isFalse();
    }

    @Test
    void otherValuesMatchByEquality() {
        assertThat(same("echo hi", "echo hi")).isTrue();
        assertThat(same("echo hi", "echo ho")).isFalse();
        assertThat(same(true, false)).isFalse();
    }

    @Test
    void theZoneIsTheTimezoneParsed() {
        assertThat(spec(Map.of()).zone()).isEqualTo(ZoneId.of("Europe/Berlin"));
    }
}
