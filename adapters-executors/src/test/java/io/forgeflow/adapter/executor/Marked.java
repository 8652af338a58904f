package io.forgeflow.adapter.executor;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;

/**
 * Finds a job's processes by a marker in their argv, through the host's /proc: pids recorded by a job inside a PID
 * namespace are the namespace's, not the host's. The marker is a tiny extra duration for GNU sleep
 * ({@code sleep 60 0.0123456789} sleeps 60 s), so every process of a test carries it.
 */
final class Marked {
    private Marked() {
    }

    /** A fresh marker: {@code 0.0} and ten random digits. */
    static String marker() {
        StringBuilder digits = new StringBuilder("0.0");
        SecureRandom random = new SecureRandom();
        for (int i = 0; i < 10; i++) {
            digits.append(random.nextInt(10));
        }
        return digits.toString();
    }

    /** The live (not zombie) host pids whose argv holds {@code marker} as a whole argument. */
    static List<Long> live(String marker) {
        List<Long> pids = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(Path.of("/proc"))) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                if (!name.chars().allMatch(Character::isDigit)) {
                    continue;
                }
                try {
                    String cmdline = new String(Files.readAllBytes(entry.resolve("cmdline")), StandardCharsets.UTF_8);
                    for (String arg : cmdline.split("\0")) {
                        if (arg.equals(marker) && !Processes.isGone(Long.parseLong(name))) {
                            pids.add(Long.parseLong(name));
                            break;
                        }
                    }
                } catch (IOException e) {
                    // gone meanwhile
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return pids;
    }
}
