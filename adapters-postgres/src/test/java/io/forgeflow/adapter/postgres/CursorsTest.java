package io.forgeflow.adapter.postgres;

import io.forgeflow.domain.id.Ids;
import io.forgeflow.domain.port.Page;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Instant;
import java.util.List;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CursorsTest {

    @Test
    void aCursorStandsForTheIdItWasMadeFrom() {
        String id = Ids.newId(Instant.parse("2025-01-01T00:00:00Z"));

        String cursor = Cursors.encode(id);

        assertThat(cursor).hasSize(22).doesNotContain(id).matches("[A-Za-z0-9_-]+");
        assertThat(Cursors.decode(cursor)).isEqualTo(id);
    }

    @Test
    void noCursorMeansTheFirstPage() {
        assertThat(Cursors.decode(null)).isNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "x", "not a cursor at all!!!", "AAAAAAAAAAAAAAAAAAAAA=", "AAAAAAAAAAAAAAAAAAAAAAA"})
    void aMalformedCursorIsRefusedNamingTheCursor(String cursor) {
        assertThatThrownBy(() -> Cursors.decode(cursor))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("cursor");
    }

    @Test
    void aPageHasANextCursorOnlyWhenMoreRowsExist() {
        List<String> ids = List.of(Ids.newId(Instant.EPOCH), Ids.newId(Instant.EPOCH), Ids.newId(Instant.EPOCH));

        Page<String> partial = Cursors.page(ids, 2, Function.identity());
        Page<String> whole = Cursors.page(ids.subList(0, 2), 2, Function.identity());

        assertThat(partial.items()).containsExactly(ids.get(0), ids.get(1));
        assertThat(Cursors.decode(partial.nextCursor())).isEqualTo(ids.get(1));
        assertThat(whole.nextCursor()).isNull();
    }
}
