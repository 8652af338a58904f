package io.forgeflow.adapter.postgres;

import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.application.support.CallDeadline;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Statements made for a caller with a deadline are cancelled at it; others are the pool's as they were. */
class DeadlineBoundDataSourceIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    @Test
    void aStatementIsCancelledAtTheCallersDeadlineAndOthersRunAsBefore() {
        Jdbi jdbi = PostgresJdbi.create(pg.dataSource());
        Integer unbounded = jdbi.withHandle(h -> h.createQuery("SELECT 1 FROM pg_sleep(0.3)").mapTo(Integer.class).one());
        assertThat(unbounded).as("no deadline: no limit").isEqualTo(1);
        Integer bounded = CallDeadline.within(TimeUnit.SECONDS.toNanos(30), () -> jdbi.withHandle(h ->
                h.createQuery("SELECT 2").mapTo(Integer.class).one()));
        assertThat(bounded).as("within its deadline").isEqualTo(2);
        assertThatThrownBy(() -> CallDeadline.within(TimeUnit.MILLISECONDS.toNanos(300), () -> jdbi.withHandle(h ->
                h.createQuery("SELECT 1 FROM pg_sleep(30)").mapTo(Integer.class).one())))
                .hasStackTraceContaining("canceling statement due to user request");
    }

    @Test
    void nothingStartsOnceTheDeadlinePassedAndPlainJdbcStatementsAreBoundToo() throws SQLException {
        DeadlineBoundDataSource bounded = new DeadlineBoundDataSource(pg.dataSource());
        assertThatThrownBy(() -> CallDeadline.within(-1, () -> {
            try (Connection ignored = bounded.getConnection()) {
                return null;
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        })).hasStackTraceContaining("deadline passed");
        CallDeadline.within(TimeUnit.SECONDS.toNanos(30), () -> {
            try (Connection c = bounded.getConnection()) {
                assertThat(c).isInstanceOf(DeadlineBoundDataSource.BoundConnection.class);
                return null;
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
        try (Connection c = bounded.getConnection()) {
            assertThat(c).as("no deadline: the pool's own").isNotInstanceOf(DeadlineBoundDataSource.BoundConnection.class);
        }
        JdbcStatements statements = JdbcStatements.of(PostgresJdbi.create(pg.dataSource()));
        assertThatThrownBy(() -> CallDeadline.within(TimeUnit.MILLISECONDS.toNanos(300), () ->
                statements.inTransaction(SqlFile.load("RunSql/claim.sql"), c -> {
                    try (var st = c.prepareStatement("SELECT pg_sleep(30)")) {
                        return st.execute();
                    }
                }))).hasStackTraceContaining("canceling statement due to user request");
    }
}
