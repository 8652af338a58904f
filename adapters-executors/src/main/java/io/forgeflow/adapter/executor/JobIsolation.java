package io.forgeflow.adapter.executor;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Which {@link Containment} and which OS user a node's shell jobs get, decided once at start by trying what the
 * machine allows, and the argv prefixes that give it.
 *
 * <ul>
 *   <li>As root: {@code unshare --pid --fork --kill-child --mount-proc}, wrapped in {@code setpriv --pdeathsig KILL}
 *       so that the namespace dies with the worker's thread that started it, even before the supervisor notices.</li>
 *   <li>As another user: the same inside a user namespace ({@code -U --map-current-user}, or {@code -U -r} with an
 *       older util-linux), where the kernel allows unprivileged user namespaces.</li>
 *   <li>Otherwise: a session and process group of its own ({@code setsid}), weaker: logged as a warning.</li>
 * </ul>
 * With a {@code jobUser} (root only) the job's processes run as that user through
 * {@code setpriv --reuid --regid --init-groups}, inside the namespace.
 *
 * @param containment   what was chosen
 * @param namespaceArgv what goes before the job user's prefix and the shell (empty unless {@link Containment#PID_NAMESPACE})
 * @param userArgv      what switches to the job user (empty without one)
 * @param jobUser       the OS user jobs run as, or null: the node's own
 */
public record JobIsolation(Containment containment, List<String> namespaceArgv, List<String> userArgv, String jobUser) {
    private static final Logger log = LoggerFactory.getLogger(JobIsolation.class);

    public JobIsolation {
        Objects.requireNonNull(containment, "containment");
        namespaceArgv = List.copyOf(namespaceArgv);
        userArgv = List.copyOf(userArgv);
        if (containment != Containment.PID_NAMESPACE && !namespaceArgv.isEmpty()) {
            throw new IllegalArgumentException("namespaceArgv is for " + Containment.PID_NAMESPACE + " only");
        }
    }

    /** What jobs got before containment was chosen: a process group (with setsid), the node's own user. */
    public static JobIsolation processGroup(Path setsid) {
        return new JobIsolation(setsid == null ? Containment.NONE : Containment.PROCESS_GROUP, List.of(), List.of(),
                null);
    }

    /**
     * The strongest containment this machine allows, with jobs run as {@code jobUser} (null or blank: the node's
     * user). Logs the choice; warns when it is weaker than a PID namespace, and when jobs run as root.
     *
     * @throws IllegalArgumentException when {@code jobUser} is set but unknown, or the node is not root (it cannot
     *                                  switch users), or {@code setpriv} is missing
     */
    public static JobIsolation detect(Path setsid, Path shell, String jobUser) {
        String user = jobUser == null || jobUser.isBlank() ? null : jobUser.strip();
        boolean root = effectiveUid() == 0;
        Path setpriv = binary("setpriv");
        Path unshare = binary("unshare");
        List<String> userArgv = List.of();
        if (user != null) {
            if (!root) {
                throw new IllegalArgumentException("FORGEFLOW_JOB_USER=" + user + " needs a node running as root "
                        + "(it switches users with setpriv); this node runs as uid " + effectiveUid()
                        + ". Unset FORGEFLOW_JOB_USER, or run the node as root");
            }
            if (setpriv == null) {
                throw new IllegalArgumentException("FORGEFLOW_JOB_USER=" + user + " needs util-linux setpriv, "
                        + "which is not in /usr/bin or /bin");
            }
            List<String> missing = missingJobUserCapabilities(effectiveCapabilities());
            if (!missing.isEmpty()) {
                throw new IllegalArgumentException("FORGEFLOW_JOB_USER=" + user + " needs the capabilities SETUID and "
                        + "SETGID (to switch to it) and KILL (to signal its processes on cancel and timeout); this "
                        + "root node lacks " + String.join(", ", missing) + ". In a container add them (--cap-add, "
                        + "compose cap_add, Kubernetes securityContext.capabilities.add)");
            }
            String uid = idOf(user, "-u");
            String gid = idOf(user, "-g");
            userArgv = List.of(setpriv.toString(), "--reuid=" + uid, "--regid=" + gid, "--init-groups",
                    "--pdeathsig=KILL", "--");
        } else if (root) {
            log.warn("this node runs as root and FORGEFLOW_JOB_USER is not set: shell jobs run as root and can read "
                    + "everything the node can (its configuration files, its secrets on disk). Set FORGEFLOW_JOB_USER "
                    + "(e.g. nobody) to run them as another user. See SECURITY.md");
        }
        if (setsid == null) {
            log.warn("shell job containment: none (no setsid binary): a job's processes share the worker's session and "
                    + "survive the worker's death. Install util-linux");
            return new JobIsolation(Containment.NONE, List.of(), userArgv, user);
        }
        if (unshare != null) {
            List<String> base = List.of(unshare.toString(), "--pid", "--fork", "--kill-child", "--mount-proc");
            List<List<String>> candidates = root ? List.of(List.of())
                    : List.of(List.of("--user", "--map-current-user"), List.of("--user", "--map-root-user"));
            for (List<String> userns : candidates) {
                List<String> argv = new ArrayList<>();
                if (root && setpriv != null) {
                    argv.addAll(List.of(setpriv.toString(), "--pdeathsig=KILL", "--"));
                }
                argv.addAll(base);
                argv.addAll(userns);
                if (works(argv, userArgv, shell)) {
                    log.info("shell job containment: pid-namespace ({}): every process of a job dies with it, "
                            + "whatever session it moves to; jobs run as {}", String.join(" ", argv),
                            user == null ? "the node's user" : user);
                    return new JobIsolation(Containment.PID_NAMESPACE, argv, userArgv, user);
                }
            }
        }
        log.warn("shell job containment: process-group only (WEAKER): this machine allows no PID namespace for this "
                + "user ({}), so a job process that leaves its process group or session (setsid, set -m, GNU timeout, "
                + "a daemon) keeps running after its worker dies. Run the node as root (in a container: with "
                + "CAP_SYS_ADMIN), or allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, "
                + "user.max_user_namespaces > 0; in a container the runtime's masked /proc stops the fresh /proc "
                + "too: podman --security-opt unmask=ALL, Docker systempaths=unconfined). README \"Run a cluster\"",
                unshare == null ? "no unshare binary" : "unshare failed");
        return new JobIsolation(Containment.PROCESS_GROUP, List.of(), userArgv, user);
    }

    /** Whether {@code argv + userArgv + shell -c true} exits 0 within 10 s. */
    private static boolean works(List<String> argv, List<String> userArgv, Path shell) {
        List<String> probe = new ArrayList<>(argv);
        probe.addAll(userArgv);
        probe.addAll(List.of(shell.toString(), "-c", "exit 0"));
        try {
            Process p = new ProcessBuilder(probe).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return false;
            }
            return p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static String idOf(String user, String flag) {
        try {
            Process p = new ProcessBuilder("id", flag, "--", user).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (p.waitFor() != 0 || !out.matches("\\d+")) {
                throw new IllegalArgumentException("FORGEFLOW_JOB_USER=" + user + " is not a user of this machine ("
                        + out + ")");
            }
            return out;
        } catch (IOException e) {
            throw new IllegalArgumentException("FORGEFLOW_JOB_USER=" + user + ": cannot run id: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /**
     * Which of the capabilities a root node needs to run jobs as another user are missing from {@code capEff} (the
     * {@code CapEff} bit set): {@code SETUID} and {@code SETGID} for setpriv, {@code KILL} to signal the job user's
     * processes (without it a cancelled job of that user survives). Nothing when {@code capEff} is unknown (-1).
     */
    static List<String> missingJobUserCapabilities(long capEff) {
        if (capEff == -1) {
            return List.of();
        }
        List<String> missing = new ArrayList<>();
        for (String[] cap : new String[][] {{"SETUID", "7"}, {"SETGID", "6"}, {"KILL", "5"}}) {
            if ((capEff & (1L << Integer.parseInt(cap[1]))) == 0) {
                missing.add(cap[0]);
            }
        }
        return missing;
    }

    /** This process's effective capabilities ({@code CapEff} of /proc/self/status); -1 when unknown. */
    static long effectiveCapabilities() {
        try {
            return Files.readAllLines(Path.of("/proc/self/status"), StandardCharsets.UTF_8).stream()
                    .filter(l -> l.startsWith("CapEff:")).findFirst()
                    .map(l -> Long.parseUnsignedLong(l.substring("CapEff:".length()).strip(), 16)).orElse(-1L);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** This process's effective uid, from /proc/self/status; -1 when unknown. */
    public static long effectiveUid() {
        try {
            Optional<String> line = Files.readAllLines(Path.of("/proc/self/status"), StandardCharsets.UTF_8).stream()
                    .filter(l -> l.startsWith("Uid:")).findFirst();
            return line.map(l -> Long.parseLong(l.split("\\s+")[2])).orElse(-1L);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    static Path binary(String name) {
        return Stream.of(Path.of("/usr/bin", name), Path.of("/bin", name), Path.of("/usr/sbin", name))
                .filter(Files::isExecutable).findFirst().orElse(null);
    }
}
