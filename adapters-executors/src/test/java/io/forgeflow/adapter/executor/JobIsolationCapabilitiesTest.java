package io.forgeflow.adapter.executor;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** What a root node with FORGEFLOW_JOB_USER needs of its capabilities (a container may have dropped them). */
class JobIsolationCapabilitiesTest {
    private static final long KILL = 1L << 5;
    private static final long SETGID = 1L << 6;
    private static final long SETUID = 1L << 7;
    private static final long SYS_ADMIN = 1L << 21;

    @Test
    void aFullSetAndDockersDefaultSetLackNothing() {
        assertThat(JobIsolation.missingJobUserCapabilities(0x1ffffffffffL)).isEmpty();
        assertThat(JobIsolation.missingJobUserCapabilities(0xa80425fbL)).isEmpty();
    }

    @Test
    void theShippedWorkersSetsLackNothing() {
        assertThat(JobIsolation.missingJobUserCapabilities(SETUID | SETGID | KILL | SYS_ADMIN)).isEmpty();
        assertThat(JobIsolation.missingJobUserCapabilities(SETUID | SETGID | KILL)).isEmpty();
    }

    @Test
    void namesEachMissingCapability() {
        assertThat(JobIsolation.missingJobUserCapabilities(SETUID | SETGID | SYS_ADMIN)).containsExactly("KILL");
        assertThat(JobIsolation.missingJobUserCapabilities(SETGID | KILL)).containsExactly("SETUID");
        assertThat(JobIsolation.missingJobUserCapabilities(SETUID | KILL)).containsExactly("SETGID");
        assertThat(JobIsolation.missingJobUserCapabilities(0)).containsExactly("SETUID", "SETGID", "KILL");
    }

    @Test
    void unknownCapabilitiesAreNotHeldAgainstTheNode() {
        assertThat(JobIsolation.missingJobUserCapabilities(-1)).isEmpty();
    }

    @Test
    void readsThisProcesssEffectiveSet() throws Exception {
        String line = java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/status")).stream()
                .filter(l -> l.startsWith("CapEff:")).findFirst().orElseThrow();
        assertThat(JobIsolation.effectiveCapabilities())
                .isEqualTo(Long.parseUnsignedLong(line.substring(7).strip(), 16));
    }
}
