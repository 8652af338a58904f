package io.forgeflow.adapter.postgres;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Only bound parameters: no statement of this adapter is built from anything but constant text, so no value (a job
 * name, an id, a cursor, a worker id) can ever become SQL. Scans the sources:
 *
 * <ul>
 *   <li>Java: the SQL given to every JDBC or JDBI statement ({@code execute}, {@code executeQuery},
 *       {@code prepareStatement}, {@code createQuery}, ...) is string literals and constants ({@code UPPER_CASE}),
 *       joined with {@code +} at most; JDBI's {@code @Define} and {@code define(...)}, which paste raw text into a
 *       statement, are not used at all;</li>
 *   <li>the SqlObjects' .sql files: no JDBI template attribute ({@code <name>}) nor {@code ${...}} substitution, only
 *       {@code :name} parameters.</li>
 * </ul>
 */
class BoundParametersTest {
    static final Path JAVA = Path.of("src", "main", "java");
    static final Path SQL = Path.of("src", "main", "resources", "io", "forgeflow", "adapter", "postgres");

    static final Pattern STATEMENT_CALL = Pattern.compile("\\.(execute|executeQuery|executeUpdate|executeLargeUpdate"
            + "|addBatch|prepareStatement|prepareCall|createQuery|createUpdate|createCall|createScript|prepareBatch"
            + "|select)\\s*\\(");
    /** Names other APIs use too: checked only when their argument holds a string literal. */
    static final java.util.Set<String> GENERIC = java.util.Set.of("execute", "select");
    static final Pattern RAW_TEXT = Pattern.compile("@Define\\b|@DefineList\\b|\\.define\\s*\\(|\\.defineList\\s*\\(");
    static final Pattern CONSTANT = Pattern.compile("([A-Z][A-Za-z0-9_]*\\.)*[A-Z][A-Z0-9_]*");
    static final Pattern TEMPLATE_ATTRIBUTE = Pattern.compile("<\\s*[A-Za-z_][A-Za-z0-9_]*\\s*>|\\$\\{");

    @Test
    void everyStatementOfThisAdapterIsConstantText() {
        List<String> violations = new ArrayList<>();
        List<Path> files = files(JAVA, ".java");
        assertThat(files).as("the adapter's sources are scanned").hasSizeGreaterThan(5);
        for (Path file : files) {
            violations.addAll(violations(file.toString(), read(file)));
        }
        assertThat(violations).as("SQL built from values instead of bound parameters").isEmpty();
    }

    @Test
    void theSqlFilesUseOnlyBoundParameters() {
        List<String> violations = new ArrayList<>();
        List<Path> files = files(SQL, ".sql");
        assertThat(files).as("the SqlObjects' statements are scanned").hasSizeGreaterThan(10);
        for (Path file : files) {
            String sql = withoutCommentsAndLiterals(read(file));
            Matcher m = TEMPLATE_ATTRIBUTE.matcher(sql);
            while (m.find()) {
                violations.add(file + ": '" + m.group() + "' pastes text into the statement; bind it as :name");
            }
        }
        assertThat(violations).isEmpty();
    }

    @Test
    void theScanFindsWhatItLooksFor() {
        assertThat(violations("Bad.java", "st.execute(\"DELETE FROM jobs WHERE id = '\" + id + \"'\");"))
                .singleElement().asString().contains("id");
        assertThat(violations("Bad.java", "h.createQuery(String.format(\"SELECT * FROM %s\", table))")).hasSize(1);
        assertThat(violations("Bad.java", "c.prepareStatement(sql)")).hasSize(1);
        assertThat(violations("Bad.java", "st.execute(\"LISTEN \" + channel)")).hasSize(1);
        assertThat(violations("Good.java", "executor.execute(this::loop); pool.execute(() -> run(x))")).isEmpty();
        assertThat(violations("Bad.java", "h.createUpdate(\"UPDATE runs SET x = 1 WHERE id = \" + run.id())")).hasSize(1);
        assertThat(violations("Bad.java", "@SqlQuery(\"SELECT <columns> FROM jobs\") @Define(\"columns\") String c"))
                .hasSize(1);
        assertThat(violations("Good.java", "st.execute(\"NOTIFY \" + CHANNEL); st.execute(\"SELECT pg_lock(\" + "
                + "Keys.MIGRATION_LOCK + \")\"); ps.executeQuery(); c.prepareStatement(\n \"SELECT ? \"\n + \"+ 1\");"))
                .isEmpty();
        assertThat(TEMPLATE_ATTRIBUTE.matcher(withoutCommentsAndLiterals(
                "SELECT * FROM runs WHERE a <b> -- <not this>\n AND x <> y AND z < :limit AND '<text>' = v")).find())
                .isTrue();
        assertThat(TEMPLATE_ATTRIBUTE.matcher(withoutCommentsAndLiterals(
                "SELECT * FROM runs -- <comment>\n WHERE x <> y AND z <= :limit AND w > 1 AND '<text>' = v")).find())
                .isFalse();
    }

    /** The statement calls in a Java source whose SQL argument is more than literals and constants. */
    static List<String> violations(String file, String source) {
        List<String> violations = new ArrayList<>();
        Matcher raw = RAW_TEXT.matcher(source);
        while (raw.find()) {
            violations.add(file + ":" + line(source, raw.start()) + ": " + raw.group().trim()
                    + " pastes raw text into a statement; bind values instead");
        }
        Matcher call = STATEMENT_CALL.matcher(source);
        while (call.find()) {
            String argument = argument(source, call.end());
            if (argument.isBlank() || (GENERIC.contains(call.group(1)) && !argument.contains("\""))) {
                continue; // execute(runnable) of an executor, select() of a stream: not SQL
            }
            for (String operand : topLevelOperands(argument)) {
                String o = operand.strip();
                if (!(o.startsWith("\"") && o.endsWith("\"")) && !CONSTANT.matcher(o).matches()) {
                    violations.add(file + ":" + line(source, call.start()) + ": ." + call.group(1)
                            + "(...) builds its SQL from '" + o + "': use constant text with bound parameters");
                }
            }
        }
        return violations;
    }

    /** The text between the call's parentheses (the first argument, which is the SQL, and any others). */
    private static String argument(String source, int from) {
        int depth = 1;
        boolean inString = false;
        StringBuilder out = new StringBuilder();
        for (int i = from; i < source.length(); i++) {
            char c = source.charAt(i);
            if (inString) {
                if (c == '\\') {
                    out.append(c).append(source.charAt(++i));
                    continue;
                }
                if (c == '"') {
                    inString = false;
                }
            } else if (c == '"') {
                inString = true;
            } else if (c == '(') {
                depth++;
            } else if (c == ')' && --depth == 0) {
                return out.toString();
            } else if (c == ',' && depth == 1) {
                return out.toString(); // only the first argument is SQL
            }
            out.append(c);
        }
        return out.toString();
    }

    /** The operands of top-level '+' (outside strings and parentheses). */
    private static List<String> topLevelOperands(String expression) {
        List<String> operands = new ArrayList<>();
        int depth = 0;
        boolean inString = false;
        StringBuilder current = new StringBuilder();
        for (int i = 0; i < expression.length(); i++) {
            char c = expression.charAt(i);
            if (inString) {
                current.append(c);
                if (c == '\\') {
                    current.append(expression.charAt(++i));
                } else if (c == '"') {
                    inString = false;
                }
                continue;
            }
            if (c == '"') {
                inString = true;
            } else if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
            } else if (c == '+' && depth == 0) {
                operands.add(current.toString());
                current.setLength(0);
                continue;
            }
            current.append(c);
        }
        operands.add(current.toString());
        return operands;
    }

    static String withoutCommentsAndLiterals(String sql) {
        return sql.replaceAll("(?s)/\\*.*?\\*/", " ").replaceAll("--[^\\n]*", " ").replaceAll("'(?:[^']|'')*'", "''");
    }

    private static int line(String source, int offset) {
        int line = 1;
        for (int i = 0; i < offset; i++) {
            if (source.charAt(i) == '\n') {
                line++;
            }
        }
        return line;
    }

    private static List<Path> files(Path root, String suffix) {
        try (Stream<Path> walk = Files.walk(root)) {
            return walk.filter(p -> p.toString().endsWith(suffix)).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
