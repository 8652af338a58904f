package io.forgeflow.adapter.postgres;

import java.util.regex.Pattern;

/**
 * The PostgreSQL schema that holds ForgeFlow's tables, functions and Liquibase's own tables ({@value #DEFAULT} unless
 * configured, {@code FORGEFLOW_DATABASE_SCHEMA}). ForgeFlow's sessions reach it through pgjdbc's {@code currentSchema}
 * connection property ({@link #CONNECTION_PROPERTY}), which makes it the whole {@code search_path}: nothing ForgeFlow
 * runs depends on {@code public} or any other schema being searched.
 */
public final class PostgresSchema {
    /** The default schema. */
    public static final String DEFAULT = "forgeflow";
    /** The pgjdbc connection property that sets the session's {@code search_path}. */
    public static final String CONNECTION_PROPERTY = "currentSchema";

    private static final Pattern NAME = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

    private PostgresSchema() {
    }

    /**
     * The name as given, checked: lower-case letters, digits and '_', starting with a letter or '_', at most 63
     * characters (a name that needs no quoting in SQL), and none of PostgreSQL's own ({@code pg_*},
     * {@code information_schema}).
     *
     * @throws IllegalArgumentException saying how to write it
     */
    public static String require(String schema) {
        if (schema == null || !NAME.matcher(schema).matches() || schema.startsWith("pg_")
                || schema.equals("information_schema")) {
            throw new IllegalArgumentException("the database schema must be 1 to 63 lower-case letters, digits or '_', "
                    + "starting with a letter or '_', and not pg_* or information_schema, e.g. \"" + DEFAULT
                    + "\"; was " + (schema == null ? "empty" : "'" + printable(schema) + "'"));
        }
        return schema;
    }

    private static String printable(String s) {
        String cut = s.length() > 70 ? s.substring(0, 70) + "…" : s;
        return cut.replaceAll("\\p{Cntrl}", "?");
    }
}
