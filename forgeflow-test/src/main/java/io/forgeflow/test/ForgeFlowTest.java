package io.forgeflow.test;

import org.junit.jupiter.api.extension.ExtendWith;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * ForgeFlow in a Spring Boot test ({@code @SpringBootTest}): the application's {@code ForgeFlow} bean is replaced by
 * a {@link TestForgeFlow} working in {@link #mode()}, which tests inject ({@code @Autowired TestForgeFlow forgeFlow})
 * to assert on what was enqueued. Each test starts with nothing recorded.
 *
 * <ul>
 *   <li>{@link Mode#INLINE}: a job runs its handler in the caller's thread when the caller's transaction commits (at
 *   once without one); a rollback runs nothing. No worker, no recurring reconciliation.</li>
 *   <li>{@link Mode#MANUAL}: jobs are recorded at commit; {@link TestForgeFlow#assertEnqueued} checks them and
 *   {@link TestForgeFlow#drain()} runs them (and what they enqueue) in the caller's thread.</li>
 *   <li>{@link Mode#DATABASE}: the real thing: jobs go to ForgeFlow's tables and the embedded worker runs them;
 *   {@link TestForgeFlow#drain()} waits until no run is due or running.</li>
 * </ul>
 *
 * <p>The database, in this order: with {@code FORGEFLOW_TEST_DATABASE_URL} set
 * ({@code postgresql://user@host:port/db}), a fresh database created on that server (one per test JVM, dropped when
 * it exits) as the context's {@code spring.datasource}; else the application's own ({@code spring.datasource.url}, a
 * {@code DataSource} bean, a Testcontainers {@code @ServiceConnection}); else an embedded PostgreSQL (zonky) started
 * once per test JVM and stopped when it exits.
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@ExtendWith(ForgeFlowExtension.class)
public @interface ForgeFlowTest {
    Mode mode() default Mode.INLINE;

    /** Whether to create a fresh database when {@code FORGEFLOW_TEST_DATABASE_URL} is set (else: as if it were not). */
    boolean freshDatabase() default true;

    /** How enqueued jobs are handled in the test. */
    enum Mode {
        INLINE, MANUAL, DATABASE
    }
}
