package io.forgeflow.test;

import io.forgeflow.spring.ForgeFlowHandler;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.jdbc.core.JdbcTemplate;

import javax.sql.DataSource;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * DATABASE mode given no database: no {@code FORGEFLOW_TEST_DATABASE_URL} (this module's failsafe runs without it), no
 * {@code spring.datasource.url}, no {@code DataSource} bean. The kit starts an embedded PostgreSQL, the starter
 * migrates it, and the embedded worker runs the job there.
 */
@SpringBootTest(classes = EmbeddedDatabaseIT.App.class,
        properties = {"forgeflow.poll-interval=200ms", "forgeflow.drain-grace=2s",
                "logging.level.io.zonky.test=WARN"}) // initdb's and the server's own output
@ForgeFlowTest(mode = ForgeFlowTest.Mode.DATABASE)
class EmbeddedDatabaseIT {
    static final BlockingQueue<Note> RECEIVED = new LinkedBlockingQueue<>();

    public record Note(String text) {
    }

    public static class Notes {
        @ForgeFlowHandler("note")
        public void note(Note note) {
            RECEIVED.add(note);
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
        @Bean
        Notes notes() {
            return new Notes();
        }
    }

    @Autowired
    TestForgeFlow forgeFlow;
    @Autowired
    DataSource dataSource;
    @Autowired
    ConfigurableEnvironment environment;

    @Test
    void givenNoDatabaseTheKitStartsAnEmbeddedPostgreSQLWhereTheWorkerRunsTheJob() throws Exception {
        assertThat(System.getenv(TestDatabases.ENV)).as("run without " + TestDatabases.ENV).isNull();
        assertThat(environment.getPropertySources().contains(EmbeddedDatabaseWhenNoneGiven.SOURCE)).isTrue();
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        assertThat(jdbc.queryForObject("SELECT current_database()", String.class)).isEqualTo("postgres");
        assertThat(jdbc.queryForObject("SELECT inet_server_port()", Integer.class)).as("zonky's port, not 5432")
                .isEqualTo(Integer.parseInt(environment.getProperty("spring.datasource.url")
                        .replaceAll("^jdbc:postgresql://[^:/]+:(\\d+)/.*$", "$1")));

        forgeFlow.enqueue("note", new Note("hello"));
        forgeFlow.drain();

        assertThat(RECEIVED.poll(20, TimeUnit.SECONDS)).isEqualTo(new Note("hello"));
        assertThat(jdbc.queryForObject("SELECT status FROM forgeflow.runs", String.class)).isEqualTo("succeeded");
    }
}
