package io.forgeflow.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/** A plain-text table: a header row, columns two spaces apart, long cells cut with an ellipsis, numbers on the right. */
final class Table {
    static final int MAX_CELL = 48;
    static final int MAX_LAST_CELL = 100;

    private final String[] headers;
    private final boolean[] numeric;
    private final List<String[]> rows = new ArrayList<>();

    /** Headers ending in {@code >} are right-aligned (the {@code >} is not shown). */
    Table(String... headers) {
        this.headers = new String[headers.length];
        this.numeric = new boolean[headers.length];
        for (int i = 0; i < headers.length; i++) {
            numeric[i] = headers[i].endsWith(">");
            this.headers[i] = numeric[i] ? headers[i].substring(0, headers[i].length() - 1) : headers[i];
        }
    }

    Table row(Object... cells) {
        if (cells.length != headers.length) {
            throw new IllegalArgumentException("a row of " + headers.length + " cells, not " + cells.length);
        }
        String[] row = new String[cells.length];
        for (int i = 0; i < cells.length; i++) {
            String text = Text.line(cells[i] == null ? "-" : String.valueOf(cells[i]));
            row[i] = Text.cut(text, i == cells.length - 1 ? MAX_LAST_CELL : MAX_CELL);
        }
        rows.add(row);
        return this;
    }

    boolean isEmpty() {
        return rows.isEmpty();
    }

    void print(PrintStream out) {
        int[] widths = new int[headers.length];
        for (int i = 0; i < headers.length; i++) {
            widths[i] = headers[i].length();
            for (String[] row : rows) {
                widths[i] = Math.max(widths[i], row[i].codePointCount(0, row[i].length()));
            }
        }
        out.println(format(headers, widths));
        for (String[] row : rows) {
            out.println(format(row, widths));
        }
    }

    private String format(String[] cells, int[] widths) {
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < cells.length; i++) {
            String cell = cells[i];
            int padding = widths[i] - cell.codePointCount(0, cell.length());
            boolean last = i == cells.length - 1;
            if (numeric[i]) {
                line.append(" ".repeat(padding)).append(cell);
            } else {
                line.append(cell);
                if (!last) {
                    line.append(" ".repeat(padding));
                }
            }
            if (!last) {
                line.append("  ");
            }
        }
        return line.toString().stripTrailing();
    }
}
