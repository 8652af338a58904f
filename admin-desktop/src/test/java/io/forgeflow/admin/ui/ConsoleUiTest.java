package io.forgeflow.admin.ui;

import io.forgeflow.admin.testing.ScriptedServer;
import io.forgeflow.client.Job;
import io.forgeflow.client.Run;
import javafx.scene.Node;
import javafx.scene.control.ListView;
import javafx.scene.control.TableView;
import javafx.scene.input.KeyCode;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;

import java.net.ServerSocket;
import java.util.concurrent.CountDownLatch;

import static org.assertj.core.api.Assertions.assertThat;

/** An operator's work, clicked through the real app against a scripted server on loopback. */
class ConsoleUiTest {

    @Nested
    class Connecting extends UiTestSupport {
        @Test
        void anUnreachableServerSaysSoAndRetryConnectsOnceTheUrlIsFixed(FxRobot robot) throws Exception {
            int deadPort;
            try (ServerSocket socket = new ServerSocket(0)) {
                deadPort = socket.getLocalPort();
            }
            open(s -> { });
            robot.clickOn("#serverUrl");
            selectAll(robot);
            robot.write("http://127.0.0.1:" + deadPort);

            robot.clickOn("#connectButton");

            untilText(robot, "#connectMessage", "Cannot reach the server at http://127.0.0.1:" + deadPort);
            assertThat(text(robot, "#connectButton")).isEqualTo("Retry");

            robot.clickOn("#serverUrl");
            selectAll(robot);
            robot.write(server.url());
            robot.clickOn("#connectButton");

            until(() -> robot.lookup("#consoleView").tryQuery().isPresent());
            assertThat(settings.get("serverUrl", null)).isEqualTo(server.url());
        }

        @Test
        void aServerThatWantsATokenSaysSoAndTheTokenIsRemembered(FxRobot robot) {
            open(s -> s.requireToken("t0ken-42"));

            robot.clickOn("#connectButton");
            untilText(robot, "#connectMessage", "The server requires an API token (HTTP 401)");

            robot.clickOn("#apiToken").write("t0ken-42");
            robot.clickOn("#connectButton");

            until(() -> robot.lookup("#consoleView").tryQuery().isPresent());
            untilText(robot, "#stat-dead", "2");
            assertThat(settings.get("apiToken", null)).isEqualTo("t0ken-42");
        }

        @Test
        void disconnectReturnsToTheConnectScreen(FxRobot robot) {
            open(s -> { });
            connect(robot);

            robot.clickOn("#disconnect");

            until(() -> robot.lookup("#connectView").tryQuery().isPresent());
        }

        private void selectAll(FxRobot robot) {
            robot.press(KeyCode.CONTROL, KeyCode.A).release(KeyCode.A, KeyCode.CONTROL);
        }
    }

    @Nested
    class Overview extends UiTestSupport {
        @Test
        void aFailingJobsErrorIsOneClickFromTheOverview(FxRobot robot) {
            open(s -> { });
            connect(robot);
            clicks = 0;

            click(robot, cell(robot, "attentionTable", "backup-db"));

            untilText(robot, "#runError", "pg_dump: error: connection to server at \"db-primary\"");
            assertThat(clicks).as("clicks from the overview to the error").isLessThanOrEqualTo(3);
            assertThat(text(robot, "#runStatus")).isEqualTo(Run.DEAD);
            assertThat(onFx(() -> robot.lookup("#attemptsTable").queryAs(TableView.class).getItems().size()))
                    .isEqualTo(3);
            cell(robot, "attemptsTable", "timed_out");
        }

        @Test
        void theDeadTileListsEveryDeadRunWithItsErrorInOneClick(FxRobot robot) {
            open(s -> { });
            connect(robot);
            clicks = 0;

            click(robot, "#deadTile");

            cell(robot, "deadTable", "pg_dump: error: connection to server at \"db-primary\" (10.0.0.12), port 5432 "
                    + "failed: timeout expired");
            assertThat(clicks).isEqualTo(1);
        }

        @Test
        void countsNodesAndTheLeaderAreShownAndTheFeedFallsBackToPolling(FxRobot robot) {
            open(s -> { });
            connect(robot);

            untilText(robot, "#stat-succeeded", "13");
            assertThat(text(robot, "#stat-dead")).isEqualTo("2");
            assertThat(text(robot, "#stat-running")).isEqualTo("1");
            assertThat(text(robot, "#stat-pending")).isEqualTo("1");
            untilText(robot, "#leaderLabel", "Scheduler leader: node-a");
            cell(robot, "nodesTable", "node-c");
            untilText(robot, "#liveStatus", "Polling every 1 s (this server has no event stream)");
            assertThat(server.requests()).contains("GET /api/events");
        }

        @Test
        void changesAppearWithoutAManualRefresh(FxRobot robot) {
            open(s -> { });
            connect(robot);
            untilText(robot, "#stat-dead", "2");
            untilText(robot, "#liveStatus", "Polling");

            server.changeRun("run_17", Run.DEAD, "worker node-a lost");

            untilText(robot, "#stat-dead", "3");
            until(() -> feed(robot).stream().anyMatch(line -> line.contains("run_17  running → dead")));
        }

        @Test
        void withAnEventStreamEventsArriveLive(FxRobot robot) {
            open(ScriptedServer::enableEvents);
            connect(robot);
            untilText(robot, "#liveStatus", "Live");
            until(server::hasEventListener);

            server.changeRun("run_18", Run.RUNNING, null);

            until(() -> feed(robot).stream().anyMatch(line -> line.contains("run_18  pending → running")));
        }

        private java.util.List<String> feed(FxRobot robot) {
            ListView<?> list = robot.lookup("#feedList").queryAs(ListView.class);
            return onFx(() -> list.getItems().stream().map(item -> app.console().overview()
                    .describe((io.forgeflow.admin.overview.FeedEntry) item)).toList());
        }
    }

    @Nested
    class Jobs extends UiTestSupport {
        @Test
        void aJobsRunsOpenAndAFailedRunShowsItsError(FxRobot robot) {
            open(s -> { });
            connect(robot);

            robot.clickOn("#tab-jobs");
            robot.clickOn(cell(robot, "jobsTable", "backup-db"));
            robot.clickOn("#showJobRuns");

            untilText(robot, "#runsJobFilter", "backup-db");
            robot.clickOn(cell(robot, "runsTable", Run.DEAD));
            untilText(robot, "#runError", "timeout expired");
            untilText(robot, "#runOutput", "public.orders");
        }

        @Test
        void theJobsTableShowsWhereAJobsNoticesGo(FxRobot robot) {
            open(s -> s.notices(s.jobNamed("nightly-report").id(),
                    io.forgeflow.client.Notify.of("https://hooks.example.com/ff", "dead", "recovered")));
            connect(robot);
            robot.clickOn("#tab-jobs");

            assertThat(cell(robot, "jobsTable", "dead, recovered \u2192 https://hooks.example.com/ff")).isNotNull();
        }

        @Test
        void pauseResumeAndAConfirmedCancel(FxRobot robot) {
            open(s -> { });
            connect(robot);
            robot.clickOn("#tab-jobs");
            robot.clickOn(cell(robot, "jobsTable", "nightly-report"));
            String id = server.jobNamed("nightly-report").id();

            robot.clickOn("#pauseJob");
            untilText(robot, "#jobsMessage", "Paused nightly-report");
            assertThat(server.job(id).status()).isEqualTo(Job.PAUSED);

            robot.clickOn("#resumeJob");
            untilText(robot, "#jobsMessage", "Resumed nightly-report");
            assertThat(server.job(id).status()).isEqualTo(Job.ACTIVE);

            robot.clickOn("#cancelJob");
            untilText(robot, "#jobConfirmQuestion", "Cancel job \"nightly-report\" for good?");
            robot.clickOn("#jobConfirmNo");
            until(() -> !robot.lookup("#jobConfirmBar").query().isVisible());
            assertThat(server.job(id).status()).isEqualTo(Job.ACTIVE);

            robot.clickOn("#cancelJob");
            robot.clickOn("#jobConfirmYes");
            untilText(robot, "#jobsMessage", "Cancelled nightly-report");
            assertThat(server.job(id).status()).isEqualTo(Job.CANCELLED);
            assertThat(onFx(() -> robot.lookup("#pauseJob").query().isDisabled())).isTrue();
        }

        @Test
        void deletesAJobAfterConfirmingAndAsksAgainBeforeCancellingARunningRun(FxRobot robot) {
            open(s -> { });
            connect(robot);
            robot.clickOn("#tab-jobs");
            robot.clickOn(cell(robot, "jobsTable", "legacy-export"));
            String legacy = server.jobNamed("legacy-export").id();
            robot.clickOn("#deleteJob");
            untilText(robot, "#jobConfirmQuestion", "Delete job \"legacy-export\"?");
            robot.clickOn("#jobConfirmYes");
            untilText(robot, "#jobsMessage", "Deleted legacy-export.");
            assertThat(server.job(legacy).status()).isEqualTo(Job.DELETED);
            untilText(robot, "#jobsCount", "5 jobs");

            robot.clickOn(cell(robot, "jobsTable", "sync-crm"));
            String sync = server.jobNamed("sync-crm").id();
            robot.clickOn("#deleteJob");
            robot.clickOn("#jobConfirmYes");
            untilText(robot, "#jobConfirmQuestion", "is running. Cancel the running run and delete the job?");
            assertThat(server.job(sync).status()).as("refused while its run runs").isEqualTo(Job.ACTIVE);
            robot.clickOn("#jobConfirmYes");
            untilText(robot, "#jobsMessage", "Deleted sync-crm after cancelling its running run.");
            assertThat(server.job(sync).status()).isEqualTo(Job.DELETED);
            assertThat(server.runsOf(sync)).noneMatch(r -> r.status().equals(Run.RUNNING));
        }

        @Test
        void filtersAreAskedOfTheServer(FxRobot robot) {
            open(s -> {
                s.relabel(s.jobNamed("backup-db").id(), "reports", java.util.Map.of("team", "ops", "env", "prod"));
                s.relabel(s.jobNamed("nightly-report").id(), "reports", java.util.Map.of("team", "ops"));
            });
            connect(robot);
            robot.clickOn("#tab-jobs");
            cell(robot, "jobsTable", "sync-crm");

            robot.clickOn("#jobLabelFilter").write("team=ops").type(KeyCode.ENTER);
            untilText(robot, "#jobFilterError", "'team=ops' has no ':'");

            robot.clickOn("#jobLabelFilter").press(KeyCode.CONTROL, KeyCode.A).release(KeyCode.A, KeyCode.CONTROL)
                    .write("team:ops, env:prod");
            robot.clickOn("#jobQueueFilter").write("reports");
            robot.clickOn("#jobsApplyFilter");

            untilText(robot, "#jobsCount", "1 job matching queue=reports label=env:prod label=team:ops");
            cell(robot, "jobsTable", "backup-db");
            assertThat(server.requests()).anyMatch(r -> r.replace("%3A", ":")
                    .startsWith("GET /api/jobs?queue=reports&label=env:prod&label=team:ops&limit=200"));
            assertThat(onFx(() -> robot.lookup("#jobFilterError").query().isVisible())).isFalse();

            robot.clickOn("#jobNamePrefix").write("sync").type(KeyCode.ENTER);
            untilText(robot, "#jobsCount", "0 jobs matching");
            robot.clickOn("#jobsClearFilter");
            untilText(robot, "#jobsCount", "6 jobs");
        }

        @Test
        void editingAJobSendsTheChangeShowsTheServersRefusalOnItsFieldAndRefreshesTheList(FxRobot robot) {
            open(s -> { });
            connect(robot);
            robot.clickOn("#tab-jobs");
            robot.clickOn(cell(robot, "jobsTable", "nightly-report"));
            String id = server.jobNamed("nightly-report").id();

            robot.clickOn("#editJob");

            untilText(robot, "#formTitle", "Edit job nightly-report (" + id + ")");
            assertThat(text(robot, "#jobCron")).isEqualTo("0 3 * * *");
            assertThat(text(robot, "#jobExecutorFixed")).isEqualTo("shell");
            assertThat(onFx(() -> robot.lookup("#jobIdempotencyKey").queryAs(javafx.scene.control.TextField.class)
                    .isEditable())).isFalse();
            clickInForm(robot, "#jobLabels").write("forbidden:yes");
            robot.clickOn("#submitJob");
            untilText(robot, "#error-labels", "the key 'forbidden' is refused by the scripted server");
            assertThat(server.job(id).labels()).isEmpty();

            clickInForm(robot, "#jobLabels").press(KeyCode.CONTROL, KeyCode.A).release(KeyCode.A, KeyCode.CONTROL)
                    .write("team:ops");
            clickInForm(robot, "#jobPriority").press(KeyCode.CONTROL, KeyCode.A).release(KeyCode.A, KeyCode.CONTROL)
                    .write("2");
            robot.clickOn("#jobKeepPending");
            robot.clickOn("#submitJob");

            untilText(robot, "#jobsMessage", "Saved nightly-report.");
            assertThat(server.job(id).priority()).isEqualTo(2);
            assertThat(server.job(id).labels()).isEqualTo(java.util.Map.of("team", "ops"));
            assertThat(server.requests()).contains("PATCH /api/jobs/" + id + "?pending=keep");
            cell(robot, "jobsTable", "team:ops");
        }
    }

    @Nested
    class ScheduleControls extends UiTestSupport {
        @Test
        void aRecurringJobIsSubmittedWithItsControlsWhichAOneOffJobDoesNotShow(FxRobot robot) {
            open(s -> { });
            connect(robot);
            robot.clickOn("#tab-submit");
            robot.clickOn("#jobName").write("steered");
            robot.clickOn("#jobCommand").write("true");
            assertThat(shown(robot, "#jobMaxRuns")).as("one-off: hidden").isFalse();
            robot.clickOn("#jobScheduleMode");
            robot.clickOn("Repeat on a cron schedule");
            robot.clickOn("#jobCron").write("*/5 * * * *");
            assertThat(shown(robot, "#jobMaxRuns")).as("recurring: shown").isTrue();
            clickInForm(robot, "#jobMaxRuns").write("0");
            untilText(robot, "#error-max-runs", "Must be 1 to 1000000");
            robot.press(KeyCode.BACK_SPACE).release(KeyCode.BACK_SPACE).write("10");
            until(() -> !robot.lookup("#error-max-runs").query().isVisible());
            clickInForm(robot, "#jobStartAt").write("2026-07-01T00:00:00Z");
            clickInForm(robot, "#jobJitter").write("30");
            clickInForm(robot, "#jobPauseAfterFailures").write("3");

            robot.clickOn("#submitJob");

            untilText(robot, "#formMessage", "Created job steered");
            Job created = server.jobNamed("steered");
            assertThat(created.maxRuns()).isEqualTo(10);
            assertThat(created.startAt()).isEqualTo(java.time.Instant.parse("2026-07-01T00:00:00Z"));
            assertThat(created.jitterSeconds()).isEqualTo(30);
            assertThat(created.pauseAfterFailures()).isEqualTo(3);
            assertThat(created.endAt()).isNull();
        }

        @Test
        void editingShowsTheServers422OnEndAtAndAnEmptiedControlIsRemoved(FxRobot robot) {
            open(s -> { });
            connect(robot);
            robot.clickOn("#tab-jobs");
            robot.clickOn(cell(robot, "jobsTable", "nightly-report"));
            String id = server.jobNamed("nightly-report").id();
            robot.clickOn("#editJob");
            untilText(robot, "#formTitle", "Edit job nightly-report (" + id + ")");

            clickInForm(robot, "#jobEndAt").write("2020-01-01T00:00:00Z");
            robot.clickOn("#submitJob");
            untilText(robot, "#error-end-at", "is in the past (the scripted server's rule)");
            assertThat(server.job(id).endAt()).isNull();

            clickInForm(robot, "#jobEndAt").press(KeyCode.CONTROL, KeyCode.A).release(KeyCode.A, KeyCode.CONTROL)
                    .press(KeyCode.BACK_SPACE).release(KeyCode.BACK_SPACE);
            clickInForm(robot, "#jobMaxRuns").write("3");
            robot.clickOn("#submitJob");
            untilText(robot, "#jobsMessage", "Saved nightly-report.");
            assertThat(server.job(id).maxRuns()).isEqualTo(3);
            assertThat(server.job(id).endAt()).isNull();

            robot.clickOn(cell(robot, "jobsTable", "nightly-report"));
            robot.clickOn("#editJob");
            untilText(robot, "#jobMaxRuns", "3");
            clickInForm(robot, "#jobMaxRuns").press(KeyCode.CONTROL, KeyCode.A).release(KeyCode.A, KeyCode.CONTROL)
                    .press(KeyCode.BACK_SPACE).release(KeyCode.BACK_SPACE);
            robot.clickOn("#submitJob");
            until(() -> server.job(id).maxRuns() == null);
            assertThat(server.requests()).filteredOn(r -> r.startsWith("PATCH /api/jobs/" + id)).hasSize(3);
        }

        /** Whether the control and every parent of it is visible. */
        private boolean shown(FxRobot robot, String query) {
            return onFx(() -> {
                for (Node n = robot.lookup(query).query(); n != null; n = n.getParent()) {
                    if (!n.isVisible()) {
                        return false;
                    }
                }
                return true;
            });
        }

        @Test
        void backfillShowsTheAnswerAndTheServers422BesideTo(FxRobot robot) {
            open(s -> { });
            connect(robot);
            robot.clickOn("#tab-jobs");
            robot.clickOn(cell(robot, "jobsTable", "nightly-report"));
            String id = server.jobNamed("nightly-report").id();

            robot.clickOn("#backfillFrom").write("2026-07-01T00:00:00Z");
            robot.clickOn("#backfillTo").write("2026-07-01T05:00:00Z");
            robot.clickOn("#backfillJob");

            untilText(robot, "#backfillMessage", "Backfill of nightly-report: 6 ticks, 6 runs created, 0 already had one.");
            assertThat(server.requests()).contains("POST /api/jobs/" + id + "/backfill");
            robot.clickOn("#backfillJob");
            untilText(robot, "#backfillMessage", "6 ticks, 0 runs created, 6 already had one.");

            robot.clickOn("#backfillFrom").press(KeyCode.CONTROL, KeyCode.A).release(KeyCode.A, KeyCode.CONTROL)
                    .write("2020-01-01T00:00:00Z");
            robot.clickOn("#backfillJob");
            untilText(robot, "#backfill-error-to", "more than 10000 ticks");
            assertThat(onFx(() -> robot.lookup("#backfill-error-from").query().isVisible())).isFalse();
        }
    }

    @Nested
    class SubmitForm extends UiTestSupport {
        @Test
        void submittingACronJobThroughTheForm(FxRobot robot) {
            open(s -> { });
            connect(robot);
            robot.clickOn("#tab-submit");

            robot.clickOn("#jobName").write("hello");
            robot.clickOn("#jobCommand").write("echo hello");
            clickInForm(robot, "#jobPriority").press(KeyCode.CONTROL, KeyCode.A).release(KeyCode.A, KeyCode.CONTROL)
                    .write("12");
            untilText(robot, "#error-priority", "Must be 1 to 9");
            robot.press(KeyCode.BACK_SPACE).release(KeyCode.BACK_SPACE).press(KeyCode.BACK_SPACE)
                    .release(KeyCode.BACK_SPACE).write("2");
            until(() -> !robot.lookup("#error-priority").query().isVisible());
            robot.clickOn("#jobScheduleMode");
            robot.clickOn("Repeat on a cron schedule");
            robot.clickOn("#jobCron").write("*/5 * * * *");
            untilText(robot, "#cronStatus", "Valid. Next 5 fire times in UTC");
            assertThat(onFx(() -> robot.lookup("#cronPreview").queryAs(ListView.class).getItems().size())).isEqualTo(5);

            robot.clickOn("#submitJob");

            untilText(robot, "#formMessage", "Created job hello");
            Job created = server.jobNamed("hello");
            assertThat(created.cronExpr()).isEqualTo("*/5 * * * *");
            assertThat(created.priority()).isEqualTo(2);
            assertThat(created.payload()).containsEntry("command", "echo hello");
            robot.clickOn("#tab-jobs");
            cell(robot, "jobsTable", "hello");
        }

        @Test
        void theServersValidationErrorIsShownOnTheField(FxRobot robot) {
            open(s -> { });
            connect(robot);
            robot.clickOn("#tab-submit");
            robot.clickOn("#jobName").write("quartz");
            robot.clickOn("#jobCommand").write("true");
            robot.clickOn("#jobScheduleMode");
            robot.clickOn("Repeat on a cron schedule");
            robot.clickOn("#jobCron").write("0 0 12 ? * FRIL");
            untilText(robot, "#error-cron", "is not valid (the scripted server's rule)");
            assertThat(server.requests()).anyMatch(r -> r.startsWith("GET /api/schedules/preview"));

            robot.clickOn("#submitJob");

            untilText(robot, "#formMessage", "Fix the fields marked in red");
            assertThat(server.jobNamed("quartz")).isNull();
        }

        @Test
        void aSubmittedOneOffJobsRunsAreOneClickAway(FxRobot robot) {
            open(s -> { });
            connect(robot);
            robot.clickOn("#tab-submit");
            robot.clickOn("#jobName").write("now");
            robot.clickOn("#jobCommand").write("echo now");
            robot.clickOn("#submitJob");
            untilText(robot, "#formMessage", "Created job now");

            robot.clickOn("#formViewRuns");

            untilText(robot, "#runsJobFilter", "now");
            cell(robot, "runsTable", Run.PENDING);
        }
    }

    @Nested
    class RunsAndDeadLetters extends UiTestSupport {
        @Test
        void requeueingOneDeadRunThenTheRest(FxRobot robot) {
            open(s -> { });
            connect(robot);
            robot.clickOn("#tab-dead");
            robot.clickOn(cell(robot, "deadTable", "backup-db"));

            robot.clickOn("#requeueSelected");

            untilText(robot, "#deadMessage", "Requeued 1 run: pending again");
            assertThat(server.runsOf(server.jobNamed("backup-db").id())).extracting(Run::status)
                    .containsExactly(Run.PENDING);
            untilText(robot, "#deadCount", "1 dead run");

            robot.clickOn("#deadSelectAll");
            robot.clickOn("#requeueSelected");

            untilText(robot, "#deadCount", "0 dead runs");
            assertThat(server.runsOf(server.jobNamed("send-invoices").id())).extracting(Run::status)
                    .containsExactly(Run.PENDING);
        }

        @Test
        void aRunsTraceIdIsALinkThatOpensTheBrowser(FxRobot robot) {
            String trace = "4bf92f3577b34da6a3ce929d0e0e4736";
            open(s -> s.traceRun("run_17", trace, "http://tempo.example/trace/" + trace));
            connect(robot);
            robot.clickOn("#tab-runs");
            cell(robot, "runsTable", trace);
            robot.clickOn(cell(robot, "runsTable", Run.RUNNING));
            untilText(robot, "#traceLink", trace);

            robot.clickOn("#traceLink");

            until(() -> openedLinks.contains("http://tempo.example/trace/" + trace));
            untilText(robot, "#runMessage", "Opened the trace in the browser");
        }

        @Test
        void runFiltersAreAskedOfTheServer(FxRobot robot) {
            open(s -> { });
            connect(robot);
            robot.clickOn("#tab-runs");
            cell(robot, "runsTable", Run.RUNNING);

            robot.clickOn("#runScheduledAfter").write("soon").type(KeyCode.ENTER);
            untilText(robot, "#runFilterError", "Scheduled after: write the time as");
            robot.clickOn("#runScheduledAfter").press(KeyCode.CONTROL, KeyCode.A).release(KeyCode.A, KeyCode.CONTROL)
                    .write(server.now().minusSeconds(10).toString());
            robot.clickOn("#runJobIdFilter").write(server.jobNamed("sync-crm").id());
            robot.clickOn("#runsApplyFilter");

            untilText(robot, "#runsCount", "1 run (filtered)");
            cell(robot, "runsTable", Run.RUNNING);
            assertThat(server.requests()).anyMatch(r -> r.startsWith("GET /api/runs?job_id="
                    + server.jobNamed("sync-crm").id() + "&scheduled_after="));
            untilText(robot, "#runsJobFilter", "sync-crm");
        }

        @Test
        void cancellingARunningRunAfterConfirming(FxRobot robot) {
            open(s -> { });
            connect(robot);
            robot.clickOn("#tab-runs");
            robot.clickOn(cell(robot, "runsTable", Run.RUNNING));
            untilText(robot, "#runStatus", Run.RUNNING);

            robot.clickOn("#cancelRun");
            robot.clickOn("#runConfirmYes");

            untilText(robot, "#runStatus", Run.CANCELLED);
            assertThat(server.run("run_17").status()).isEqualTo(Run.CANCELLED);
        }

        @Test
        void tenThousandRunsLoadByCursorAndTheUiStaysResponsive(FxRobot robot) {
            open(s -> s.addManyRuns("job_1", 10_000));
            connect(robot);
            robot.clickOn("#tab-runs");
            untilText(robot, "#runsCount", "500 runs loaded; more on the server");

            for (int loaded = 1000; loaded <= 10_000; loaded += 500) {
                robot.clickOn("#runsLoadMore");
                String expected = loaded + " runs loaded";
                untilText(robot, "#runsCount", expected);
            }
            robot.clickOn("#runsLoadMore");
            untilText(robot, "#runsCount", "10018 runs");

            TableView<?> table = robot.lookup("#runsTable").queryAs(TableView.class);
            robot.clickOn("Scheduled");
            long start = System.nanoTime();
            onFx(() -> {
                table.scrollTo(table.getItems().size() - 1);
                return null;
            });
            robot.clickOn(robot.lookup("#runsTable .table-row-cell").nth(3).queryAs(Node.class));
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertThat(onFx(() -> table.getItems().size())).isEqualTo(10_018);
            // a ceiling that only a frozen window misses (a table re-reading its 10,018 rows per cell); the speed of
            // a quiet machine is not the point, and a loaded one took longer than a 2 s bound allowed
            assertThat(millis).as("scroll to the end of 10,018 runs and click a row").isLessThan(15_000);
            assertThat(server.requests()).anyMatch(r -> r.startsWith("GET /api/runs?limit=500&cursor=o%3A9500")
                    || r.startsWith("GET /api/runs?limit=500&cursor=o:9500"));
        }

        @Test
        void aServerThatHangsNeverFreezesTheWindow(FxRobot robot) {
            open(s -> { });
            connect(robot);
            CountDownLatch hold = server.stall("GET /api/jobs");

            robot.clickOn("#tab-jobs");
            robot.clickOn("#tab-runs");
            robot.clickOn(cell(robot, "runsTable", Run.RUNNING));

            untilText(robot, "#runStatus", Run.RUNNING);
            hold.countDown();
            robot.clickOn("#tab-jobs");
            cell(robot, "jobsTable", "backup-db");
        }
    }
}
