package io.forgeflow.adapter.postgres;

import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.ds.PGSimpleDataSource;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Migration drift check: the schema the migrations build on an empty database ({@code pg_dump --schema-only} of the
 * {@code forgeflow} schema, without Liquibase's own tables, normalised) equals the committed snapshot
 * {@code src/test/resources/schema.sql}, so a change to a migration or a function shows in review as a change of
 * that file. After a deliberate change, rewrite the snapshot and commit it with the migration:
 *
 * <pre>mvn -B -pl adapters-postgres -am verify -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false -Dit.test=SchemaSnapshotIT -Dforgeflow.updateSchemaSnapshot=true</pre>
 *
 * (or {@code make schema-snapshot}). Needs PostgreSQL's {@code pg_dump} (Debian's postgresql-client) on the PATH, or in
 * {@code FORGEFLOW_PG_DUMP}, no older than the test server.
 */
class SchemaSnapshotIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final Path SNAPSHOT = Path.of(System.getProperty("basedir", "."), "src", "test", "resources", "schema.sql");

    @Test
    void theMigrationsBuildTheCommittedSchema() throws Exception {
        PGSimpleDataSource empty = (PGSimpleDataSource) pg.createEmptyDatabase();
        PostgresMigrations.migrate(empty);
        String schema = normalise(pgDump(empty));
        assertThat(schema).as("pg_dump printed no forgeflow tables").contains("CREATE TABLE forgeflow.runs");

        if (Boolean.getBoolean("forgeflow.updateSchemaSnapshot")) {
            Files.writeString(SNAPSHOT, schema, StandardCharsets.UTF_8);
            System.out.println("SchemaSnapshotIT: wrote " + SNAPSHOT.toAbsolutePath());
            return;
        }
        assertThat(SNAPSHOT).as("the committed snapshot; write it with -Dforgeflow.updateSchemaSnapshot=true").exists();
        String committed = Files.readString(SNAPSHOT, StandardCharsets.UTF_8);
        if (!committed.equals(schema)) {
            fail("The schema the migrations build differs from " + SNAPSHOT + " (a migration or function changed?).\n"
                    + firstDifference(committed, schema)
                    + "\nIf the change is meant, rewrite the snapshot and commit it: mvn -B -pl adapters-postgres -am verify"
                    + " -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false -Dit.test=SchemaSnapshotIT"
                    + " -Dforgeflow.updateSchemaSnapshot=true");
        }
    }

    @Test
    void normalisingDropsWhatDiffersBetweenDatabasesAndRuns() {
        String dump = "--\n-- PostgreSQL database dump\n--\n\\restrict AbC123\nSET statement_timeout = 0;\n"
                + "SELECT pg_catalog.set_config('search_path', '', false);\n\n\n"
                + "CREATE TABLE forgeflow.jobs (   \n    id uuid NOT NULL\n);\n\n\n\n\\unrestrict AbC123\n";

        assertThat(normalise(dump)).isEqualTo("CREATE TABLE forgeflow.jobs (\n    id uuid NOT NULL\n);\n");
    }

    /** Comments, session settings, pg_dump's per-run restrict keys and runs of blank lines out; one newline at the end. */
    static String normalise(String dump) {
        List<String> kept = new ArrayList<>();
        for (String line : dump.split("\n", -1)) {
            String trimmed = line.stripTrailing();
            if (trimmed.startsWith("--") || trimmed.startsWith("SET ") || trimmed.startsWith("\\restrict")
                    || trimmed.startsWith("\\unrestrict") || trimmed.startsWith("SELECT pg_catalog.set_config(")) {
                continue;
            }
            if (trimmed.isEmpty() && (kept.isEmpty() || kept.get(kept.size() - 1).isEmpty())) {
                continue;
            }
            kept.add(trimmed);
        }
        while (!kept.isEmpty() && kept.get(kept.size() - 1).isEmpty()) {
            kept.remove(kept.size() - 1);
        }
        return String.join("\n", kept) + "\n";
    }

    private static String pgDump(PGSimpleDataSource db) throws IOException, InterruptedException {
        URI uri = URI.create(db.getURL().substring("jdbc:".length()));
        String database = uri.getPath().substring(1);
        List<String> command = List.of(pgDumpBinary(), "--schema-only", "--no-owner", "--no-privileges",
                "--schema=" + PostgresSchema.DEFAULT,
                "--exclude-table=" + PostgresSchema.DEFAULT + ".databasechangelog",
                "--exclude-table=" + PostgresSchema.DEFAULT + ".databasechangeloglock",
                "--host=" + uri.getHost(), "--port=" + (uri.getPort() < 0 ? 5432 : uri.getPort()),
                "--username=" + db.getUser(), "--dbname=" + database);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(false);
        if (db.getPassword() != null && !db.getPassword().isEmpty()) {
            builder.environment().put("PGPASSWORD", db.getPassword());
        }
        Process process = builder.start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("pg_dump ends").isTrue();
        assertThat(process.exitValue()).as("pg_dump's exit status; it said: %s", err).isZero();
        return out;
    }

    /** FORGEFLOW_PG_DUMP, else pg_dump on the PATH, else the newest of Debian's /usr/lib/postgresql/N/bin/pg_dump. */
    private static String pgDumpBinary() throws IOException {
        String configured = System.getenv("FORGEFLOW_PG_DUMP");
        if (configured != null && !configured.isBlank()) {
            return configured;
        }
        for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, "pg_dump"))) {
                return Path.of(dir, "pg_dump").toString();
            }
        }
        Path debian = Path.of("/usr/lib/postgresql");
        if (Files.isDirectory(debian)) {
            try (Stream<Path> versions = Files.list(debian)) {
                List<Path> found = versions.map(v -> v.resolve("bin/pg_dump")).filter(Files::isExecutable)
                        .sorted(Comparator.comparing(p -> p.getParent().getParent().getFileName().toString()))
                        .collect(Collectors.toList());
                if (!found.isEmpty()) {
                    return found.get(found.size() - 1).toString();
                }
            }
        }
        return fail("no pg_dump: install PostgreSQL's client (apt-get install postgresql-client) or set FORGEFLOW_PG_DUMP");
    }

    private static String firstDifference(String committed, String built) {
        String[] a = committed.split("\n", -1);
        String[] b = built.split("\n", -1);
        int i = 0;
        while (i < a.length && i < b.length && a[i].equals(b[i])) {
            i++;
        }
        StringBuilder out = new StringBuilder("first difference at line " + (i + 1) + ":\n");
        for (int j = Math.max(0, i - 2); j < Math.min(a.length, i + 5); j++) {
            out.append("  committed: ").append(a[j]).append('\n');
        }
        for (int j = Math.max(0, i - 2); j < Math.min(b.length, i + 5); j++) {
            out.append("  built:     ").append(b[j]).append('\n');
        }
        return out.toString();
    }
}
