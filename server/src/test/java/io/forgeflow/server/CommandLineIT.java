package io.forgeflow.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.client.ForgeFlowClient;
import io.forgeflow.client.Run;
import io.forgeflow.cli.Terminal;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The command-line client ({@code java -jar forgeflow.jar jobs|runs|dlq|stats|nodes}) run in-process through the node
 * jar's own parser ({@link ForgeFlowCli}) against a real node with API tokens on a real PostgreSQL: what it prints, and
 * the exit codes scripts rely on (0 ok, 2 usage, 3 not found, 4 conflict, 1 anything else). {@link OwnJar}: the same
 * commands through the cli module's parser ({@code java -jar forgeflow-cli.jar}).
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class CommandLineIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final DropwizardAppExtension<ForgeFlowConfiguration> APP = new DropwizardAppExtension<>(
            ForgeFlowApplication.class, ResourceHelpers.resourceFilePath("auth-test-config.yml"),
            ConfigOverride.config("forgeflow.databaseUrl", () -> pg.jdbcUrl()),
            ConfigOverride.config("forgeflow.workerId", "cli-worker"));

    static final String ADMIN = "e2e-admin-0123456789";
    static final String READ = "e2e-read-0123456789";
    static final String UNKNOWN = "01900000-0000-7000-8000-000000000000";

    final ObjectMapper json = new ObjectMapper();
    ForgeFlowClient admin;

    record Result(int code, String out, String err) {
        @Override
        public String toString() {
            return "exit " + code + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    String server() {
        return "http://127.0.0.1:" + APP.getLocalPort();
    }

    /** The command line with FORGEFLOW_SERVER and FORGEFLOW_TOKEN (admin) set, as an operator's shell would have. */
    Result cli(String... args) {
        return cliWith(Map.of("FORGEFLOW_SERVER", server(), "FORGEFLOW_TOKEN", ADMIN), args);
    }

    Result cliWith(Map<String, String> env, String... args) {
        return run(ForgeFlowCli::run, env, args);
    }

    /** The command line of forgeflow-cli.jar ({@code io.forgeflow.cli.ForgeFlowCli}), with the operator's variables. */
    Result ownCli(String... args) {
        return run(io.forgeflow.cli.ForgeFlowCli::run, Map.of("FORGEFLOW_SERVER", server(), "FORGEFLOW_TOKEN", ADMIN), args);
    }

    interface Program {
        int run(Terminal terminal, String... args);
    }

    Result run(Program program, Map<String, String> env, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Terminal terminal = new Terminal(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), new HashMap<>(env));
        int code = program.run(terminal, args);
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    ForgeFlowClient admin() {
        if (admin == null) {
            admin = ForgeFlowClient.builder(server()).token(ADMIN).build();
        }
        return admin;
    }

    @AfterEach
    void closeClient() {
        if (admin != null) {
            admin.close();
        }
    }

    Run awaitRun(String jobId, Predicate<Run> done) throws InterruptedException {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
        while (Instant.now().isBefore(deadline)) {
            for (Run run : admin().listRuns(jobId, null, 10, null).items()) {
                if (done.test(run)) {
                    return run;
                }
            }
            Thread.sleep(100);
        }
        throw new AssertionError("no run of job " + jobId + " got there in 30 s: " + admin().listRuns(jobId, null, 10, null));
    }

    String submittedId(Result submit) throws Exception {
        assertThat(submit.code()).as(submit.toString()).isZero();
        return json.readTree(submit.out()).get("id").asText();
    }

    @Nested
    class Jobs {
        @Test
        void aJobSubmittedFromTheCommandLineRunsAndItsRunShowsItsOutputAndAttempts() throws Exception {
            Result submit = cli("jobs", "submit", "--name", "cli-hello", "--executor", "shell", "--command",
                    "echo hello from the cli", "--priority", "2", "--max-attempts", "2", "--timeout", "30");
            assertThat(submit.code()).as(submit.toString()).isZero();
            assertThat(submit.out()).startsWith("submitted job ").contains("cli-hello").contains("priority      2")
                    .contains("{\"command\":\"echo hello from the cli\"}");
            String jobId = submit.out().lines().findFirst().orElseThrow().substring("submitted job ".length());

            Run run = awaitRun(jobId, r -> Run.SUCCEEDED.equals(r.status()));
            Result get = cli("runs", "get", run.id());
            assertThat(get.code()).as(get.toString()).isZero();
            assertThat(get.out()).containsPattern("status +succeeded").contains("cli-hello (" + jobId + ")")
                    .contains("output:\n  hello from the cli").contains("ATTEMPT  OUTCOME").contains("succeeded  cli-worker");

            Result list = cli("jobs", "list");
            assertThat(list.out()).as(list.toString()).contains("ID").contains("NAME").contains(jobId).contains("cli-hello")
                    .contains("completed");
            Result runs = cli("runs", "list", "--job", jobId, "--json");
            JsonNode page = json.readTree(runs.out());
            assertThat(page.get("items")).hasSize(1);
            assertThat(page.get("items").get(0).get("status").asText()).isEqualTo("succeeded");
            assertThat(page.get("items").get(0).get("job_id").asText()).isEqualTo(jobId);
        }

        @Test
        void aJobIsUpdatedInPlaceAndDeletedFromTheCommandLine() throws Exception {
            String id = submittedId(cli("jobs", "submit", "--name", "cli-edit", "--command", "true", "--cron",
                    "0 3 * * *", "--json"));

            Result update = cli("jobs", "update", id, "--cron", "30 4 * * *", "--priority", "2", "--name",
                    "cli-edited", "--concurrency-key", "none", "--json");
            assertThat(update.code()).as(update.toString()).isZero();
            JsonNode job = json.readTree(update.out());
            assertThat(job.get("id").asText()).isEqualTo(id);
            assertThat(job.get("cron_expr").asText()).isEqualTo("30 4 * * *");
            assertThat(job.get("priority").asInt()).isEqualTo(2);
            assertThat(job.get("name").asText()).isEqualTo("cli-edited");
            assertThat(job.get("next_run_at").asText()).endsWith("04:30:00Z");

            Result refused = cli("jobs", "update", id, "--priority", "12");
            assertThat(refused.code()).as(refused.toString()).isEqualTo(1);
            assertThat(refused.err()).contains("priority");
            assertThat(cli("jobs", "update", id).code()).as("nothing to change: usage").isEqualTo(2);

            Result delete = cli("jobs", "delete", id);
            assertThat(delete.code()).as(delete.toString()).isZero();
            assertThat(delete.out()).contains("job " + id + " (cli-edited) is deleted");
            assertThat(cli("jobs", "list").out()).doesNotContain(id);
            assertThat(cli("jobs", "list", "--status", "deleted").out()).contains(id);
            Result purge = cli("jobs", "delete", id, "--purge");
            assertThat(purge.out()).as(purge.toString()).contains("purged");
            assertThat(cli("jobs", "get", id).code()).isEqualTo(3);
        }

        @Test
        void aJobsRetryPolicyIsSubmittedShownChangedAndDropped() throws Exception {
            Result submit = cli("jobs", "submit", "--name", "hook", "--command", "true", "--run-at", "+1h",
                    "--retry-base", "1", "--retry-max", "2");
            assertThat(submit.code()).as(submit.toString()).isZero();
            assertThat(submit.out()).contains("backoff base 1s, cap 2s (full jitter)");
            String id = submit.out().lines().findFirst().orElseThrow().substring("submitted job ".length());

            Result update = cli("jobs", "update", id, "--retry-base", "30", "--json");
            assertThat(update.code()).as(update.toString()).isZero();
            JsonNode retry = json.readTree(update.out()).get("retry");
            assertThat(retry.get("base_seconds").asInt()).isEqualTo(30);
            assertThat(retry.get("max_seconds").isNull()).as("replaced as a whole").isTrue();
            assertThat(admin().listRuns(id, null, null, null).items()).singleElement()
                    .satisfies(r -> assertThat(r.retry()).isEqualTo(new io.forgeflow.client.Retry(30, null)));

            Result cleared = cli("jobs", "update", id, "--retry-default");
            assertThat(cleared.code()).as(cleared.toString()).isZero();
            assertThat(cleared.out()).contains("server default");
            assertThat(admin().getJob(id).retry()).isNull();

            Result refused = cli("jobs", "submit", "--name", "x", "--command", "true", "--retry-base", "60",
                    "--retry-max", "10");
            assertThat(refused.code()).as(refused.toString()).isEqualTo(1);
            assertThat(refused.err()).contains("retry.base_seconds");
            assertThat(cli("jobs", "update", id, "--retry-base", "5", "--retry-default").code()).isEqualTo(2);
        }

        @Test
        void labelsAreSubmittedShownChangedAndFilteredFromTheCommandLine() throws Exception {
            String report = submittedId(cli("jobs", "submit", "--name", "cli-nightly-report", "--command", "true",
                    "--run-at", "+2h", "--queue", "cli-reports", "--label", "team=billing", "--label", "env=prod",
                    "--json"));
            String backup = submittedId(cli("jobs", "submit", "--name", "cli-nightly-backup", "--command", "true",
                    "--run-at", "+3h", "--label", "team=ops", "--label", "env=prod", "--json"));
            assertThat(json.readTree(cli("jobs", "get", report, "--json").out()).get("labels").toString())
                    .isEqualTo("{\"env\":\"prod\",\"team\":\"billing\"}");
            assertThat(cli("jobs", "get", report).out()).containsPattern("labels +env=prod, team=billing");

            Result byLabel = cli("jobs", "list", "--label", "env=prod", "--label", "team:billing");
            assertThat(byLabel.code()).as(byLabel.toString()).isZero();
            assertThat(byLabel.out()).contains(report).doesNotContain(backup);
            assertThat(cli("jobs", "list", "--name-prefix", "cli-nightly-", "--json").out()).contains(report)
                    .contains(backup);
            assertThat(cli("jobs", "list", "--queue", "cli-reports").out()).contains(report).doesNotContain(backup);

            Result runs = cli("runs", "list", "--label", "team=ops", "--scheduled-after=-1h", "--json");
            assertThat(runs.code()).as(runs.toString()).isZero();
            JsonNode items = json.readTree(runs.out()).get("items");
            assertThat(items).hasSize(1);
            assertThat(items.get(0).get("job_id").asText()).isEqualTo(backup);
            assertThat(items.get(0).get("labels").get("team").asText()).isEqualTo("ops");
            assertThat(cli("runs", "list", "--queue", "cli-reports", "--finished-after", "2020-01-01T00:00:00Z")
                    .out()).contains("no runs");

            Result relabel = cli("jobs", "update", backup, "--label", "team=infra", "--json");
            assertThat(json.readTree(relabel.out()).get("labels").toString()).as(relabel.toString())
                    .isEqualTo("{\"team\":\"infra\"}");
            assertThat(json.readTree(cli("jobs", "update", backup, "--clear-labels", "--json").out()).get("labels"))
                    .isEmpty();

            Result badKey = cli("jobs", "submit", "--name", "x", "--command", "true", "--label", "Team=billing");
            assertThat(badKey.code()).as(badKey.toString()).isEqualTo(1);
            assertThat(badKey.err()).contains("labels has a bad key 'Team'");
            Result badFilter = cli("jobs", "list", "--label", "team");
            assertThat(badFilter.code()).as(badFilter.toString()).isEqualTo(2);
            assertThat(badFilter.err()).contains("--label must be KEY=VALUE");
            Result badTime = cli("runs", "list", "--finished-after", "yesterday");
            assertThat(badTime.code()).as(badTime.toString()).isEqualTo(2);
            assertThat(badTime.err()).contains("--finished-after 'yesterday' is not a time");
        }

        @Test
        void everySubmitOptionReachesTheApi() throws Exception {
            Path payload = Files.createTempFile("forgeflow-payload", ".json");
            Files.writeString(payload, "{\"url\": \"http://127.0.0.1:9/hook\", \"body\": {\"event\": \"ping\"}}");
            String id = submittedId(cli("jobs", "submit", "--json", "--name", "nightly", "--executor", "http",
                    "--payload", "@" + payload, "--cron", "30 2 * * *", "--timezone", "Europe/Berlin",
                    "--catch-up", "once", "--priority", "1", "--max-attempts", "5", "--timeout", "120",
                    "--idempotency-key", "nightly-1"));
            JsonNode job = json.readTree(cli("jobs", "get", id, "--json").out());
            assertThat(job.get("cron_expr").asText()).isEqualTo("30 2 * * *");
            assertThat(job.get("timezone").asText()).isEqualTo("Europe/Berlin");
            assertThat(job.get("catch_up").asText()).isEqualTo("once");
            assertThat(job.get("priority").asInt()).isEqualTo(1);
            assertThat(job.get("max_attempts").asInt()).isEqualTo(5);
            assertThat(job.get("timeout_seconds").asInt()).isEqualTo(120);
            assertThat(job.get("idempotency_key").asText()).isEqualTo("nightly-1");
            assertThat(job.get("payload").get("body").get("event").asText()).isEqualTo("ping");
            assertThat(job.get("next_run_at").isNull()).isFalse();

            Result later = cli("jobs", "submit", "--name", "later", "--command", "true", "--run-at", "+2h", "-q");
            assertThat(later.code()).as(later.toString()).isZero();
            String laterId = later.out().strip();
            assertThat(admin().getJob(laterId).runAt()).isBetween(Instant.now().plus(Duration.ofMinutes(119)),
                    Instant.now().plus(Duration.ofMinutes(121)));
        }

        @Test
        void scheduleControlsAreSubmittedShownChangedPreviewedAndAPauseKeepsItsNote() throws Exception {
            String id = submittedId(cli("jobs", "submit", "--json", "--name", "steered", "--command", "true",
                    "--cron", "0 * * * *", "--start-at", "+1d", "--end-at", "+30d", "--max-runs", "3", "--jitter", "90",
                    "--pause-after-failures", "2"));
            JsonNode job = json.readTree(cli("jobs", "get", id, "--json").out());
            assertThat(job.get("max_runs").asInt()).isEqualTo(3);
            assertThat(job.get("jitter_seconds").asInt()).isEqualTo(90);
            assertThat(job.get("pause_after_failures").asInt()).isEqualTo(2);
            assertThat(Instant.parse(job.get("start_at").asText())).isAfter(Instant.now().plus(Duration.ofHours(23)));
            Instant due = Instant.parse(job.get("next_run_at").asText());
            assertThat(due).isAfterOrEqualTo(Instant.parse(job.get("start_at").asText()));
            String shown = cli("jobs", "get", id).out();
            assertThat(shown).contains("0 of 3 fired", "0-90s after each tick", "2 dead run(s) in a row", "until ");

            Result preview = cli("schedules", "preview", "--job", id, "--count", "5");
            assertThat(preview.code()).as(preview.toString()).isZero();
            assertThat(preview.out()).contains("the last run (max_runs 3)");
            assertThat(preview.out().lines().filter(l -> l.contains(":00:")).count()).as(preview.out()).isEqualTo(3);

            Result pause = cli("jobs", "pause", id, "--note", "vendor outage");
            assertThat(pause.code()).as(pause.toString()).isZero();
            assertThat(cli("jobs", "get", id).out()).contains("vendor outage (by token 1)");
            assertThat(admin().getJob(id).pausedBy()).isEqualTo("token 1");
            assertThat(cli("jobs", "resume", id).code()).isZero();
            assertThat(admin().getJob(id).pausedNote()).isNull();

            Result update = cli("jobs", "update", id, "--max-runs", "none", "--jitter", "0", "--json");
            assertThat(update.code()).as(update.toString()).isZero();
            assertThat(admin().getJob(id).maxRuns()).isNull();
            assertThat(admin().getJob(id).jitterSeconds()).isZero();

            Result backfill = cli("jobs", "backfill", id, "--from", "2026-01-01T00:00:00Z", "--to",
                    "2026-01-01T05:00:00Z", "--overlap", "queue_one");
            assertThat(backfill.code()).as(backfill.toString()).isZero();
            assertThat(backfill.out()).contains("6 tick(s), 6 run(s) created, 0 already had one (overlap queue_one)");
            assertThat(cli("jobs", "backfill", id, "--from", "2026-01-01T00:00:00Z", "--to", "2026-01-01T05:00:00Z")
                    .out()).contains("6 tick(s), 0 run(s) created, 6 already had one");
            Result tooMany = cli("jobs", "backfill", id, "--from", "2020-01-01T00:00:00Z", "--to",
                    "2026-01-01T00:00:00Z");
            assertThat(tooMany.code()).as(tooMany.toString()).isEqualTo(1);
            assertThat(tooMany.err()).contains("more than 10000 ticks");

            Result refused = cli("jobs", "submit", "--name", "bad", "--command", "true", "--cron", "@hourly",
                    "--max-runs", "0");
            assertThat(refused.code()).as(refused.toString()).isEqualTo(1);
            assertThat(refused.err()).contains("max_runs");
        }

        @Test
        void notifyIsSetShownChangedAndRemovedAndABadOneIsRefusedNamingTheField() throws Exception {
            String id = submittedId(cli("jobs", "submit", "--json", "--name", "watched", "--command", "true",
                    "--cron", "0 * * * *", "--notify-url", "https://hooks.example.com/cli", "--notify-on",
                    "recovered, dead"));
            assertThat(admin().getJob(id).notices().on()).containsExactly("dead", "recovered");
            assertThat(cli("jobs", "get", id).out()).contains("https://hooks.example.com/cli on dead, recovered");

            Result changed = cli("jobs", "update", id, "--notify-url", "https://hooks.example.com/ops");
            assertThat(changed.code()).as(changed.toString()).isZero();
            assertThat(admin().getJob(id).notices().on()).containsExactly("dead", "paused", "recovered");
            assertThat(cli("jobs", "update", id, "--notify-url", "none").code()).isZero();
            assertThat(admin().getJob(id).notices()).isNull();

            Result refused = cli("jobs", "submit", "--name", "bad", "--command", "true", "--notify-url",
                    "https://hooks.example.com/cli", "--notify-on", "dead,exploded");
            assertThat(refused.code()).as(refused.toString()).isEqualTo(1);
            assertThat(refused.err()).contains("notify.on");
            Result alone = cli("jobs", "submit", "--name", "bad", "--command", "true", "--notify-on", "dead");
            assertThat(alone.code()).as(alone.toString()).isNotZero();
            assertThat(alone.err()).contains("--notify-on needs --notify-url");
        }

        @Test
        void debounceAndThrottleAreSubmittedShownAndAJoinedSubmissionNamesItsRun() throws Exception {
            String[] submit = {"jobs", "submit", "--name", "cli-sync-user-7", "--command", "true",
                    "--debounce-key", "cli-user-7", "--debounce-period", "60", "--debounce-max-wait", "120",
                    "--throttle-key", "cli-partner", "--throttle-count", "5", "--throttle-per", "2"};
            Result first = cli(submit);
            assertThat(first.code()).as(first.toString()).isZero();
            assertThat(first.out()).contains("submitted job ")
                    .containsPattern("(?m)^debounce +cli-user-7: trailing, 60s after the last submission, at most "
                            + "120s after the first$")
                    .containsPattern("(?m)^throttle +cli-partner: at most 5 start\\(s\\) per 2s$");
            String jobId = first.out().lines().findFirst().orElseThrow().replace("submitted job ", "").strip();
            String runId = admin().listRuns(jobId, null, 1, null).items().get(0).id();

            Result joined = cli(submit);
            assertThat(joined.code()).as(joined.toString()).isZero();
            assertThat(joined.out()).startsWith("debounced into run " + runId + " of job " + jobId);
            JsonNode asJson = json.readTree(cli(java.util.stream.Stream.concat(Stream.of(submit), Stream.of("--json"))
                    .toArray(String[]::new)).out());
            assertThat(asJson.get("debounced_into").asText()).isEqualTo(runId);
            assertThat(asJson.get("id").asText()).isEqualTo(jobId);
            assertThat(admin().listRuns(jobId, null, 10, null).items()).hasSize(1);
            assertThat(cli("jobs", "get", jobId).out()).contains("cli-user-7: trailing").contains("cli-partner: at most 5");

            Result leading = cli("jobs", "submit", "--json", "--name", "cli-leading", "--command", "true",
                    "--debounce-key", "cli-user-8", "--debounce-period", "30", "--debounce-edge", "leading");
            assertThat(json.readTree(leading.out()).get("debounce").get("edge").asText()).isEqualTo("leading");

            Result refused = cli("jobs", "submit", "--name", "bad", "--command", "true", "--throttle-key", "k",
                    "--throttle-count", "0", "--throttle-per", "2");
            assertThat(refused.code()).as(refused.toString()).isEqualTo(1);
            assertThat(refused.err()).contains("throttle.count");
            Result alone = cli("jobs", "submit", "--name", "bad", "--command", "true", "--debounce-period", "5");
            assertThat(alone.code()).as(alone.toString()).isEqualTo(2);
            assertThat(alone.err()).contains("need --debounce-key");
        }

        @Test
        void jobsUpdateChangesAndRemovesTheThrottle() throws Exception {
            String jobId = submittedId(cli("jobs", "submit", "--json", "--name", "cli-partner-call", "--command",
                    "true", "--cron", "0 3 * * *", "--throttle-key", "cli-partner", "--throttle-count", "5",
                    "--throttle-per", "2"));

            Result changed = cli("jobs", "update", jobId, "--throttle-key", "cli-partner", "--throttle-count", "9",
                    "--throttle-per", "60");
            assertThat(changed.code()).as(changed.toString()).isZero();
            assertThat(changed.out()).containsPattern("(?m)^throttle +cli-partner: at most 9 start\\(s\\) per 60s$");
            assertThat(admin().getJob(jobId).throttle()).isEqualTo(new io.forgeflow.client.Throttle("cli-partner", 9, 60));
            Result removed = cli("jobs", "update", jobId, "--throttle-key", "none");
            assertThat(removed.code()).as(removed.toString()).isZero();
            assertThat(admin().getJob(jobId).throttle()).isNull();
            assertThat(cli("jobs", "update", jobId, "--throttle-key", "none", "--throttle-count", "3").code())
                    .as("none takes no count").isEqualTo(2);
        }

        @Test
        void aScheduleWhoseRunsDieThreeTimesInARowPausesItselfAndSaysWhy() throws Exception {
            String id = submittedId(cli("jobs", "submit", "--json", "--name", "broken-hourly", "--command", "exit 3",
                    "--cron", "0 * * * *", "--max-attempts", "1", "--pause-after-failures", "3"));
            // three past ticks, due now: each run fails its one attempt and ends dead
            Result backfill = cli("jobs", "backfill", id, "--from", "2026-01-01T00:00:00Z", "--to",
                    "2026-01-01T02:00:00Z");
            assertThat(backfill.code()).as(backfill.toString()).isZero();

            Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
            while (!"paused".equals(admin().getJob(id).status()) && Instant.now().isBefore(deadline)) {
                Thread.sleep(100);
            }

            assertThat(admin().getJob(id).status()).isEqualTo("paused");
            assertThat(admin().getJob(id).pausedBy()).isEqualTo("scheduler");
            assertThat(admin().listRuns(id, "dead", 10, null).items()).hasSize(3);
            assertThat(cli("jobs", "get", id).out()).contains("3 dead runs in a row (pause_after_failures: 3)",
                    "(by scheduler)", "(now 3 of 3 dead in a row)");
            assertThat(json.readTree(cli("jobs", "get", id, "--json").out()).get("dead_streak").asInt()).isEqualTo(3);
            assertThat(admin().getJob(id).deadStreak()).isEqualTo(3);
            assertThat(cli("jobs", "resume", id).code()).isZero();
            assertThat(admin().getJob(id).pausedNote()).isNull();
            assertThat(admin().getJob(id).deadStreak()).as("a resume starts the count again").isZero();
        }

        @Test
        void pauseResumeTriggerAndCancelPrintTheNewState() throws Exception {
            String id = submittedId(cli("jobs", "submit", "--json", "--name", "every-5", "--command", "true",
                    "--cron", "*/5 * * * *"));
            Result pause = cli("jobs", "pause", id);
            assertThat(pause.code()).as(pause.toString()).isZero();
            assertThat(pause.out()).contains("job " + id + " (every-5) is paused");
            assertThat(admin().getJob(id).status()).isEqualTo("paused");
            assertThat(cli("jobs", "resume", id).out()).contains("is active, next run ");
            Result trigger = cli("jobs", "trigger", id, "-q");
            assertThat(trigger.code()).as(trigger.toString()).isZero();
            assertThat(admin().getRun(trigger.out().strip()).jobId()).isEqualTo(id);
            assertThat(cli("jobs", "cancel", id).out()).contains("is cancelled");
        }
    }

    @Nested
    class Traces {
        @Test
        void runsGetShowsTheTraceIdOfARunSubmittedWithATraceparent() throws Exception {
            String trace = "4bf92f3577b34da6a3ce929d0e0e4736";
            java.net.http.HttpResponse<String> submitted = java.net.http.HttpClient.newHttpClient().send(
                    java.net.http.HttpRequest.newBuilder(java.net.URI.create(server() + "/api/jobs"))
                            .header("Authorization", "Bearer " + ADMIN).header("Content-Type", "application/json")
                            .header("traceparent", "00-" + trace + "-00f067aa0ba902b7-01")
                            .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{\"name\": \"cli-traced\", "
                                    + "\"executor\": \"shell\", \"payload\": {\"command\": \"true\"}}")).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            assertThat(submitted.statusCode()).as(submitted.body()).isEqualTo(201);
            String jobId = json.readTree(submitted.body()).get("id").asText();
            Run run = awaitRun(jobId, r -> Run.SUCCEEDED.equals(r.status()));

            Result get = cli("runs", "get", run.id());
            assertThat(get.code()).as(get.toString()).isZero();
            assertThat(get.out()).containsPattern("trace +" + trace);
            assertThat(json.readTree(cli("runs", "get", run.id(), "--json").out()).get("trace_id").asText())
                    .isEqualTo(trace);
            assertThat(cli("jobs", "get", jobId).out()).containsPattern("trace +" + trace);

            // a run without trace context says so
            String plain = submittedId(cli("jobs", "submit", "--name", "cli-untraced", "--executor", "shell",
                    "--command", "true", "--json"));
            Run untraced = awaitRun(plain, r -> Run.SUCCEEDED.equals(r.status()));
            assertThat(cli("runs", "get", untraced.id()).out()).containsPattern("trace +-");
        }
    }

    @Nested
    class Schedules {
        @Test
        void previewPrintsTheFireTimesWithTheirLocalTimeAndTheDaylightSavingNote() {
            Result r = cliWith(Map.of("FORGEFLOW_SERVER", server(), "FORGEFLOW_TOKEN", READ), "schedules", "preview",
                    "30 2 * * *", "--timezone", "America/New_York", "--after", "2026-03-07T12:00:00Z", "--count", "2");

            assertThat(r.code()).as(r.toString()).isZero();
            List<String> lines = r.out().lines().toList();
            assertThat(lines).hasSize(3);
            assertThat(lines.get(1)).contains("2026-03-08 03:00:00 -04:00")
                    .contains("02:30 does not exist (DST gap): fired at the first valid instant");
            assertThat(lines.get(2)).contains("2026-03-09 02:30:00 -04:00");
        }

        @Test
        void previewAsJsonHoldsTheItemsAndABadExpressionExits1NamingCronExpr() throws Exception {
            JsonNode items = json.readTree(cli("schedules", "preview", "0 0 L * *", "--after", "2026-01-15T00:00:00Z",
                    "--count", "3", "--json").out()).get("items");
            assertThat(items).extracting(i -> i.get("at").asText())
                    .containsExactly("2026-01-31T00:00:00Z", "2026-02-28T00:00:00Z", "2026-03-31T00:00:00Z");

            Result bad = cli("schedules", "preview", "0 0 1,L * *");
            assertThat(bad.code()).as(bad.toString()).isEqualTo(1);
            assertThat(bad.err()).contains("(field: cron_expr)").contains("[HTTP 422]");
            assertThat(cli("schedules", "preview").code()).isEqualTo(2);
            assertThat(cli("schedules", "preview", "* * * * *", "--after", "soon").code()).isEqualTo(2);
        }
    }

    @Nested
    class ExitCodes {
        @Test
        void anUnknownIdExits3WithTheApisMessage() {
            Result get = cli("jobs", "get", UNKNOWN);
            assertThat(get.code()).as(get.toString()).isEqualTo(3);
            assertThat(get.err()).contains(UNKNOWN).contains("[HTTP 404]");
            assertThat(get.out()).isEmpty();
            assertThat(cli("runs", "get", UNKNOWN).code()).isEqualTo(3);
            assertThat(cli("dlq", "requeue", UNKNOWN).code()).isEqualTo(3);
        }

        @Test
        void aConflictExits4WithTheApisMessage() throws Exception {
            String id = submittedId(cli("jobs", "submit", "--json", "--name", "once", "--command", "true",
                    "--cron", "@daily"));
            assertThat(cli("jobs", "cancel", id).code()).isZero();
            Result resume = cli("jobs", "resume", id);
            assertThat(resume.code()).as(resume.toString()).isEqualTo(4);
            assertThat(resume.err()).contains("is cancelled and cannot be resumed").contains("[HTTP 409]");

            assertThat(cli("jobs", "submit", "--name", "a", "--command", "true", "--idempotency-key", "k1").code()).isZero();
            Result replay = cli("jobs", "submit", "--name", "a", "--command", "true", "--idempotency-key", "k1");
            assertThat(replay.code()).as(replay.toString()).isZero();
            assertThat(replay.out()).contains("already exists with this idempotency key and body: nothing submitted");
            Result clash = cli("jobs", "submit", "--name", "b", "--command", "true", "--idempotency-key", "k1");
            assertThat(clash.code()).as(clash.toString()).isEqualTo(4);
            assertThat(clash.err()).contains("idempotency_key");
        }

        @Test
        void aUniqueKeyHeldByALiveJobExits4OrAnswersThatJob() throws Exception {
            String id = submittedId(cli("jobs", "submit", "--json", "--name", "sync", "--command", "true",
                    "--run-at", "+1d", "--unique-key", "sync-42"));

            Result clash = cli("jobs", "submit", "--name", "sync", "--command", "true", "--unique-key", "sync-42");
            assertThat(clash.code()).as(clash.toString()).isEqualTo(4);
            assertThat(clash.err()).contains("unique_key 'sync-42' is held by job " + id);
            Result existing = cli("jobs", "submit", "--name", "sync", "--command", "true", "--unique-key", "sync-42",
                    "--unique-on-conflict", "return_existing");
            assertThat(existing.code()).as(existing.toString()).isZero();
            assertThat(existing.out()).contains("job " + id + " holds unique key sync-42 and is still pending or "
                    + "running: nothing submitted");
        }

        @Test
        void badUsageExits2AndSaysWhatIsWrong() {
            Result none = cli("jobs");
            assertThat(none.code()).as(none.toString()).isEqualTo(2);
            assertThat(none.err()).contains("too few arguments");
            Result unknown = cli("jobs", "frobnicate");
            assertThat(unknown.code()).as(unknown.toString()).isEqualTo(2);
            assertThat(unknown.err()).contains("frobnicate");
            Result noName = cli("jobs", "submit", "--command", "true");
            assertThat(noName.code()).as(noName.toString()).isEqualTo(2);
            assertThat(noName.err()).contains("--name");
            assertThat(cli("jobs", "submit", "--name", "x", "--priority", "high").code()).isEqualTo(2);
            Result array = cli("jobs", "submit", "--name", "x", "--payload", "[1]");
            assertThat(array.code()).as(array.toString()).isEqualTo(2);
            assertThat(array.err()).contains("--payload must be a JSON object");
            assertThat(cli("jobs", "submit", "--name", "x", "--payload", "{nope").code()).isEqualTo(2);
            assertThat(cli("jobs", "submit", "--name", "x", "--run-at", "tomorrow").code()).isEqualTo(2);
            assertThat(cli("dlq", "requeue").code()).isEqualTo(2);
            assertThat(cli("runs", "list", "--status", "sleeping").code()).isEqualTo(2);
            assertThat(cli("jobs", "list", "--server", "not a url").code()).isEqualTo(2);
            assertThat(admin().listJobs().items()).as("nothing was submitted").isEmpty();
        }

        @Test
        void aFieldTheServerRefusesExits1WithTheApisMessageAndField() {
            Result bad = cli("jobs", "submit", "--name", "x", "--command", "true", "--cron", "every tuesday");
            assertThat(bad.code()).as(bad.toString()).isEqualTo(1);
            assertThat(bad.err()).contains("(field: cron_expr)").contains("[HTTP 422]");
            Result json = cli("jobs", "submit", "--name", "x", "--executor", "carrier-pigeon", "--json");
            assertThat(json.code()).isEqualTo(1);
            assertThat(json.err()).contains("\"status\":422").contains("\"field\":\"executor\"").contains("\"exit_code\":1");
        }

        @Test
        void withoutATokenOrWithTooNarrowOneTheCommandFailsWithTheServersReason() {
            Result none = cliWith(Map.of("FORGEFLOW_SERVER", server()), "stats");
            assertThat(none.code()).as(none.toString()).isEqualTo(1);
            assertThat(none.err()).contains("authentication required").contains("[HTTP 401]");
            Result flag = cliWith(Map.of(), "stats", "--server", server(), "--token", ADMIN);
            assertThat(flag.code()).as(flag.toString()).isZero();
            Result readOnly = cliWith(Map.of("FORGEFLOW_SERVER", server(), "FORGEFLOW_TOKEN", READ),
                    "jobs", "pause", UNKNOWN);
            assertThat(readOnly.code()).isEqualTo(1);
            assertThat(readOnly.err()).contains("[HTTP 403]").contains("operate");
        }

        @Test
        void anUnreachableServerExits1AndSaysWhere() {
            Result down = cliWith(Map.of("FORGEFLOW_SERVER", "http://127.0.0.1:1"), "nodes");
            assertThat(down.code()).as(down.toString()).isEqualTo(1);
            assertThat(down.err()).contains("http://127.0.0.1:1").contains("unreachable");
        }

        @Test
        void helpExits0AndListsTheActionsAndOptions() {
            Result top = cli("--help");
            assertThat(top.code()).isZero();
            assertThat(top.out()).contains("jobs").contains("runs").contains("dlq").contains("stats").contains("nodes")
                    .contains("queues").contains("server");
            Result queues = cli("queues", "--help");
            assertThat(queues.code()).as(queues.toString()).isZero();
            assertThat(queues.out()).contains("--max-running").contains("--rate").contains("COUNT/SECONDS")
                    .contains("pause").contains("resume").contains("FORGEFLOW_TOKEN");
            Result jobs = cli("jobs", "--help");
            assertThat(jobs.code()).as(jobs.toString()).isZero();
            assertThat(jobs.out()).contains("submit").contains("list").contains("pause").contains("trigger");
            Result submit = cli("jobs", "submit", "--help");
            assertThat(submit.code()).as(submit.toString()).isZero();
            assertThat(submit.out()).contains("--cron").contains("--run-at").contains("--idempotency-key")
                    .contains("--queue").contains("--concurrency-key").contains("--max-concurrent").contains("--overlap")
                    .contains("--retry-base").contains("--retry-max")
                    .contains("FORGEFLOW_SERVER").contains("FORGEFLOW_TOKEN").contains("--json");
        }
    }

    @Nested
    class Queues {
        @Test
        void aBareQueuesListsTheQueuesAsATableOrTheApisJson() throws Exception {
            Result list = cli("queues");
            assertThat(list.code()).as(list.toString()).isZero();
            assertThat(list.out()).contains("QUEUE").contains("STATE").contains("MAX RUNNING").contains("RATE")
                    .containsPattern("default\\s+active");
            assertThat(cli("queues", "list").out()).isEqualTo(list.out());

            JsonNode listed = json.readTree(cli("queues", "--json").out());
            JsonNode queues = listed.get("items");
            assertThat(listed.get("queues")).as("the deprecated alias").isEqualTo(queues);
            assertThat(queues).extracting(q -> q.get("name").asText()).contains("default");
            assertThat(queues.get(0).has("max_running")).isTrue();
            assertThat(queues.get(0).has("lag_seconds")).isTrue();
        }

        @Test
        void setChangesOnlyTheLimitsGivenAndNoneClearsOne() throws Exception {
            Result set = cli("queues", "set", "cli-reports", "--max-running", "2", "--rate", "100/60");
            assertThat(set.code()).as(set.toString()).isZero();
            assertThat(set.out()).startsWith("queue cli-reports limits set").containsPattern("max running\\s+2")
                    .contains("100 starts per 60s");
            assertThat(admin().queue("cli-reports").maxRunning()).isEqualTo(2);

            assertThat(cli("queues", "set", "cli-reports", "--rate", "none").code()).isZero();
            io.forgeflow.client.Queue after = admin().queue("cli-reports");
            assertThat(after.rateLimit()).isNull();
            assertThat(after.maxRunning()).as("kept").isEqualTo(2);

            JsonNode cleared = json.readTree(cli("queues", "set", "cli-reports", "--max-running", "none", "--json").out());
            assertThat(cleared.get("max_running").isNull()).isTrue();
            Result get = cli("queues", "get", "cli-reports");
            assertThat(get.out()).containsPattern("max running\\s+none").containsPattern("rate limit\\s+none");
            assertThat(cli("queues").out()).contains("cli-reports");
        }

        @Test
        void aPausedQueuesRunsWaitWhileOtherQueuesRunAndStartOnceItIsResumed() throws Exception {
            Result pause = cli("queues", "pause", "cli-held");
            assertThat(pause.code()).as(pause.toString()).isZero();
            assertThat(pause.out()).contains("queue cli-held paused").containsPattern("state\\s+paused");
            String held = submittedId(cli("jobs", "submit", "--json", "--name", "held", "--command", "true",
                    "--queue", "cli-held"));
            String other = submittedId(cli("jobs", "submit", "--json", "--name", "other", "--command", "true"));

            awaitRun(other, r -> Run.SUCCEEDED.equals(r.status()));
            assertThat(admin().listRuns(held, null, 10, null).items()).singleElement()
                    .satisfies(r -> assertThat(r.status()).isEqualTo(Run.PENDING));
            assertThat(json.readTree(cli("queues", "get", "cli-held", "--json").out()).get("pending").asLong())
                    .isEqualTo(1);

            Result resume = cli("queues", "resume", "cli-held");
            assertThat(resume.code()).as(resume.toString()).isZero();
            assertThat(resume.out()).containsPattern("state\\s+active");
            awaitRun(held, r -> Run.SUCCEEDED.equals(r.status()));
        }

        @Test
        void submitTakesTheQueueConcurrencyAndOverlapOptions() throws Exception {
            Result submit = cli("jobs", "submit", "--name", "limited", "--command", "true", "--cron", "@daily",
                    "--queue", "cli-billing", "--concurrency-key", "ledger", "--max-concurrent", "2", "--overlap",
                    "skip");
            assertThat(submit.code()).as(submit.toString()).isZero();
            assertThat(submit.out()).containsPattern("queue\\s+cli-billing")
                    .contains("at most 2 run(s) at once sharing key ledger").containsPattern("overlap\\s+skip");
            String id = submit.out().lines().findFirst().orElseThrow().substring("submitted job ".length());
            io.forgeflow.client.Job job = admin().getJob(id);
            assertThat(job.queue()).isEqualTo("cli-billing");
            assertThat(job.concurrencyKey()).isEqualTo("ledger");
            assertThat(job.maxConcurrent()).isEqualTo(2);
            assertThat(job.overlap()).isEqualTo("skip");

            Result own = cli("jobs", "submit", "--json", "--name", "solo", "--command", "true", "--max-concurrent", "1");
            JsonNode solo = json.readTree(own.out());
            assertThat(solo.get("max_concurrent").asInt()).isEqualTo(1);
            assertThat(solo.get("concurrency_key").isNull()).isTrue();
            assertThat(solo.get("queue").asText()).isEqualTo("default");
        }

        @Test
        void badUsageExits2AndWhatTheServerRefusesExits1NamingTheField() {
            for (String[] args : List.of(new String[]{"queues", "set", "cli-x"},
                    new String[]{"queues", "set", "--max-running", "2"},
                    new String[]{"queues", "pause"},
                    new String[]{"queues", "get"},
                    new String[]{"queues", "set", "cli-x", "--rate", "100"},
                    new String[]{"queues", "set", "cli-x", "--max-running", "two"},
                    new String[]{"queues", "frobnicate"},
                    new String[]{"queues", "list", "cli-x"},
                    new String[]{"queues", "pause", "cli-x", "--max-running", "2"},
                    new String[]{"jobs", "submit", "--name", "x", "--command", "true", "--overlap", "never"},
                    new String[]{"jobs", "submit", "--name", "x", "--command", "true", "--max-concurrent", "many"})) {
                Result r = cli(args);
                assertThat(r.code()).as(String.join(" ", args) + "\n" + r).isEqualTo(2);
                assertThat(r.err()).as(String.join(" ", args)).isNotBlank();
            }
            assertThat(cli("queues", "set", "cli-x").err()).contains("--max-running").contains("--rate");

            Result zero = cli("queues", "set", "cli-x", "--max-running", "0");
            assertThat(zero.code()).as(zero.toString()).isEqualTo(1);
            assertThat(zero.err()).contains("(field: max_running)").contains("[HTTP 422]");
            Result rate = cli("queues", "set", "cli-x", "--rate", "0/60", "--json");
            assertThat(rate.code()).isEqualTo(1);
            assertThat(rate.err()).contains("\"field\":\"rate_limit.count\"");
            Result name = cli("queues", "pause", "not a name");
            assertThat(name.code()).as(name.toString()).isEqualTo(1);
            assertThat(name.err()).contains("(field: name)");
            Result overlap = cli("jobs", "submit", "--name", "x", "--command", "true", "--overlap", "skip");
            assertThat(overlap.code()).as(overlap.toString()).isEqualTo(1);
            assertThat(overlap.err()).contains("(field: overlap)").contains("recurring");
            Result key = cli("jobs", "submit", "--name", "x", "--command", "true", "--concurrency-key", "k");
            assertThat(key.err()).contains("(field: max_concurrent)");

            assertThat(admin().queue("cli-x").maxRunning()).as("nothing was configured").isNull();
            assertThat(admin().queues()).extracting(io.forgeflow.client.Queue::name).doesNotContain("cli-x");
            assertThat(admin().listJobs().items()).as("nothing was submitted").isEmpty();
        }

        @Test
        void aReadTokenCanListQueuesButNotChangeThem() {
            Map<String, String> read = Map.of("FORGEFLOW_SERVER", server(), "FORGEFLOW_TOKEN", READ);
            assertThat(cliWith(read, "queues").code()).isZero();
            Result pause = cliWith(read, "queues", "pause", "cli-x");
            assertThat(pause.code()).as(pause.toString()).isEqualTo(1);
            assertThat(pause.err()).contains("[HTTP 403]").contains("operate");
            assertThat(cliWith(read, "queues", "set", "cli-x", "--max-running", "1").err()).contains("[HTTP 403]");
        }
    }

    @Nested
    class DeadLettersAndCluster {
        @Test
        void aDeadRunIsListedByDlqAndRequeuedWithAFreshBudget() throws Exception {
            String id = submittedId(cli("jobs", "submit", "--json", "--name", "flaky", "--max-attempts", "1",
                    "--command", "echo boom >&2; exit 3"));
            Run dead = awaitRun(id, r -> Run.DEAD.equals(r.status()));
            Result dlq = cli("dlq");
            assertThat(dlq.code()).as(dlq.toString()).isZero();
            assertThat(dlq.out()).contains(dead.id()).contains("flaky").contains("1/1").contains("exit code 3");
            JsonNode page = json.readTree(cli("dlq", "--json").out());
            assertThat(page.get("items")).hasSize(1);

            Result requeue = cli("dlq", "requeue", dead.id(), UNKNOWN);
            assertThat(requeue.code()).as("the first failure's code: the unknown id").isEqualTo(3);
            assertThat(requeue.out()).contains("run " + dead.id() + " is pending");
            assertThat(requeue.err()).contains("forgeflow: " + UNKNOWN + ": ");
            Run again = awaitRun(id, r -> Run.DEAD.equals(r.status())
                    && admin().getRun(r.id()).attemptsOrEmpty().size() == 2);
            assertThat(again.id()).isEqualTo(dead.id());
            Result requeueTwice = cli("runs", "requeue", dead.id());
            assertThat(requeueTwice.code()).isZero();
            Result cancel = cli("runs", "cancel", dead.id());
            assertThat(cancel.code()).as(cancel.toString()).isIn(0, 4); // pending: cancelled; already dead again: conflict
        }

        @Test
        void statsAndNodesShowTheCluster() throws Exception {
            String id = submittedId(cli("jobs", "submit", "--json", "--name", "s", "--command", "true"));
            awaitRun(id, r -> Run.SUCCEEDED.equals(r.status()));
            Result stats = cli("stats");
            assertThat(stats.code()).as(stats.toString()).isZero();
            assertThat(stats.out()).containsPattern("succeeded\\s+1").containsPattern("total\\s+1")
                    .contains("queue lag: unknown"); // /metrics takes its own token in this configuration
            JsonNode counts = json.readTree(cli("stats", "--json").out());
            assertThat(counts.get("succeeded").asLong()).isEqualTo(1);

            Instant deadline = Instant.now().plusSeconds(10);
            Result nodes = cli("nodes");
            while (!nodes.out().contains("leader") && Instant.now().isBefore(deadline)) {
                Thread.sleep(200);
                nodes = cli("nodes");
            }
            assertThat(nodes.code()).isZero();
            assertThat(nodes.out()).contains("WORKER").contains("cli-worker").contains("api,scheduler,worker")
                    .contains("leader");
            JsonNode items = json.readTree(cli("nodes", "--json").out()).get("items");
            assertThat(items.get(0).get("worker_id").asText()).isEqualTo("cli-worker");
        }

        @Test
        void serverTextThatCouldDriveTheTerminalIsShownHarmlessly() throws Exception {
            String id = submittedId(cli("jobs", "submit", "--json", "--name", "evil\u001b]0;pwned\u0007",
                    "--command", "printf '\\033[2J\\033[31mred'"));
            Run run = awaitRun(id, r -> Run.SUCCEEDED.equals(r.status()));
            Result get = cli("runs", "get", run.id());
            assertThat(get.out()).doesNotContain("\u001b").doesNotContain("\u0007").contains("?[2J?[31mred");
            assertThat(cli("jobs", "list").out()).doesNotContain("\u001b").contains("evil?]0;pwned?");
        }
    }

    @Nested
    class Workflows {
        @Test
        void aJobSubmittedWithParentsWaitsAndJobsGetShowsTheLinksWithTheirStatuses() throws Exception {
            String first = submittedId(cli("jobs", "submit", "--name", "cli-extract", "--command", "true", "--run-at",
                    "+1h", "--json"));
            String second = submittedId(cli("jobs", "submit", "--name", "cli-transform", "--command", "true",
                    "--json"));
            awaitRun(second, r -> Run.SUCCEEDED.equals(r.status()));

            Result child = cli("jobs", "submit", "--name", "cli-report", "--command", "true", "--depends-on",
                    first + "," + second, "--on-parent-failure", "wait");
            assertThat(child.code()).as(child.toString()).isZero();
            assertThat(child.out()).containsPattern("depends on +" + first + ", " + second)
                    .containsPattern("parent fails +wait");
            String childId = child.out().lines().findFirst().orElseThrow().substring("submitted job ".length());

            Result get = cli("jobs", "get", childId);
            assertThat(get.code()).as(get.toString()).isZero();
            assertThat(get.out()).contains("parents (2):").containsPattern(first + " +cli-extract +active +pending")
                    .containsPattern(second + " +cli-transform +completed +succeeded").doesNotContain("children (");
            Result parent = cli("jobs", "get", first);
            assertThat(parent.out()).as(parent.toString()).contains("children (1):")
                    .containsPattern(childId + " +cli-report +active +waiting");

            Result waiting = cli("runs", "list", "--status", "waiting", "--json");
            assertThat(waiting.code()).as(waiting.toString()).isZero();
            assertThat(json.readTree(waiting.out()).get("items").findValuesAsText("job_id")).contains(childId);
            Result table = cli("runs", "list", "--job", childId);
            assertThat(table.out()).as(table.toString()).contains("waiting");
            assertThat(cli("stats").out()).containsPattern("waiting +1\n");
            assertThat(json.readTree(cli("stats", "--json").out()).get("waiting").asLong()).isEqualTo(1);

            Result refused = cli("jobs", "submit", "--name", "x", "--command", "true", "--depends-on", UNKNOWN);
            assertThat(refused.code()).as(refused.toString()).isEqualTo(1);
            assertThat(refused.err()).contains("(field: depends_on) [HTTP 422]");
        }

        @Test
        void aBatchFileIsSubmittedAndItsProgressFollowedToCompletion() throws Exception {
            Path file = Files.createTempFile("forgeflow-batch", ".json");
            Files.writeString(file, """
                    {"name": "cli-import", "jobs": [
                      {"ref": "a", "name": "cli-a", "executor": "shell", "payload": {"command": "echo a"}},
                      {"ref": "b", "name": "cli-b", "executor": "shell", "payload": {"command": "exit 1"},
                       "max_attempts": 1, "depends_on": ["a"]},
                      {"ref": "c", "name": "cli-c", "executor": "shell", "payload": {"command": "echo c"},
                       "depends_on": ["b"]}],
                     "on_complete": {"name": "cli-notify", "executor": "shell", "payload": {"command": "echo done"}}}""");

            Result submit = cli("batches", "submit", file.toString());
            assertThat(submit.code()).as(submit.toString()).isZero();
            assertThat(submit.out()).startsWith("submitted batch ").contains("(3 jobs)").contains("#  REF  JOB ID")
                    .contains("on complete: job ");
            String batchId = submit.out().lines().findFirst().orElseThrow().split(" ")[2];
            List<String> jobIds = submit.out().lines().filter(l -> l.matches("\\d  [abc] +\\S+"))
                    .map(l -> l.substring(l.lastIndexOf(' ') + 1)).toList();
            assertThat(jobIds).hasSize(3);
            assertThat(cli("jobs", "get", jobIds.get(2)).out()).containsPattern("batch +" + batchId);

            Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
            Result get = cli("batches", "get", batchId);
            while (!get.out().matches("(?s).*\\bstatus +completed\\b.*") && Instant.now().isBefore(deadline)) {
                Thread.sleep(200);
                get = cli("batches", "get", batchId);
            }
            assertThat(get.code()).as(get.toString()).isZero();
            assertThat(get.out()).containsPattern("status +completed").containsPattern("name +cli-import")
                    .contains("3/3 ended (100%)").containsPattern("succeeded +1").containsPattern("dead +1")
                    .containsPattern("cancelled +1").containsPattern("total +3");
            JsonNode batch = json.readTree(cli("batches", "get", batchId, "--json").out());
            assertThat(batch.get("status").asText()).isEqualTo("completed");
            assertThat(batch.get("total").asInt()).isEqualTo(3);

            assertThat(cli("batches", "get", UNKNOWN).code()).isEqualTo(3);
            Path cycle = Files.createTempFile("forgeflow-cycle", ".json");
            Files.writeString(cycle, """
                    {"jobs": [{"ref": "a", "name": "a", "executor": "shell", "payload": {"command": "true"}, "depends_on": ["b"]},
                              {"ref": "b", "name": "b", "executor": "shell", "payload": {"command": "true"}, "depends_on": ["a"]}]}""");
            Result refused = cli("batches", "submit", cycle.toString());
            assertThat(refused.code()).as(refused.toString()).isEqualTo(1);
            assertThat(refused.err()).containsPattern("field: jobs\\[[01]]\\.depends_on");
        }
    }

    @Nested
    class OwnJar {
        @Test
        void theCliJarsParserRunsTheSameCommandsAgainstTheNode() throws Exception {
            Result submit = ownCli("jobs", "submit", "--name", "own-jar", "--command", "echo from the cli jar");
            assertThat(submit.code()).as(submit.toString()).isZero();
            String jobId = submit.out().lines().findFirst().orElseThrow().substring("submitted job ".length());
            Run run = awaitRun(jobId, r -> Run.SUCCEEDED.equals(r.status()));

            Result get = ownCli("runs", "get", run.id());
            assertThat(get.code()).as(get.toString()).isZero();
            assertThat(get.out()).containsPattern("status +succeeded").contains("output:\n  from the cli jar");
            Result list = ownCli("runs", "list", "--job", jobId, "--json");
            assertThat(json.readTree(list.out()).get("items")).hasSize(1);
            assertThat(ownCli("jobs", "get", UNKNOWN).code()).as("not found").isEqualTo(3);
            Result usage = ownCli("jobs", "submit", "--command", "true");
            assertThat(usage.code()).as(usage.toString()).isEqualTo(2);
            assertThat(usage.err()).contains("--name");
        }

        @Test
        void itsHelpListsTheClientCommandsAndNotTheNodes() {
            Result top = ownCli("--help");
            assertThat(top.code()).as(top.toString()).isZero();
            assertThat(top.out()).contains("java -jar forgeflow-cli.jar").contains("jobs").contains("runs")
                    .contains("batches").contains("dlq").contains("queues").contains("stats").contains("nodes")
                    .contains("schedules").doesNotContainPattern("(?m)^ +(server|check|db) ");
            Result submit = ownCli("jobs", "submit", "--help");
            assertThat(submit.code()).as(submit.toString()).isZero();
            assertThat(submit.out()).contains("--cron").contains("FORGEFLOW_TOKEN").contains("--json");
        }
    }
}
