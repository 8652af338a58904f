package io.forgeflow.adapter.executor;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static io.forgeflow.adapter.executor.Processes.isGone;
import static io.forgeflow.adapter.executor.Processes.pidsIn;
import static io.forgeflow.adapter.executor.Processes.quoted;
import static org.assertj.core.api.Assertions.assertThat;

/** Real supervisor processes over real process groups: what happens to a job when its worker dies or freezes. */
class JobSupervisorIT {
    static final ShellRunExecutor.Settings DEFAULTS = ShellRunExecutor.Settings.defaults();

    @TempDir
    Path dir;
    final List<Process> started = new ArrayList<>();

    @AfterEach
    void killLeftovers() {
        for (Process p : started) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
        for (String file : List.of("pids", "later")) {
            for (long pid : pidsIn(dir.resolve(file))) {
                ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
            }
        }
    }

    /** A job as the shell executor starts it: its own session and group, a shell and a background sleep. */
    Process job() throws Exception {
        return job("pids");
    }

    Process job(String pidFile) throws Exception {
        String file = quoted(dir.resolve(pidFile));
        Process p = new ProcessBuilder(DEFAULTS.setsid().toString(), "--wait", "/bin/sh", "-c",
                "echo $$ >> " + file + "; sleep 600 & echo $! >> " + file + "; wait")
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectErrorStream(true).start();
        started.add(p);
        Await.until(Duration.ofSeconds(10), "the job's two pids", () -> pidsIn(dir.resolve(pidFile)).size() == 2);
        return p;
    }

    JobSupervisor supervisor(Duration silence) {
        return new JobSupervisor(silence, DEFAULTS.setsid(), DEFAULTS.shell());
    }

    static JobSupervisor.Watch watched(JobSupervisor supervisor, Process job) {
        JobSupervisor.Watch watch = supervisor.watch(job.pid());
        Await.until(Duration.ofSeconds(10), "the supervisor started", watch::supervised);
        return watch;
    }

    boolean allGone() {
        return pidsIn(dir.resolve("pids")).stream().allMatch(Processes::isGone);
    }

    @Test
    void whenThePipeClosesWithoutAGoodbyeTheJobsGroupDiesLongBeforeTheSupervisorsDeadline() throws Exception {
        Process job = job();
        JobSupervisor.Watch watch = watched(supervisor(Duration.ofSeconds(60)), job);

        long closed = System.nanoTime();
        watch.abandon(); // as the JVM's death closes it

        Await.until(Duration.ofSeconds(30), "every process of the job gone", this::allGone);
        assertThat(Duration.ofNanos(System.nanoTime() - closed))
                .as("gone on the pipe's close, not at the supervisor's 60 s deadline").isLessThan(Duration.ofSeconds(30));
        Await.until(Duration.ofSeconds(5), "the supervisor exits", () -> isGone(watch.pid()));
    }

    @Test
    void whenTheFeedStopsForTheSilenceTheJobsGroupDies() throws Exception {
        Process job = job();
        JobSupervisor supervisor = supervisor(Duration.ofMillis(1500));
        JobSupervisor.Watch watch = watched(supervisor, job);

        supervisor.pauseFeeding(); // as a frozen JVM

        Await.until(Duration.ofSeconds(10), "every process of the job gone", this::allGone);
        Await.until(Duration.ofSeconds(5), "the supervisor exits", () -> isGone(watch.pid()));
    }

    @Test
    void aFedSupervisorLeavesItsJobRunning() throws Exception {
        Process job = job();
        JobSupervisor supervisor = supervisor(Duration.ofSeconds(2));
        JobSupervisor.Watch watch = watched(supervisor, job);
        assertThat(supervisor.feedEvery()).isEqualTo(Duration.ofMillis(400));

        long end = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (System.nanoTime() < end) {
            assertThat(pidsIn(dir.resolve("pids"))).noneMatch(Processes::isGone);
            assertThat(isGone(watch.pid())).isFalse();
            Thread.sleep(100); // observing a process that must stay up for the whole window
        }
        assertThat(supervisor.watching()).isEqualTo(1);
    }

    @Test
    void aReleasedSupervisorExitsAndKillsNothing() throws Exception {
        Process job = job();
        JobSupervisor supervisor = supervisor(Duration.ofSeconds(60));
        JobSupervisor.Watch watch = watched(supervisor, job);

        watch.release();

        Await.until(Duration.ofSeconds(5), "the supervisor exits", () -> isGone(watch.pid()));
        assertThat(pidsIn(dir.resolve("pids"))).noneMatch(Processes::isGone);
        assertThat(supervisor.watching()).isZero();
    }

    @Test
    void anAttemptReleasedBeforeItsSupervisorStartedGetsNone() throws Exception {
        JobSupervisor supervisor = supervisor(Duration.ofSeconds(60));
        JobSupervisor.Watch watch = supervisor.watch(job().pid());
        watch.release();

        JobSupervisor.Watch later = watched(supervisor, job("later")); // the supervisor's thread has passed the first by now

        assertThat(watch.supervised()).isFalse();
        assertThat(supervisor.watching()).isEqualTo(1);
        later.release();
        assertThat(supervisor.watching()).isZero();
    }

    @Test
    void feedsComeAFifthOfTheSilenceApartBetweenATenthOfASecondAndTwoSeconds() {
        assertThat(supervisor(Duration.ofSeconds(10)).feedEvery()).isEqualTo(Duration.ofSeconds(2));
        assertThat(supervisor(Duration.ofSeconds(30)).feedEvery()).isEqualTo(Duration.ofSeconds(2));
        assertThat(supervisor(Duration.ofMillis(1500)).feedEvery()).isEqualTo(Duration.ofMillis(300));
        assertThat(supervisor(Duration.ofMillis(200)).feedEvery()).isEqualTo(Duration.ofMillis(100));
    }
}
