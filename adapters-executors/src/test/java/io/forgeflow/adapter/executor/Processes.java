package io.forgeflow.adapter.executor;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/** Looks at processes through /proc, as the executor's own code must not be trusted to check itself. */
final class Processes {
    private Processes() {
    }

    /** Gone: no /proc entry, or a zombie that only waits to be reaped. */
    static boolean isGone(long pid) {
        Path stat = Path.of("/proc", Long.toString(pid), "stat");
        try {
            String line = Files.readString(stat);
            char state = line.charAt(line.lastIndexOf(')') + 2);
            return state == 'Z' || state == 'X';
        } catch (IOException e) {
            return true;
        }
    }

    static List<Long> pidsIn(Path file) {
        try {
            if (!Files.exists(file)) {
                return List.of();
            }
            return Files.readAllLines(file).stream().filter(line -> line.matches("\\d+"))
                    .map(Long::valueOf).collect(Collectors.toList());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Single-quotes a path for the shell. */
    static String quoted(Path path) {
        return "'" + path.toString().replace("'", "'\\''") + "'";
    }
}
