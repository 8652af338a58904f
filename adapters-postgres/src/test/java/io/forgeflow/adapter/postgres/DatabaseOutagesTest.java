package io.forgeflow.adapter.postgres;

import io.forgeflow.domain.error.UnavailableException;
import org.jdbi.v3.core.ConnectionException;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;

import static org.assertj.core.api.Assertions.assertThat;

/** Which failures are the database being away, by SQLSTATE and cause chain, whatever wraps them. */
class DatabaseOutagesTest {

    @ParameterizedTest(name = "SQLSTATE {0}: outage {1}")
    @CsvSource({
            "08001, true",   // connection refused (sqlclient unable to establish connection)
            "08003, true",   // connection does not exist (closed)
            "08006, true",   // connection failure (I/O error, backend gone)
            "08P01, true",   // protocol violation: class 08
            "57P01, true",   // admin shutdown: terminated by pg_terminate_backend or a fast shutdown
            "57P02, true",   // crash shutdown
            "57P03, true",   // cannot connect now: starting up or shutting down
            "53300, true",   // too many connections
            "57014, false",  // query cancelled (statement timeout): the statement, not the database
            "23505, false",  // unique violation
            "40001, false",  // serialization failure
            "53200, false",  // out of memory
    })
    void anSqlStateTellsAnOutage(String state, boolean outage) {
        SQLException driver = new SQLException("from the driver", state);

        assertThat(DatabaseOutages.isOutage(driver)).isEqualTo(outage);
        assertThat(DatabaseOutages.isOutage(new UnableToExecuteStatementException(driver, null)))
                .as("wrapped by JDBI").isEqualTo(outage);
        assertThat(DatabaseOutages.isOutage(new GroupCommit.NothingWritten("rolled back",
                new IllegalStateException(driver)))).as("deep in the chain").isEqualTo(outage);
    }

    @Test
    void aPoolTimeoutIsAnOutage() {
        assertThat(DatabaseOutages.isOutage(new RuntimeException(new SQLTransientConnectionException(
                "Connection is not available, request timed out after 30000ms")))).isTrue();
        assertThat(DatabaseOutages.isOutage(new RuntimeException(new PoolExhaustedException(
                "Timeout: Pool empty. Unable to fetch a connection in 30 seconds")))).isTrue();
    }

    /** Named as Tomcat JDBC's pool names its timeout (the pool the server uses). */
    static final class PoolExhaustedException extends SQLException {
        PoolExhaustedException(String message) {
            super(message);
        }
    }

    @Test
    void aConnectionThePoolCouldNotGiveIsAnOutageWhateverItsWords() {
        // Tomcat JDBC, when the server ends a fresh connection during its validation query: no state, no cause
        SQLException bare = new SQLException("Validation Query Failed, enable logValidationErrors for more details.");

        assertThat(DatabaseOutages.isOutage(bare)).as("alone it says nothing").isFalse();
        assertThat(DatabaseOutages.isOutage(new ConnectionException(bare))).as("JDBI could not open a handle").isTrue();
        assertThat(DatabaseOutages.isOutage(new JdbcStatements.StatementFailedException("JobSql/insertWithRun.sql",
                new SQLException("x")))).isFalse();
        assertThat(DatabaseOutages.noConnection(bare)).isInstanceOf(UnavailableException.class).hasCause(bare);
    }

    @Test
    void anOutageInTheNextExceptionOrASuppressedOneCounts() {
        SQLException batch = new SQLException("batch entry 0 was aborted", "25P02");
        batch.setNextException(new SQLException("An I/O error occurred while sending to the backend", "08006"));
        assertThat(DatabaseOutages.isOutage(batch)).isTrue();

        IllegalStateException closing = new IllegalStateException("closing failed");
        closing.addSuppressed(new SQLException("This connection has been closed.", "08003"));
        assertThat(DatabaseOutages.isOutage(closing)).isTrue();
    }

    @Test
    void anythingElseIsNotAnOutageAndIsNotTranslated() {
        IllegalStateException bug = new IllegalStateException("a bug", new SQLException("syntax error", "42601"));

        assertThat(DatabaseOutages.isOutage(bug)).isFalse();
        assertThat(DatabaseOutages.translate(bug)).isSameAs(bug);
        assertThat(DatabaseOutages.isOutage(null)).isFalse();
    }

    @Test
    void anOutageIsTranslatedToUnavailableKeepingTheOriginalAsCause() {
        ConnectionException jdbi = new ConnectionException(new SQLException("refused", "08001"));

        RuntimeException translated = DatabaseOutages.translate(jdbi);

        assertThat(translated).isInstanceOf(UnavailableException.class).hasCause(jdbi)
                .hasMessageContaining("database is unavailable");
        assertThat(DatabaseOutages.translate(translated)).isSameAs(translated);
    }
}
