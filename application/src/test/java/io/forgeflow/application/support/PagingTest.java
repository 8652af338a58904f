package io.forgeflow.application.support;

import io.forgeflow.domain.error.InvalidQueryException;
import io.forgeflow.domain.port.Page;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PagingTest {

    @ParameterizedTest(name = "limit {0}")
    @ValueSource(ints = {1, 2, 50, 499, 500})
    void limitsFromOneToFiveHundredAreAccepted(int limit) {
        assertThatCode(() -> Paging.checkLimit(limit)).doesNotThrowAnyException();
    }

    @ParameterizedTest(name = "limit {0}")
    @ValueSource(ints = {Integer.MIN_VALUE, -1, 0, 501, Integer.MAX_VALUE})
    void otherLimitsAreAnInvalidQueryNamingLimit(int limit) {
        assertThatThrownBy(() -> Paging.checkLimit(limit))
                .isInstanceOfSatisfying(InvalidQueryException.class, e -> {
                    assertThat(e.field()).isEqualTo("limit");
                    assertThat(e.getMessage()).contains("between 1 and 500").contains(Integer.toString(limit));
                });
    }

    @Test
    void theDefaultLimitIsFiftyAndTheMaximumFiveHundred() {
        assertThat(Paging.DEFAULT_LIMIT).isEqualTo(50);
        assertThat(Paging.MAX_LIMIT).isEqualTo(500);
    }

    @Test
    void aReadThatSucceedsIsReturnedAsItIs() {
        Page<String> page = new Page<>(List.of("a"), "next");

        assertThat(Paging.withCursor(null, () -> page)).isSameAs(page);
        assertThat(Paging.withCursor("c", () -> page)).isSameAs(page);
    }

    @Test
    void aCursorTheAdapterCannotDecodeIsAnInvalidQueryNamingCursor() {
        assertThatThrownBy(() -> Paging.withCursor("forged", () -> {
            throw new IllegalArgumentException("not a cursor");
        })).isInstanceOfSatisfying(InvalidQueryException.class, e -> {
            assertThat(e.field()).isEqualTo("cursor");
            assertThat(e.getMessage()).contains("next_cursor");
        });
    }

    @Test
    void withoutACursorAnIllegalArgumentIsABugAndSurfacesAsOne() {
        IllegalArgumentException bug = new IllegalArgumentException("a bug");

        assertThatThrownBy(() -> Paging.withCursor(null, () -> {
            throw bug;
        })).isSameAs(bug);
    }

    @Test
    void otherFailuresOfTheReadAreNotBlamedOnTheCursor() {
        IllegalStateException down = new IllegalStateException("database down");

        assertThatThrownBy(() -> Paging.withCursor("c", () -> {
            throw down;
        })).isSameAs(down);
    }
}
