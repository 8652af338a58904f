package io.forgeflow.devdatabase;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;

/** The start path of a node without FORGEFLOW_DATABASE_URL: an embedded PostgreSQL whose data survives a restart. */
class DevelopmentDatabaseIT {

    @Test
    void theDevelopmentDatabaseKeepsItsDataAcrossARestart(@TempDir Path dir) throws Exception {
        Path data = dir.resolve("forgeflow-data");
        DevelopmentDatabase first = DevelopmentDatabase.start(data);
        try (Connection c = DriverManager.getConnection(first.jdbcUrl(), first.user(), "");
             Statement st = c.createStatement()) {
            st.execute("CREATE TABLE kept (v text)");
            st.execute("INSERT INTO kept VALUES ('survives')");
        } finally {
            first.stop();
        }
        DevelopmentDatabase second = DevelopmentDatabase.start(data);
        try (Connection c = DriverManager.getConnection(second.jdbcUrl(), second.user(), "");
             Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT v FROM kept")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).isEqualTo("survives");
        } finally {
            second.stop();
        }
    }
}
