package io.forgeflow.adapter.postgres;

import javax.sql.DataSource;
import java.io.PrintWriter;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;

/** A {@link DataSource} over a pool: its logging and login settings are the pool's; connections are the subclass's. */
abstract class ForwardingDataSource implements DataSource {
    final DataSource pool;

    ForwardingDataSource(DataSource pool) {
        this.pool = pool;
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return pool.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        pool.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        pool.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return pool.getLoginTimeout();
    }

    @Override
    public java.util.logging.Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return pool.getParentLogger();
    }
}
