package io.forgeflow.test;

import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.boot.autoconfigure.jdbc.JdbcConnectionDetails;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.MapPropertySource;

import javax.sql.DataSource;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What counts as the application's own database, so that no embedded PostgreSQL is started for it (the case of none
 * given, with Spring Boot's own pooled DataSource defined, is EmbeddedDatabaseIT).
 */
class EmbeddedDatabaseWhenNoneGivenTest {

    @Configuration(proxyBeanMethods = false)
    static class OwnDataSource {
        @Bean
        DataSource appDataSource() {
            PGSimpleDataSource ds = new PGSimpleDataSource(); // never connected here
            ds.setURL("jdbc:postgresql://127.0.0.1:1/app");
            return ds;
        }
    }

    /** As a Testcontainers {@code @ServiceConnection} gives it (Boot 3's type; Boot 4's is checked the same way). */
    @Configuration(proxyBeanMethods = false)
    static class OwnConnectionDetails {
        @Bean
        JdbcConnectionDetails containerConnection() {
            return new JdbcConnectionDetails() {
                @Override
                public String getUsername() {
                    return "app";
                }

                @Override
                public String getPassword() {
                    return "secret";
                }

                @Override
                public String getJdbcUrl() {
                    return "jdbc:postgresql://127.0.0.1:1/app";
                }
            };
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class NoDataSource {
    }

    @Test
    void springDatasourceUrlIsTheApplicationsDatabase() {
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
            context.getEnvironment().getPropertySources().addLast(new MapPropertySource("app",
                    Map.of("spring.datasource.url", "jdbc:postgresql://127.0.0.1:1/app")));
            EmbeddedDatabaseWhenNoneGiven check = refreshWithCheck(context, NoDataSource.class);

            assertThat(check.givenDatabase(context.getBeanFactory())).isEqualTo("spring.datasource.url");
            assertThat(context.getEnvironment().getPropertySources().contains(EmbeddedDatabaseWhenNoneGiven.SOURCE))
                    .isFalse();
        }
    }

    @Test
    void aDataSourceBeanOfTheApplicationIsItsDatabase() {
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
            EmbeddedDatabaseWhenNoneGiven check = refreshWithCheck(context, OwnDataSource.class);

            assertThat(check.givenDatabase(context.getBeanFactory())).isEqualTo("bean appDataSource");
            assertThat(context.getEnvironment().getPropertySources().contains(EmbeddedDatabaseWhenNoneGiven.SOURCE))
                    .isFalse();
        }
    }

    @Test
    void jdbcConnectionDetailsOfTheApplicationAreItsDatabase() {
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
            EmbeddedDatabaseWhenNoneGiven check = refreshWithCheck(context, OwnConnectionDetails.class);

            assertThat(check.givenDatabase(context.getBeanFactory())).isEqualTo("bean containerConnection");
        }
    }

    private static EmbeddedDatabaseWhenNoneGiven refreshWithCheck(AnnotationConfigApplicationContext context,
                                                                   Class<?> configuration) {
        EmbeddedDatabaseWhenNoneGiven check = new EmbeddedDatabaseWhenNoneGiven(context.getEnvironment(),
                context::isActive);
        context.addBeanFactoryPostProcessor(check);
        context.register(configuration);
        context.refresh();
        return check;
    }
}
