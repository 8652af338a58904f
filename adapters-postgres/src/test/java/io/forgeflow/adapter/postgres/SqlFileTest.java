package io.forgeflow.adapter.postgres;

import org.jdbi.v3.core.statement.ColonPrefixSqlParser;
import org.jdbi.v3.core.statement.ParsedSql;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SqlFileTest {

    @Nested
    class Parsing {
        @Test
        void namedParametersBecomePositionsInOrderAndARepeatedNameGetsEveryPosition() {
            SqlFile file = SqlFile.parse("t.sql", "SELECT * FROM runs WHERE worker_id = :worker AND attempt = :attempt"
                    + " OR worker_id = :worker");

            assertThat(file.jdbc()).isEqualTo("SELECT * FROM runs WHERE worker_id = ? AND attempt = ? OR worker_id = ?");
            assertThat(file.parameters()).containsExactly("worker", "attempt", "worker");
            assertThat(file.positions("worker")).containsExactly(1, 3);
        }

        @Test
        void castsQuotesAndCommentsHoldNoParameters() {
            SqlFile file = SqlFile.parse("t.sql", "-- claim: :not a parameter\nSELECT CAST(:a AS text[]), x::int, "
                    + "':b' , \"c:d\", 'it''s :e' /* :f */ FROM t WHERE y = :g_1");

            assertThat(file.parameters()).containsExactly("a", "g_1");
            assertThat(file.jdbc()).isEqualTo("-- claim: :not a parameter\nSELECT CAST(? AS text[]), x::int, "
                    + "':b' , \"c:d\", 'it''s :e' /* :f */ FROM t WHERE y = ?");
        }

        @Test
        void aQuestionMarkOutsideQuotesAndCommentsIsRefused() {
            assertThatThrownBy(() -> SqlFile.parse("t.sql", "SELECT payload ? 'key' FROM runs"))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("t.sql");
            assertThat(SqlFile.parse("t.sql", "SELECT '?' -- why?\n").parameters()).isEmpty();
        }

        @Test
        void anUnknownParameterNameIsABug() {
            assertThatThrownBy(() -> SqlFile.parse("t.sql", "SELECT :a").positions("b"))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(":b");
        }
    }

    /** Every statement file is read the way JDBI reads it: same text, same parameters in the same order. */
    @Test
    void everyStatementFileParsesAsJdbiParsesIt() throws IOException {
        Path root = BoundParametersTest.SQL;
        List<Path> files;
        try (Stream<Path> walk = Files.walk(root)) {
            files = walk.filter(p -> p.toString().endsWith(".sql")).sorted().toList();
        }
        assertThat(files).hasSizeGreaterThan(10);
        ColonPrefixSqlParser jdbi = new ColonPrefixSqlParser();
        for (Path file : files) {
            String text = Files.readString(file);
            String resource = root.relativize(file).toString().replace('\\', '/');
            ParsedSql expected = jdbi.parse(text, null);
            SqlFile parsed = SqlFile.load(resource);

            assertThat(parsed.jdbc()).as(resource).isEqualTo(expected.getSql());
            assertThat(parsed.parameters()).as(resource).isEqualTo(expected.getParameters().getParameterNames());
        }
    }
}
