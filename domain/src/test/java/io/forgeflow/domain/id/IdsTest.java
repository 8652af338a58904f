package io.forgeflow.domain.id;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.HashSet;
import java.util.Set;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

class IdsTest {
    @Test
    void idsAreVersion7UuidsThatSortByCreationTime() {
        Instant t = Instant.parse("2026-01-01T00:00:00Z");
        String older = Ids.newId(t);
        String newer = Ids.newId(t.plusMillis(1));
        assertThat(UUID.fromString(older).version()).isEqualTo(7);
        assertThat(UUID.fromString(older).variant()).isEqualTo(2);
        assertThat(older.compareTo(newer)).isNegative();
        assertThat(Ids.isWellFormed(older)).isTrue();
    }

    @Test
    void idsAreUniqueWithinOneMillisecond() {
        Instant t = Instant.now();
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 10_000; i++) {
            assertThat(seen.add(Ids.newId(t))).isTrue();
        }
    }

    @Test
    void theTwelveBitsAfterTheVersionAreRandomToo() {
        Instant t = Instant.parse("2026-01-01T00:00:00Z");
        Set<Long> randA = new HashSet<>();
        for (int i = 0; i < 64; i++) {
            UUID id = UUID.fromString(Ids.newId(t));
            assertThat(id.getMostSignificantBits() >>> 16).isEqualTo(t.toEpochMilli());
            randA.add(id.getMostSignificantBits() & 0x0FFFL);
        }
        // 64 draws of 12 random bits: all equal (or all 0xFFF) only if the bits are not random at all
        assertThat(randA).hasSizeGreaterThan(1);
    }

    @Test
    void malformedIdsAreRecognised() {
        assertThat(Ids.isWellFormed(null)).isFalse();
        assertThat(Ids.isWellFormed("")).isFalse();
        assertThat(Ids.isWellFormed("../etc/passwd")).isFalse();
        assertThat(Ids.isWellFormed("0190e0b4-7c3a-7d2e-8f00-00000000000g")).isFalse();
        assertThat(Ids.isWellFormed("0190e0b4x7c3a-7d2e-8f00-000000000000")).isFalse();
        assertThat(Ids.isWellFormed("0190E0B4-7C3A-7D2E-8F00-000000000000")).isTrue();
    }
}
