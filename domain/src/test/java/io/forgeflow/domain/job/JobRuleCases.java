package io.forgeflow.domain.job;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The rules of a job as one table of bad submissions ({@code job-rules.tsv} beside this class), shared by every place
 * that checks them: REST's reading and validation, and {@code forgeflow.enqueue} for SQL callers. Each must refuse
 * every line that applies to it, naming the same field.
 */
public final class JobRuleCases {
    /** One bad submission: REST's JSON body, the field both must name, whether {@code enqueue()} takes it too. */
    public record Case(String name, boolean sql, String json, String field) {
        @Override
        public String toString() {
            return name;
        }
    }

    private JobRuleCases() {
    }

    public static List<Case> all() {
        try (InputStream in = JobRuleCases.class.getResourceAsStream("job-rules.tsv")) {
            if (in == null) {
                throw new IllegalStateException("job-rules.tsv is not on the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines()
                    .filter(line -> !line.isBlank() && !line.startsWith("#"))
                    .map(JobRuleCases::parse).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The lines {@code enqueue()} must refuse too. */
    public static List<Case> forSql() {
        return all().stream().filter(Case::sql).toList();
    }

    private static Case parse(String line) {
        String[] columns = line.split("\t");
        if (columns.length != 4 || !(columns[1].equals("rest+sql") || columns[1].equals("rest"))) {
            throw new IllegalStateException("job-rules.tsv: a line has four tab-separated columns (case, rest+sql or "
                    + "rest, JSON, field): " + line);
        }
        return new Case(columns[0], columns[1].equals("rest+sql"), columns[2], columns[3]);
    }
}
