package io.forgeflow.adapter.postgres;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One statement of this module's {@code .sql} files, made ready for plain JDBC once: read from the classpath (the file
 * a SqlObject method of the same name uses, e.g. {@code RunSql/claim.sql}), with its {@code :name} parameters turned
 * into {@code ?} positions. The text stays in the reviewed file; nothing but bound values ever reaches the statement.
 *
 * <p>The hot statements of the claim engine and the submission path run through this class instead of JDBI's
 * SqlObjects: JDBI spent more CPU per call (configuration copies, extension and mapper lookups, statement rewriting)
 * than the database spent executing the statement. PgJDBC prepares a statement on the server once a connection has
 * run it {@code prepareThreshold} (5) times, and keeps it for that connection.
 *
 * <p>The parameter syntax is JDBI's: {@code :name} (a letter or underscore, then letters, digits or underscores);
 * {@code ::} is a cast; nothing inside quotes ({@code '...'}, {@code "..."}) or comments ({@code -- ...},
 * {@code /* ... *}{@code /}) is a parameter. The text must not contain a {@code ?} outside quotes and comments (JDBC
 * would take it for a parameter).
 */
final class SqlFile {
    private static final String ROOT = "io/forgeflow/adapter/postgres/";

    private final String name;
    private final String jdbc;
    private final Map<String, int[]> positions;
    private final int count;

    private SqlFile(String name, String jdbc, Map<String, int[]> positions, int count) {
        this.name = name;
        this.jdbc = jdbc;
        this.positions = positions;
        this.count = count;
    }

    /** Reads {@code resource} (relative to this package's folder, e.g. {@code "RunSql/claim.sql"}) from the classpath. */
    static SqlFile load(String resource) {
        String path = ROOT + resource;
        try (InputStream in = SqlFile.class.getClassLoader().getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("statement " + path + " is not on the classpath");
            }
            return parse(resource, new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("statement " + path + " cannot be read", e);
        }
    }

    /** Turns the {@code :name} parameters of {@code sql} into {@code ?} positions. */
    static SqlFile parse(String name, String sql) {
        StringBuilder out = new StringBuilder(sql.length());
        Map<String, List<Integer>> found = new LinkedHashMap<>();
        int position = 0;
        int n = sql.length();
        int i = 0;
        while (i < n) {
            char c = sql.charAt(i);
            if (c == '\'' || c == '"') {
                int end = sql.indexOf(c, i + 1);
                while (end >= 0 && end + 1 < n && sql.charAt(end + 1) == c) {
                    end = sql.indexOf(c, end + 2); // a doubled quote is part of the text
                }
                if (end < 0) {
                    throw new IllegalArgumentException(name + ": unterminated " + c + " at offset " + i);
                }
                out.append(sql, i, end + 1);
                i = end + 1;
            } else if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
                int end = sql.indexOf('\n', i);
                end = end < 0 ? n : end;
                out.append(sql, i, end);
                i = end;
            } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
                int end = sql.indexOf("*/", i + 2);
                if (end < 0) {
                    throw new IllegalArgumentException(name + ": unterminated comment at offset " + i);
                }
                out.append(sql, i, end + 2);
                i = end + 2;
            } else if (c == ':' && i + 1 < n && sql.charAt(i + 1) == ':') {
                out.append("::");
                i += 2;
            } else if (c == ':' && i + 1 < n && isNameStart(sql.charAt(i + 1))) {
                int end = i + 2;
                while (end < n && isNamePart(sql.charAt(end))) {
                    end++;
                }
                found.computeIfAbsent(sql.substring(i + 1, end), k -> new ArrayList<>()).add(++position);
                out.append('?');
                i = end;
            } else if (c == '?') {
                throw new IllegalArgumentException(name + ": '?' at offset " + i + " would be taken for a parameter");
            } else {
                out.append(c);
                i++;
            }
        }
        Map<String, int[]> positions = new HashMap<>();
        found.forEach((k, v) -> positions.put(k, v.stream().mapToInt(Integer::intValue).toArray()));
        return new SqlFile(name, out.toString(), Map.copyOf(positions), position);
    }

    private static boolean isNameStart(char c) {
        return Character.isLetter(c) || c == '_';
    }

    private static boolean isNamePart(char c) {
        return Character.isLetterOrDigit(c) || c == '_';
    }

    /** The statement as JDBC takes it, with {@code ?} for each parameter. */
    String jdbc() {
        return jdbc;
    }

    /** The file the statement was read from, for error messages. */
    String name() {
        return name;
    }

    /** The parameter name at each position, in order (a name used twice appears twice). */
    List<String> parameters() {
        String[] names = new String[count];
        positions.forEach((k, v) -> {
            for (int p : v) {
                names[p - 1] = k;
            }
        });
        return List.of(names);
    }

    /** The 1-based positions of parameter {@code parameter}. */
    int[] positions(String parameter) {
        int[] at = positions.get(parameter);
        if (at == null) {
            throw new IllegalArgumentException(name + " has no parameter :" + parameter);
        }
        return at;
    }

    /** Binds values by name to {@code statement}, which must have been prepared from {@link #jdbc()}. */
    Binder bind(PreparedStatement statement) {
        return new Binder(statement);
    }

    /** Sets parameters by name, each with the SQL type the statement expects; {@link #done()} checks all were set. */
    final class Binder {
        private final PreparedStatement statement;
        private final boolean[] set = new boolean[count + 1];

        private Binder(PreparedStatement statement) {
            this.statement = Objects.requireNonNull(statement, "statement");
        }

        Binder text(String parameter, String value) throws SQLException {
            for (int at : positions(parameter)) {
                statement.setString(at, value);
                set[at] = true;
            }
            return this;
        }

        Binder integer(String parameter, int value) throws SQLException {
            for (int at : positions(parameter)) {
                statement.setInt(at, value);
                set[at] = true;
            }
            return this;
        }

        /** An {@code integer} that may be null. */
        Binder integer(String parameter, Integer value) throws SQLException {
            for (int at : positions(parameter)) {
                if (value == null) {
                    statement.setNull(at, Types.INTEGER);
                } else {
                    statement.setInt(at, value);
                }
                set[at] = true;
            }
            return this;
        }

        Binder bigint(String parameter, long value) throws SQLException {
            for (int at : positions(parameter)) {
                statement.setLong(at, value);
                set[at] = true;
            }
            return this;
        }

        /** A {@code timestamptz} (an offset date-time in UTC, never a zone-less timestamp); null binds SQL null. */
        Binder timestamp(String parameter, Instant value) throws SQLException {
            for (int at : positions(parameter)) {
                if (value == null) {
                    statement.setNull(at, Types.TIMESTAMP_WITH_TIMEZONE);
                } else {
                    statement.setObject(at, value.atOffset(ZoneOffset.UTC));
                }
                set[at] = true;
            }
            return this;
        }

        /** A {@code jsonb} executor payload (Jackson writes it; null is stored as {@code {}}, as before). */
        Binder jsonb(String parameter, Map<?, ?> payload) throws SQLException {
            int[] at = positions(parameter);
            if (at.length > 0) {
                Object json = PayloadJson.jsonb(payload);
                for (int p : at) {
                    statement.setObject(p, json);
                    set[p] = true;
                }
            }
            return this;
        }

        /** A {@code text[]}; null binds SQL null. */
        Binder textArray(String parameter, String[] values) throws SQLException {
            return array(parameter, "text", values);
        }

        /** An {@code integer[]}; null binds SQL null. */
        Binder integerArray(String parameter, Integer[] values) throws SQLException {
            return array(parameter, "int4", values);
        }

        /** A {@code bigint[]}; null binds SQL null. */
        Binder bigintArray(String parameter, Long[] values) throws SQLException {
            return array(parameter, "int8", values);
        }

        private Binder array(String parameter, String type, Object[] values) throws SQLException {
            int[] at = positions(parameter);
            java.sql.Array array = values == null ? null : connection().createArrayOf(type, values);
            for (int p : at) {
                if (array == null) {
                    statement.setNull(p, Types.ARRAY);
                } else {
                    statement.setArray(p, array);
                }
                set[p] = true;
            }
            return this;
        }

        private Connection connection() throws SQLException {
            return statement.getConnection();
        }

        /** The statement, every parameter bound. */
        PreparedStatement done() {
            for (int p = 1; p <= count; p++) {
                if (!set[p]) {
                    throw new IllegalStateException(name + ": parameter " + p + " of " + count + " was not bound ("
                            + unboundNames() + ")");
                }
            }
            return statement;
        }

        private String unboundNames() {
            List<String> names = new ArrayList<>();
            positions.forEach((k, v) -> {
                if (Arrays.stream(v).anyMatch(p -> !set[p])) {
                    names.add(":" + k);
                }
            });
            return String.join(", ", names);
        }
    }
}
