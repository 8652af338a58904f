package io.forgeflow.adapter.postgres;

import io.forgeflow.domain.job.Notice;
import io.forgeflow.domain.port.NoticeOutbox;
import org.jdbi.v3.core.Jdbi;

import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * The notices outbox on PostgreSQL (the {@code notices} table, 0023): rows are written by {@code forgeflow_end_attempts}
 * and {@code JobSql/changeStatus.sql} in the events' transactions; {@link #drain} locks the oldest with
 * {@code FOR UPDATE SKIP LOCKED}, hands them out, and deletes the accepted ones in the same transaction.
 */
public final class PostgresNoticeOutbox implements NoticeOutbox {
    private final Jdbi jdbi;

    public PostgresNoticeOutbox(Jdbi jdbi) {
        this.jdbi = Objects.requireNonNull(jdbi, "jdbi");
    }

    @Override
    public int drain(int limit, Predicate<Notice> send) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be >= 1, was " + limit);
        }
        return jdbi.inTransaction(handle -> {
            NoticeSql sql = handle.attach(NoticeSql.class);
            List<Notice> held = sql.lockOldest(limit);
            Long[] sent = held.stream().filter(send).map(Notice::id).toArray(Long[]::new);
            return sent.length == 0 ? 0 : sql.remove(sent);
        });
    }

    @Override
    public List<Notice> pending(int limit) {
        return jdbi.withExtension(NoticeSql.class, sql -> sql.oldest(limit));
    }
}
