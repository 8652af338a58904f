package io.forgeflow.adapter.postgres.testing;

import org.postgresql.ds.PGSimpleDataSource;

import javax.sql.DataSource;

/**
 * The test database's connection pool: tomcat-jdbc, the pool Dropwizard's server uses, when it is on the classpath
 * (it is in this module and in the server); else unpooled connections, slower but correct. Its sessions search
 * ForgeFlow's schema ({@code forgeflow}) only, as a node's do.
 */
final class TestPool {
    static final int MAX_CONNECTIONS = 40;

    private TestPool() {
    }

    static DataSource create(String jdbcUrl, String user, String password) {
        if (tomcatPresent()) {
            return Tomcat.create(jdbcUrl, user, password);
        }
        PGSimpleDataSource plain = new PGSimpleDataSource();
        plain.setURL(jdbcUrl);
        plain.setUser(user);
        plain.setPassword(password);
        plain.setCurrentSchema(io.forgeflow.adapter.postgres.PostgresSchema.DEFAULT);
        return plain;
    }

    static void close(DataSource dataSource) {
        if (tomcatPresent() && Tomcat.isPool(dataSource)) {
            Tomcat.close(dataSource);
        }
    }

    private static boolean tomcatPresent() {
        try {
            Class.forName("org.apache.tomcat.jdbc.pool.DataSource", false, TestPool.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /** Kept apart so that the class is only loaded when tomcat-jdbc is on the classpath. */
    private static final class Tomcat {
        static DataSource create(String jdbcUrl, String user, String password) {
            var properties = new org.apache.tomcat.jdbc.pool.PoolProperties();
            properties.setUrl(jdbcUrl);
            properties.setDriverClassName("org.postgresql.Driver");
            properties.setUsername(user);
            properties.setPassword(password);
            properties.setConnectionProperties(io.forgeflow.adapter.postgres.PostgresSchema.CONNECTION_PROPERTY + "="
                    + io.forgeflow.adapter.postgres.PostgresSchema.DEFAULT);
            properties.setMaxActive(MAX_CONNECTIONS);
            properties.setMaxIdle(MAX_CONNECTIONS);
            properties.setMinIdle(0);
            properties.setInitialSize(0);
            properties.setMaxWait(30_000);
            properties.setDefaultAutoCommit(true);
            properties.setRollbackOnReturn(true);
            properties.setJdbcInterceptors("ConnectionState");
            properties.setLogAbandoned(false);
            return new org.apache.tomcat.jdbc.pool.DataSource(properties);
        }

        static boolean isPool(DataSource dataSource) {
            return dataSource instanceof org.apache.tomcat.jdbc.pool.DataSource;
        }

        static void close(DataSource dataSource) {
            ((org.apache.tomcat.jdbc.pool.DataSource) dataSource).close(true);
        }
    }
}
