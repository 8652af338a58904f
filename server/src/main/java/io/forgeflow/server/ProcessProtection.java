package io.forgeflow.server;

import com.sun.jna.Library;
import com.sun.jna.Native;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes the node's process non-dumpable ({@code prctl(PR_SET_DUMPABLE, 0)}, once at start): another process of the
 * same OS user (a shell job run without {@code FORGEFLOW_JOB_USER}) can then read neither
 * {@code /proc/<node>/environ}, {@code cmdline} (when it holds secrets) nor {@code mem}, and cannot ptrace the node.
 * Root, and {@code jcmd} run as root, still can. Costs nothing per run: jobs inherit nothing of it (exec resets it).
 */
final class ProcessProtection {
    private static final Logger log = LoggerFactory.getLogger(ProcessProtection.class);
    private static final int PR_GET_DUMPABLE = 3;
    private static final int PR_SET_DUMPABLE = 4;

    private ProcessProtection() {
    }

    /** The C library's prctl, variadic: every argument passed as a long. */
    interface CLibrary extends Library {
        int prctl(int option, long arg2, long arg3, long arg4, long arg5);
    }

    /** Makes this process non-dumpable; returns whether it is now (logged either way, never throws). */
    static boolean makeNonDumpable() {
        if (!System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("linux")) {
            log.warn("not on Linux: the node's process stays dumpable (jobs of its OS user may read its memory)");
            return false;
        }
        try {
            CLibrary c = Native.load("c", CLibrary.class);
            int set = c.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
            int now = c.prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
            if (set == 0 && now == 0) {
                log.info("node process made non-dumpable (prctl PR_SET_DUMPABLE 0): processes of its OS user cannot "
                        + "read its /proc environ, cmdline or memory");
                return true;
            }
            log.warn("could not make the node process non-dumpable (prctl returned {}, dumpable {}): jobs of its OS "
                    + "user may read its environment through /proc", set, now);
        } catch (LinkageError | RuntimeException e) {
            log.warn("could not make the node process non-dumpable ({}): jobs of its OS user may read its "
                    + "environment through /proc", e.toString());
        }
        return false;
    }
}
