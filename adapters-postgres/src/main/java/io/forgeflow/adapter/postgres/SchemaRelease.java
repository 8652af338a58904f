package io.forgeflow.adapter.postgres;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/**
 * Which release last migrated a schema (migration 0034, {@code schema_release}): this release's fingerprint and the
 * state of Liquibase's changelog table it left, so that {@link PostgresMigrations} skips Liquibase when nothing changed
 * since. Owns the fingerprint, computed once per JVM.
 */
final class SchemaRelease {
    private static final Logger LOG = LoggerFactory.getLogger(SchemaRelease.class);

    private SchemaRelease() {
    }

    /**
     * The state of Liquibase's changelog table: every column of every row, hashed. A changeset applied, re-run (a
     * changed function file, by any release) or rolled back changes it.
     */
    private static final String CHANGELOG_STATE = "SELECT md5(coalesce(string_agg(c::text, ',' "
            + "ORDER BY c.orderexecuted, c.id, c.author, c.filename), '')) FROM databasechangelog c";

    private static volatile String fingerprint;

    /**
     * This release's schema: SHA-256 over the root changelog and every file it includes, path and bytes, in its
     * order. Two releases with the same schema files have the same fingerprint.
     */
    static String fingerprint() {
        String known = fingerprint;
        if (known != null) {
            return known;
        }
        try {
            java.security.MessageDigest sha = java.security.MessageDigest.getInstance("SHA-256");
            byte[] root = resource(PostgresMigrations.CHANGELOG);
            List<String> files = new java.util.ArrayList<>(List.of(PostgresMigrations.CHANGELOG));
            java.util.regex.Matcher include = java.util.regex.Pattern.compile("<include\\s+file=\"([^\"]+)\"")
                    .matcher(new String(root, java.nio.charset.StandardCharsets.UTF_8));
            while (include.find()) {
                files.add(include.group(1));
            }
            for (String file : files) {
                sha.update(file.getBytes(java.nio.charset.StandardCharsets.UTF_8));
                sha.update((byte) 0);
                sha.update(file.equals(PostgresMigrations.CHANGELOG) ? root : resource(file));
                sha.update((byte) 0);
            }
            known = java.util.HexFormat.of().formatHex(sha.digest());
        } catch (java.security.NoSuchAlgorithmException | java.io.IOException e) {
            throw new IllegalStateException("could not read the changelog " + PostgresMigrations.CHANGELOG + ": " + e.getMessage(), e);
        }
        fingerprint = known;
        return known;
    }

    private static byte[] resource(String path) throws java.io.IOException {
        try (java.io.InputStream in = SchemaRelease.class.getClassLoader().getResourceAsStream(path)) {
            if (in == null) {
                throw new java.io.IOException(path + " is not on the classpath");
            }
            return in.readAllBytes();
        }
    }

    /**
     * Whether the last migration of {@code schema} was this release's and Liquibase's changelog table is as it left
     * it: then there is nothing to apply and nothing to re-run, and Liquibase (about a second of a node's start) is
     * skipped. Reads two rows; creates nothing; false when it cannot tell.
     */
    static boolean migratedByThisRelease(DataSource dataSource, String schema) {
        try (Connection connection = dataSource.getConnection()) {
            return PostgresMigrations.inSchema(connection, schema, false, (c, statement) -> {
                try (ResultSet exists = statement.executeQuery("SELECT to_regclass('schema_release') IS NOT NULL "
                        + "AND to_regclass('databasechangelog') IS NOT NULL")) {
                    exists.next();
                    if (!exists.getBoolean(1)) {
                        return false;
                    }
                }
                try (ResultSet rs = statement.executeQuery("SELECT r.fingerprint, r.changelog_state, (" + CHANGELOG_STATE
                        + ") FROM schema_release r")) {
                    return rs.next() && fingerprint().equals(rs.getString(1))
                            && rs.getString(2).equals(rs.getString(3));
                }
            });
        } catch (SQLException | RuntimeException e) {
            LOG.debug("could not read the schema's release; running Liquibase", e);
            return false;
        }
    }

    /** Records that this release migrated {@code schema}, and the changelog table's state it left. */
    static void record(Connection connection, String schema) throws SQLException {
        PostgresMigrations.inSchema(connection, schema, true, (c, statement) -> {
            try (PreparedStatement write = c.prepareStatement("INSERT INTO schema_release AS r "
                    + "(id, fingerprint, changelog_state, migrated_at) SELECT true, ?, (" + CHANGELOG_STATE + "), now() "
                    + "ON CONFLICT (id) DO UPDATE SET fingerprint = excluded.fingerprint, "
                    + "changelog_state = excluded.changelog_state, migrated_at = excluded.migrated_at")) {
                write.setString(1, fingerprint());
                return write.executeUpdate();
            }
        });
    }
}
