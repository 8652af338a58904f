package io.forgeflow.server;

import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import io.forgeflow.client.ForgeFlowClient;
import io.forgeflow.client.Job;
import io.forgeflow.client.JobRequest;
import io.forgeflow.client.Run;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The web dashboard in a real browser (headless Chromium through chromedriver, both from Debian's packages) against a
 * real node with API tokens on a real PostgreSQL: it asks for a token, shows a submitted job's run turning
 * {@code succeeded} without a reload, pauses, edits, filters and deletes jobs, requeues a dead run, escapes what the server sends, fits a phone;
 * and it leaves its screenshots in docs/screenshots/dashboard-*.png for the README.
 *
 * <p>Without Chromium this test fails (it never skips): {@code apt-get update && apt-get install -y chromium
 * chromium-driver}, which {@code .ci/run} does.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class DashboardBrowserIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final DropwizardAppExtension<ForgeFlowConfiguration> APP = new DropwizardAppExtension<>(
            ForgeFlowApplication.class, ResourceHelpers.resourceFilePath("dashboard-test-config.yml"),
            ConfigOverride.config("forgeflow.databaseUrl", () -> pg.jdbcUrl()),
            ConfigOverride.config("forgeflow.workerId", "node-a"));

    static final String ADMIN = "dashboard-admin-0123456789";
    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    static final Path SCREENSHOTS = Path.of(System.getProperty("forgeflow.screenshots", "../docs/screenshots"));
    static final Duration WAIT = Duration.ofSeconds(30);

    static ChromeDriver browser;
    static Path profile;

    final HttpClient http = HttpClient.newHttpClient();
    ForgeFlowClient client;

    static String base() {
        return "http://127.0.0.1:" + APP.getLocalPort();
    }

    ForgeFlowClient api() {
        if (client == null) {
            client = ForgeFlowClient.builder(base()).token(ADMIN).build();
        }
        return client;
    }

    @AfterEach
    void closeClient() {
        if (client != null) {
            client.close();
        }
    }

    /** The browser, started once; fails (never skips) when Chromium is not installed. */
    static ChromeDriver browser() throws IOException {
        if (browser != null) {
            return browser;
        }
        if (!Files.isExecutable(CHROMIUM) || !Files.isExecutable(CHROMEDRIVER)) {
            fail("the dashboard's browser test needs Chromium and its driver at " + CHROMIUM + " and " + CHROMEDRIVER
                    + ": install them with `apt-get update && apt-get install -y chromium chromium-driver` "
                    + "(Debian; .ci/run does this)");
        }
        profile = Files.createTempDirectory("forgeflow-chromium");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
                "--user-data-dir=" + profile, "--window-size=1280,800", "--lang=en-US", "--hide-scrollbars");
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile()).usingAnyFreePort().build();
        browser = new ChromeDriver(service, options);
        browser.manage().timeouts().scriptTimeout(Duration.ofSeconds(10));
        laptop(browser);
        return browser;
    }

    @AfterAll
    static void closeBrowser() throws IOException {
        if (browser != null) {
            browser.quit();
            browser = null;
        }
        if (profile != null) {
            try (var files = Files.walk(profile)) {
                files.sorted(java.util.Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
            }
        }
    }

    static boolean queuePaused(String name) {
        Boolean paused = pg.jdbi().withHandle(h -> h.createQuery("SELECT paused FROM queues WHERE name = :name")
                .bind("name", name).mapTo(Boolean.class).one());
        return paused;
    }

    /** Opens the dashboard at #hash with the admin token already in the tab's sessionStorage. */
    static ChromeDriver open(String hash) throws IOException {
        ChromeDriver driver = browser();
        driver.get(base() + "/ui/icon.svg"); // same origin, no script: set the token before the page runs
        driver.executeScript("sessionStorage.setItem('forgeflow.token', arguments[0]);", ADMIN);
        driver.get(base() + "/#" + hash);
        waitFor(driver, d -> !"connecting".equals(d.findElement(By.id("live")).getAttribute("data-mode")));
        return driver;
    }

    static <T> T waitFor(WebDriver driver, Function<WebDriver, T> condition) {
        return new WebDriverWait(driver, WAIT).ignoring(org.openqa.selenium.StaleElementReferenceException.class)
                .ignoring(org.openqa.selenium.NoSuchElementException.class).until(condition::apply);
    }

    /** The text of the first element css selects, or null: read in one step, so a re-render cannot go stale under it. */
    static String text(WebDriver driver, String css) {
        Object text = ((JavascriptExecutor) driver).executeScript(
                "const e = document.querySelector(arguments[0]); return e ? e.textContent.trim() : null;", css);
        return (String) text;
    }

    /**
     * An attribute of the first element css selects, or null, read in one step as {@code getAttribute} reads it (the
     * property when there is one: an input's value, a dialog's open): a re-render cannot go stale under it.
     */
    static String attribute(WebDriver driver, String css, String name) {
        Object value = ((JavascriptExecutor) driver).executeScript(
                "const e = document.querySelector(arguments[0]); if (!e) { return null; }"
                        + " const p = e[arguments[1]];"
                        + " if (typeof p === 'boolean') { return p ? 'true' : null; }"
                        + " return p === undefined || p === null || typeof p === 'object' ? e.getAttribute(arguments[1]) : String(p);",
                css, name);
        return (String) value;
    }

    /**
     * The attempts of the run shown, each as its outcome and its rendered text, read in one step: the live view
     * re-renders the timeline as events arrive, and elements found in one command can be gone by the next (seen in CI).
     */
    @SuppressWarnings("unchecked")
    static List<List<String>> attempts(WebDriver driver) {
        return (List<List<String>>) ((JavascriptExecutor) driver).executeScript(
                "return Array.from(document.querySelectorAll('#attempts li[data-attempt]'))"
                        + ".map(e => [e.getAttribute('data-outcome'), e.innerText.trim()]);");
    }

    /** Clicks what css selects, again if a live re-render replaced it just before the click. */
    static void click(WebDriver driver, String css) {
        waitFor(driver, d -> {
            d.findElement(By.cssSelector(css)).click();
            return true;
        });
    }

    /** Replaces a form field's value: clear it, type the new one. */
    static void retype(WebElement input, String value) {
        input.clear();
        input.sendKeys(value);
    }

    /** A laptop's screen: 1280 x 800 CSS pixels of page, whatever the window around it. */
    static void laptop(ChromeDriver driver) {
        driver.executeCdpCommand("Emulation.setDeviceMetricsOverride",
                Map.of("width", 1280, "height", 800, "deviceScaleFactor", 1, "mobile", false));
    }

    static void screenshot(ChromeDriver driver, String name) throws IOException, InterruptedException {
        Thread.sleep(300); // let the last render and the toast settle
        Files.createDirectories(SCREENSHOTS);
        Files.write(SCREENSHOTS.resolve("dashboard-" + name + ".png"), driver.getScreenshotAs(OutputType.BYTES));
    }

    Run firstRun(String jobId) {
        Instant deadline = Instant.now().plus(WAIT);
        while (Instant.now().isBefore(deadline)) {
            List<Run> runs = api().listRuns(jobId, null, 1, null).items();
            if (!runs.isEmpty()) {
                return runs.get(0);
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("job " + jobId + " has no run");
    }

    Run awaitStatus(String runId, String status) throws InterruptedException {
        Instant deadline = Instant.now().plus(WAIT);
        Run run = api().getRun(runId);
        while (!status.equals(run.status()) && Instant.now().isBefore(deadline)) {
            Thread.sleep(100);
            run = api().getRun(runId);
        }
        assertThat(run.status()).as("run %s", runId).isEqualTo(status);
        return run;
    }

    /** A few jobs in every state, so that the screenshots show what an operator sees. */
    void seedCluster(boolean withARunningRun) throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            awaitStatus(firstRun(api().submitJob(JobRequest.shell("sync-crm", "echo synced " + i + " records").build())
                    .job().id()).id(), Run.SUCCEEDED);
        }
        api().submitJob(JobRequest.shell("nightly-report", "./report.sh").cron("0 3 * * *", "Europe/Berlin").build());
        api().submitJob(JobRequest.shell("send-invoices", "./bill.sh").cron("0 8 1 * *", "Europe/London").build());
        Job cleanup = api().submitJob(JobRequest.shell("cleanup-tmp", "find /tmp -mtime +7 -delete").cron("@hourly").build()).job();
        api().pauseJob(cleanup.id());
        Job backup = api().submitJob(JobRequest.shell("backup-db",
                "echo 'pg_dump: connecting to db-primary' ; echo 'pg_dump: error: connection to server at \"db-primary\" "
                        + "(10.0.0.12), port 5432 failed: timeout expired' >&2; exit 1").maxAttempts(2).build()).job();
        awaitStatus(firstRun(backup.id()).id(), Run.DEAD);
        if (withARunningRun) {
            awaitStatus(firstRun(api().submitJob(JobRequest.shell("long-export", "sleep 20").build()).job().id()).id(),
                    Run.RUNNING);
        }
    }

    @Nested
    class InABrowser {
        @Test
        void asksForATokenWhenTheApiAnswers401AndSendsItAsABearerHeader() throws Exception {
            ChromeDriver driver = browser();
            driver.get(base() + "/ui/icon.svg");
            driver.executeScript("sessionStorage.clear();");
            driver.get(base() + "/");
            WebElement dialog = waitFor(driver, d -> {
                WebElement e = d.findElement(By.id("token-dialog"));
                return e.getAttribute("open") != null ? e : null;
            });
            assertThat(dialog.findElement(By.id("token-reason")).getText()).contains("authentication required");
            driver.findElement(By.id("token-input")).sendKeys("not-the-token");
            screenshot(driver, "token");
            driver.findElement(By.id("token-submit")).click();
            waitFor(driver, d -> d.findElement(By.id("token-reason")).getText().contains("The token was refused"));
            assertThat(attribute(driver, "#token-dialog", "open")).isNotNull();
            driver.findElement(By.id("token-input")).sendKeys(ADMIN);
            driver.findElement(By.id("token-submit")).click();

            waitFor(driver, d -> "live".equals(d.findElement(By.id("live")).getAttribute("data-mode")));
            assertThat(attribute(driver, "#token-dialog", "open")).isNull();
            assertThat(driver.executeScript("return sessionStorage.getItem('forgeflow.token');")).isEqualTo(ADMIN);
            assertThat(text(driver, "#count-pending")).isEqualTo("0");
            assertThat(driver.findElement(By.id("forget-token")).isDisplayed()).isTrue();
        }

        @Test
        void theSubmitFormPreviewsTheScheduleWithTheDaylightSavingNoteAndShowsABadExpression() throws Exception {
            ChromeDriver driver = open("jobs");
            driver.findElement(By.id("new-job")).click();
            WebElement form = driver.findElement(By.id("submit-form"));
            // 02:30 on the second Sunday of March, New York time: every year the moment the clocks skip
            form.findElement(By.name("cron_expr")).sendKeys("30 2 * 3 0#2");
            form.findElement(By.name("timezone")).sendKeys("America/New_York");
            driver.findElement(By.id("cron-preview-button")).click();

            waitFor(driver, d -> d.findElements(By.cssSelector("#cron-preview li")).size() == 5);
            for (WebElement item : driver.findElements(By.cssSelector("#cron-preview li"))) {
                assertThat(item.getText()).matches("\\d{4}-03-\\d{2}T03:00:00-04:00 +\\(\\d{4}-03-\\d{2}T07:00:00Z\\) "
                        + "02:30 does not exist \\(DST gap\\): fired at the first valid instant");
            }
            assertThat(driver.findElement(By.id("cron-preview-error")).isDisplayed()).isFalse();

            form.findElement(By.name("cron_expr")).clear();
            form.findElement(By.name("cron_expr")).sendKeys("0 0 1,L * *");
            driver.findElement(By.id("cron-preview-button")).click();
            waitFor(driver, d -> d.findElement(By.id("cron-preview-error")).isDisplayed());
            assertThat(text(driver, "#cron-preview-error")).contains("uses L, W or # wrongly")
                    .endsWith("(field cron_expr)");
            assertThat(driver.findElements(By.cssSelector("#cron-preview li"))).isEmpty();
        }

        @Test
        void aJobSubmittedFromTheFormShowsItsRunTurningSucceededWithoutAReload() throws Exception {
            seedCluster(true);
            ChromeDriver driver = open("jobs");
            assertThat(attribute(driver, "#live", "data-mode"))
                    .as("the node serves /api/events: the page follows it").isEqualTo("live");
            driver.executeScript("document.body.dataset.marker = 'same-page';");

            driver.findElement(By.id("new-job")).click();
            WebElement form = driver.findElement(By.id("submit-form"));
            form.findElement(By.name("name")).sendKeys("hello");
            form.findElement(By.name("command")).sendKeys("sleep 1; echo hello from forgeflow");
            form.findElement(By.cssSelector("button[type=submit]")).click();
            waitFor(driver, d -> d.findElement(By.id("submit-form")).isDisplayed() ? null : true);
            Job hello = api().listJobs().items().stream().filter(j -> j.name().equals("hello")).findFirst().orElseThrow();
            String runId = firstRun(hello.id()).id();

            driver.findElement(By.cssSelector("#tabs a[data-tab=overview]")).click();
            String row = "#recent tr[data-run-id='" + runId + "'] td.status";
            waitFor(driver, d -> "running".equals(text(d, row)) || "succeeded".equals(text(d, row)));
            waitFor(driver, d -> "succeeded".equals(text(d, row)));
            assertThat(driver.executeScript("return document.body.dataset.marker;"))
                    .as("the run changed in place, the page was not reloaded").isEqualTo("same-page");
            waitFor(driver, d -> Integer.parseInt(d.findElement(By.id("count-succeeded")).getText()) >= 4);
            assertThat(text(driver, "#count-dead")).isEqualTo("1");
            assertThat(attribute(driver, "#card-dead", "class")).contains("alert");
            waitFor(driver, d -> "backup-db".equals(text(d, "#attention tr[data-run-id] td")));
            waitFor(driver, d -> d.findElement(By.id("queue-lag")).getText().endsWith(" s"));
            waitFor(driver, d -> d.findElement(By.id("leader")).getText().equals("Scheduler leader: node-a"));
            assertThat(text(driver, "#nodes tr[data-worker='node-a'] td:last-child")).isEqualTo("★ leader");
            screenshot(driver, "overview");
        }

        @Test
        void pausesAJobFromTheJobsListAndResumesIt() throws Exception {
            seedCluster(false);
            Job job = api().submitJob(JobRequest.shell("backup-logs", "tar czf /tmp/logs.tgz /var/log")
                    .cron("*/15 * * * *").build()).job();
            ChromeDriver driver = open("jobs");
            String row = "#jobs tr[data-job-id='" + job.id() + "']";
            waitFor(driver, d -> "active".equals(text(d, row + " td.status")));
            click(driver, row + " button[data-action=pause]");
            waitFor(driver, d -> "paused".equals(text(d, row + " td.status")));
            assertThat(api().getJob(job.id()).status()).isEqualTo(Job.PAUSED);
            waitFor(driver, d -> d.findElement(By.cssSelector(row + " button[data-action=resume]")).isEnabled());
            screenshot(driver, "jobs");
            click(driver, row + " button[data-action=resume]");
            waitFor(driver, d -> "active".equals(text(d, row + " td.status")));
            assertThat(api().getJob(job.id()).status()).isEqualTo(Job.ACTIVE);
        }

        @Test
        void aRedrawKeepsTheButtonUnderThePointerAndItActsOnWhatWasJustDrawn() throws Exception {
            Job job = api().submitJob(JobRequest.shell("sync-ledger", "true").cron("*/15 * * * *").build()).job();
            ChromeDriver driver = open("jobs");
            String button = "#jobs tr[data-job-id='" + job.id() + "'] button[data-action=pause]";
            waitFor(driver, d -> text(d, button) == null ? null : true);
            driver.executeScript("window.kept = document.querySelector(arguments[0]);", button);

            // the list is read again and drawn with one more row: the row that did not change keeps its elements
            Job other = api().submitJob(JobRequest.shell("sync-audit", "true").cron("*/15 * * * *").build()).job();
            driver.findElement(By.id("jobs-refresh")).click();
            waitFor(driver, d -> text(d, "#jobs tr[data-job-id='" + other.id() + "'] td.status") == null ? null : true);
            assertThat(driver.executeScript("return window.kept.isConnected"
                    + " && window.kept === document.querySelector(arguments[0]);", button)).isEqualTo(true);

            driver.executeScript("window.kept.click();");
            String row = "#jobs tr[data-job-id='" + job.id() + "']";
            waitFor(driver, d -> "paused".equals(text(d, row + " td.status")));
            assertThat(api().getJob(job.id()).status()).isEqualTo(Job.PAUSED);
            assertThat(driver.executeScript("return window.kept.isConnected && window.kept.dataset.action;"))
                    .as("the same element, now the Resume button").isEqualTo("resume");
            driver.executeScript("window.kept.click();");
            waitFor(driver, d -> "active".equals(text(d, row + " td.status")));
            assertThat(api().getJob(job.id()).status()).isEqualTo(Job.ACTIVE);
        }

        @Test
        void aLiveEventThatRedrawsTheJobViewKeepsItsGraphNodesAndButtons() throws Exception {
            Job job = api().submitJob(JobRequest.shell("rotate-tokens", "true").cron("0 * * * *").build()).job();
            ChromeDriver driver = open("job?id=" + job.id());
            waitFor(driver, d -> d.findElements(By.id("job-pause")).isEmpty() ? null : true);
            driver.executeScript("window.keptPause = document.getElementById('job-pause');"
                    + " window.keptNode = document.querySelector('#workflow .wf-self .wf-node');");

            String runId = api().triggerJob(job.id()).id();
            waitFor(driver, d -> d.findElements(By.cssSelector("#job-runs tr[data-run-id='" + runId + "']")).isEmpty()
                    ? null : true);
            assertThat(driver.executeScript("return window.keptPause.isConnected && window.keptNode.isConnected"
                    + " && window.keptNode === document.querySelector('#workflow .wf-self .wf-node');")).isEqualTo(true);

            driver.executeScript("window.keptPause.click();");
            waitFor(driver, d -> d.findElements(By.id("job-resume")).isEmpty() ? null : true);
            assertThat(api().getJob(job.id()).status()).isEqualTo(Job.PAUSED);
        }

        @Test
        void pausesAJobWithANoteFromItsViewAndTheListShowsTheNoteAndItsControls() throws Exception {
            seedCluster(false);
            Job job = api().submitJob(JobRequest.shell("rotate-keys", "true").cron("0 * * * *").maxRuns(5)
                    .jitterSeconds(30).build()).job();
            ChromeDriver driver = open("job?id=" + job.id());
            waitFor(driver, d -> d.findElements(By.id("job-pause")).isEmpty() ? null : true);
            assertThat(text(driver, "#job-detail .meta")).contains("0 of 5 runs", "jitter 0-30s");
            driver.findElement(By.id("job-pause-note")).sendKeys("vendor outage");
            click(driver, "#job-pause");
            waitFor(driver, d -> d.findElements(By.id("job-paused-note")).isEmpty() ? null : true);
            assertThat(text(driver, "#job-paused-note")).isEqualTo("paused: vendor outage (by token 1)");
            assertThat(api().getJob(job.id()).pausedNote()).isEqualTo("vendor outage");

            driver = open("jobs");
            String row = "#jobs tr[data-job-id='" + job.id() + "']";
            waitFor(driver, d -> "paused".equals(text(d, row + " td.status")));
            assertThat(text(driver, row + " .paused-note")).isEqualTo("paused: vendor outage (by token 1)");
            assertThat(text(driver, row + " .steer")).contains("0 of 5 runs");
        }

        @Test
        void aPauseNoteBeingTypedSurvivesTheLiveViewRedrawingAroundIt() throws Exception {
            Job job = api().submitJob(JobRequest.shell("rotate-certs", "true").cron("0 * * * *").build()).job();
            ChromeDriver driver = open("job?id=" + job.id());
            waitFor(driver, d -> d.findElements(By.id("job-pause")).isEmpty() ? null : true);
            WebElement note = driver.findElement(By.id("job-pause-note"));
            note.sendKeys("vendor ");
            // a run of the job: its live event redraws the view while the note is half typed
            String runId = api().triggerJob(job.id()).id();
            waitFor(driver, d -> d.findElements(By.cssSelector("#job-runs tr[data-run-id='" + runId + "']")).isEmpty()
                    ? null : true);

            note.sendKeys("outage");
            assertThat(attribute(driver, "#job-pause-note", "value")).isEqualTo("vendor outage");
            click(driver, "#job-pause");
            waitFor(driver, d -> d.findElements(By.id("job-paused-note")).isEmpty() ? null : true);
            assertThat(api().getJob(job.id()).pausedNote()).isEqualTo("vendor outage");
        }

        @Test
        void aJobsViewBackfillsARangeOfTicksOnceAndShowsARefusedRange() throws Exception {
            Job job = api().submitJob(JobRequest.shell("hourly-import", "true").cron("0 * * * *").build()).job();
            ChromeDriver driver = open("job?id=" + job.id());
            waitFor(driver, d -> d.findElements(By.id("backfill-run")).isEmpty() ? null : true);
            driver.findElement(By.id("backfill-from")).sendKeys("2026-01-01T00:00:00Z");
            driver.findElement(By.id("backfill-to")).sendKeys("2026-01-01T02:00:00Z");
            new org.openqa.selenium.support.ui.Select(driver.findElement(By.id("backfill-overlap")))
                    .selectByVisibleText("queue_one");
            click(driver, "#backfill-run");
            waitFor(driver, d -> "3 ticks, 3 runs created, 0 already had one".equals(text(d, "#backfill-result"))
                    ? true : null);
            assertThat(api().listRuns(job.id(), null, 10, null).items()).hasSize(3);

            click(driver, "#backfill-run");
            waitFor(driver, d -> "3 ticks, 0 runs created, 3 already had one".equals(text(d, "#backfill-result"))
                    ? true : null);

            driver.findElement(By.id("backfill-to")).clear();
            driver.findElement(By.id("backfill-to")).sendKeys("2025-01-01T00:00:00Z");
            click(driver, "#backfill-run");
            waitFor(driver, d -> {
                String shown = text(d, "#backfill-result");
                return shown != null && shown.contains("must not be before") ? true : null;
            });
            assertThat(attribute(driver, "#backfill-result", "class")).contains("form-error");
            assertThat(api().listRuns(job.id(), null, 10, null).items()).hasSize(3);
        }

        /** Issue 45: "2 of 3 dead in a row" before a pause_after_failures pause (dead_streak). */
        @Test
        void theJobViewShowsItsDeadRunsInARowAgainstPauseAfterFailures() throws Exception {
            Job job = api().submitJob(JobRequest.shell("flaky-sync", "false").cron("0 * * * *").pauseAfterFailures(3)
                    .build()).job();
            pg.jdbi().useHandle(h -> h.createUpdate("UPDATE forgeflow.jobs SET dead_streak = 2 WHERE id::text = :id")
                    .bind("id", job.id()).execute());
            ChromeDriver driver = open("job?id=" + job.id());
            String meta = waitFor(driver, d -> {
                String shown = text(d, "#job-detail .meta");
                return shown != null && shown.contains("dead in a row") ? shown : null;
            });
            assertThat(meta).contains("2 of 3 dead in a row (pauses at 3)");
        }

        @Test
        void theJobViewShowsWhereItsNoticesGo() throws Exception {
            seedCluster(false);
            Job job = api().submitJob(JobRequest.shell("watched-backup", "true").cron("0 * * * *")
                    .notices("https://hooks.example.com/forgeflow", "dead", "recovered").build()).job();
            ChromeDriver driver = open("job?id=" + job.id());
            waitFor(driver, d -> d.findElements(By.id("job-notify")).isEmpty() ? null : true);
            assertThat(text(driver, "#job-notify"))
                    .isEqualTo("notices (dead, recovered) to https://hooks.example.com/forgeflow");
        }

        @Test
        void theNewJobFormSetsDebounceAndThrottleAJoinedSubmissionSaysSoAndTheJobViewShowsThem() throws Exception {
            ChromeDriver driver = open("jobs");
            for (int i = 1; i <= 2; i++) {
                driver.findElement(By.id("new-job")).click();
                WebElement submit = driver.findElement(By.id("submit-form"));
                submit.findElement(By.name("name")).sendKeys("sync-profile");
                submit.findElement(By.name("command")).sendKeys("./sync.sh " + i);
                submit.findElement(By.name("debounce_key")).sendKeys("ui-user-42");
                submit.findElement(By.name("debounce_period_seconds")).sendKeys("60");
                submit.findElement(By.name("debounce_max_wait_seconds")).sendKeys("120");
                submit.findElement(By.name("throttle_key")).sendKeys("ui-partner");
                submit.findElement(By.name("throttle_count")).sendKeys("5");
                submit.findElement(By.name("throttle_per_seconds")).sendKeys("2");
                submit.findElement(By.cssSelector("button[type=submit]")).click();
                waitFor(driver, d -> d.findElement(By.id("submit-form")).isDisplayed() ? null : true);
            }
            assertThat(text(driver, "#toast")).startsWith("Debounced into run ").endsWith(" of sync-profile");
            List<Job> jobs = api().listJobs().items().stream().filter(j -> j.name().equals("sync-profile")).toList();
            assertThat(jobs).as("the second submission joined the first's run").hasSize(1);
            Job job = jobs.get(0);
            assertThat(job.debounce()).isEqualTo(new io.forgeflow.client.Debounce("ui-user-42", 60, 120, "trailing"));
            assertThat(job.throttle()).isEqualTo(new io.forgeflow.client.Throttle("ui-partner", 5, 2));
            assertThat(job.payload()).containsEntry("command", "./sync.sh 2");
            assertThat(api().listRuns(job.id(), null, 10, null).items()).hasSize(1);

            driver.get(base() + "/#job?id=" + job.id());
            waitFor(driver, d -> d.findElements(By.id("job-flow")).isEmpty() ? null : true);
            assertThat(text(driver, "#job-flow")).isEqualTo("debounce ui-user-42: trailing, 60s after the last "
                    + "submission, at most 120s after the first · throttle ui-partner: at most 5 start(s) per 2s");
        }

        @Test
        void theEditFormChangesAndRemovesAJobsThrottle() throws Exception {
            Job job = api().submitJob(JobRequest.shell("call-partner", "./call.sh").cron("0 * * * *")
                    .throttle("ui-partner-7", 5, 2).build()).job();
            ChromeDriver driver = open("jobs");
            String row = "#jobs tr[data-job-id='" + job.id() + "']";
            waitFor(driver, d -> "active".equals(text(d, row + " td.status")));
            click(driver, row + " button[data-action=edit]");
            WebElement form = waitFor(driver, d -> d.findElement(By.id("edit-form")).isDisplayed() ? d.findElement(By.id("edit-form")) : null);
            waitFor(driver, d -> "ui-partner-7".equals(form.findElement(By.name("throttle_key")).getAttribute("value")));
            assertThat(form.findElement(By.name("throttle_count")).getAttribute("value")).isEqualTo("5");

            retype(form.findElement(By.name("throttle_count")), "0");
            driver.findElement(By.id("edit-save")).click();
            String throttleError = "#edit-form label[data-field=throttle] .field-error";
            waitFor(driver, d -> d.findElement(By.cssSelector(throttleError)).isDisplayed());
            assertThat(text(driver, throttleError)).contains("throttle.count");
            assertThat(api().getJob(job.id()).throttle().count()).isEqualTo(5);

            retype(form.findElement(By.name("throttle_count")), "9");
            retype(form.findElement(By.name("throttle_per_seconds")), "60");
            driver.findElement(By.id("edit-save")).click();
            waitFor(driver, d -> d.findElement(By.id("edit-form")).isDisplayed() ? null : true);
            assertThat(api().getJob(job.id()).throttle()).isEqualTo(new io.forgeflow.client.Throttle("ui-partner-7", 9, 60));

            click(driver, row + " button[data-action=edit]");
            waitFor(driver, d -> d.findElement(By.id("edit-form")).isDisplayed() ? true : null);
            waitFor(driver, d -> "9".equals(form.findElement(By.name("throttle_count")).getAttribute("value")));
            retype(form.findElement(By.name("throttle_key")), "");
            driver.findElement(By.id("edit-save")).click();
            waitFor(driver, d -> d.findElement(By.id("edit-form")).isDisplayed() ? null : true);
            assertThat(api().getJob(job.id()).throttle()).as("an emptied key removes it").isNull();
        }

        @Test
        void editsAJobsScheduleAndPriorityInTheFormAndTheListAndTheApiShowTheNewValues() throws Exception {
            Job job = api().submitJob(JobRequest.shell("rotate-keys", "./rotate.sh").cron("*/15 * * * *").build()).job();
            ChromeDriver driver = open("jobs");
            String row = "#jobs tr[data-job-id='" + job.id() + "']";
            waitFor(driver, d -> "active".equals(text(d, row + " td.status")));
            click(driver, row + " button[data-action=edit]");
            WebElement form = waitFor(driver, d -> d.findElement(By.id("edit-form")).isDisplayed() ? d.findElement(By.id("edit-form")) : null);
            waitFor(driver, d -> "*/15 * * * *".equals(form.findElement(By.name("cron_expr")).getAttribute("value")));
            assertThat(form.findElement(By.name("priority")).getAttribute("value")).isEqualTo("5");
            assertThat(form.findElement(By.name("run_at")).isDisplayed()).as("a recurring job has no run_at").isFalse();

            retype(form.findElement(By.name("cron_expr")), "0 6 * * *");
            retype(form.findElement(By.name("priority")), "2");
            driver.findElement(By.id("edit-save")).click();

            waitFor(driver, d -> d.findElement(By.id("edit-form")).isDisplayed() ? null : true);
            waitFor(driver, d -> String.valueOf(text(d, row + " td:nth-child(3)")).startsWith("0 6 * * *"));
            waitFor(driver, d -> "2".equals(text(d, row + " td:nth-child(6)")));
            Job changed = api().getJob(job.id());
            assertThat(changed.cronExpr()).isEqualTo("0 6 * * *");
            assertThat(changed.priority()).isEqualTo(2);
            assertThat(changed.id()).as("the same job, changed in place").isEqualTo(job.id());
            assertThat(changed.status()).isEqualTo(Job.ACTIVE);
            assertThat(changed.nextRunAt()).as("the new schedule's next tick: 06:00").isNotNull();
            assertThat(changed.nextRunAt().atZone(java.time.ZoneOffset.UTC).getHour()).isEqualTo(6);
        }

        @Test
        void anEditOfAWebhooksUrlKeepsItsMaskedSecretHeader() throws Exception {
            Job job = api().submitJob(JobRequest.builder("call-crm", "http").payload(java.util.Map.of(
                    "url", "https://example.test/a", "method", "POST",
                    "headers", java.util.Map.of("Authorization", "Bearer s3cret"))).cron("0 4 * * *").build()).job();
            ChromeDriver driver = open("jobs");
            String row = "#jobs tr[data-job-id='" + job.id() + "']";
            waitFor(driver, d -> "active".equals(text(d, row + " td.status")));
            click(driver, row + " button[data-action=edit]");
            WebElement form = waitFor(driver, d -> d.findElement(By.id("edit-form")).isDisplayed() ? d.findElement(By.id("edit-form")) : null);
            WebElement payload = form.findElement(By.name("payload"));
            String shown = waitFor(driver, d -> {
                String v = payload.getAttribute("value");
                return v != null && v.contains("example.test") ? v : null;
            });
            assertThat(shown).as("the form shows the mask, not the secret").contains("***").doesNotContain("s3cret");

            retype(payload, shown.replace("https://example.test/a", "https://example.test/b"));
            driver.findElement(By.id("edit-save")).click();

            waitFor(driver, d -> d.findElement(By.id("edit-form")).isDisplayed() ? null : true);
            String stored = pg.jdbi().withHandle(h -> h.createQuery(
                    "SELECT payload::text FROM forgeflow.jobs WHERE id::text = :id").bind("id", job.id())
                    .mapTo(String.class).one());
            assertThat(stored).contains("https://example.test/b").contains("Bearer s3cret").doesNotContain("***");
        }

        @Test
        void anEditTheServerRefusesIsShownNextToTheFieldItNamesAndChangesNothing() throws Exception {
            Job job = api().submitJob(JobRequest.shell("compact-logs", "./compact.sh").cron("0 * * * *").build()).job();
            ChromeDriver driver = open("jobs");
            String row = "#jobs tr[data-job-id='" + job.id() + "']";
            waitFor(driver, d -> "active".equals(text(d, row + " td.status")));
            click(driver, row + " button[data-action=edit]");
            WebElement form = waitFor(driver, d -> d.findElement(By.id("edit-form")).isDisplayed() ? d.findElement(By.id("edit-form")) : null);
            waitFor(driver, d -> "0 * * * *".equals(form.findElement(By.name("cron_expr")).getAttribute("value")));

            retype(form.findElement(By.name("cron_expr")), "61 * * * *");
            driver.findElement(By.id("edit-save")).click();
            String cronError = "#edit-form label[data-field=cron_expr] .field-error";
            waitFor(driver, d -> d.findElement(By.cssSelector(cronError)).isDisplayed());
            assertThat(text(driver, cronError)).as("the server's own message").containsIgnoringCase("cron");
            assertThat(attribute(driver, "#edit-form label[data-field=cron_expr]", "class"))
                    .contains("invalid");
            assertThat(driver.findElement(By.cssSelector("#edit-form label[data-field=priority] .field-error")).isDisplayed())
                    .as("only the field the server named").isFalse();
            assertThat(driver.findElement(By.id("edit-form")).isDisplayed()).as("the form stays open to fix it").isTrue();
            assertThat(api().getJob(job.id()).cronExpr()).isEqualTo("0 * * * *");

            retype(form.findElement(By.name("priority")), "42");
            retype(form.findElement(By.name("cron_expr")), "30 * * * *");
            driver.findElement(By.id("edit-save")).click();
            String priorityError = "#edit-form label[data-field=priority] .field-error";
            waitFor(driver, d -> d.findElement(By.cssSelector(priorityError)).isDisplayed());
            assertThat(text(driver, priorityError)).contains("priority");
            assertThat(driver.findElement(By.cssSelector(cronError)).isDisplayed()).as("the old error is cleared").isFalse();
            screenshot(driver, "edit-error");
            assertThat(api().getJob(job.id()).priority()).isEqualTo(5);
        }

        @Test
        void theFormsSetAScheduleControlsAndShowTheFieldTheServerRefuses() throws Exception {
            ChromeDriver driver = open("jobs");
            driver.findElement(By.id("new-job")).click();
            WebElement submit = driver.findElement(By.id("submit-form"));
            submit.findElement(By.name("name")).sendKeys("steered-report");
            submit.findElement(By.name("command")).sendKeys("./report.sh");
            submit.findElement(By.name("cron_expr")).sendKeys("0 2 * * *");
            submit.findElement(By.name("max_runs")).sendKeys("12");
            submit.findElement(By.name("pause_after_failures")).sendKeys("3");
            submit.findElement(By.cssSelector("button[type=submit]")).click();
            waitFor(driver, d -> d.findElement(By.id("submit-form")).isDisplayed() ? null : true);
            Job job = api().listJobs().items().stream().filter(j -> j.name().equals("steered-report")).findFirst()
                    .orElseThrow();
            assertThat(job.maxRuns()).isEqualTo(12);
            assertThat(job.pauseAfterFailures()).isEqualTo(3);

            String row = "#jobs tr[data-job-id='" + job.id() + "']";
            waitFor(driver, d -> "active".equals(text(d, row + " td.status")));
            click(driver, row + " button[data-action=edit]");
            WebElement form = waitFor(driver, d -> d.findElement(By.id("edit-form")).isDisplayed() ? d.findElement(By.id("edit-form")) : null);
            waitFor(driver, d -> "12".equals(form.findElement(By.name("max_runs")).getAttribute("value")));
            assertThat(driver.findElement(By.cssSelector("#edit-form label[data-field=jitter_seconds]")).isDisplayed())
                    .as("a recurring job shows its controls").isTrue();

            retype(form.findElement(By.name("jitter_seconds")), "90000");
            driver.findElement(By.id("edit-save")).click();
            String jitterError = "#edit-form label[data-field=jitter_seconds] .field-error";
            waitFor(driver, d -> d.findElement(By.cssSelector(jitterError)).isDisplayed());
            assertThat(text(driver, jitterError)).contains("jitter_seconds");
            assertThat(api().getJob(job.id()).jitterSeconds()).isZero();

            retype(form.findElement(By.name("jitter_seconds")), "30");
            retype(form.findElement(By.name("max_runs")), "");
            retype(form.findElement(By.name("start_at")), "2030-01-01T00:00:00Z");
            driver.findElement(By.id("edit-save")).click();
            waitFor(driver, d -> d.findElement(By.id("edit-form")).isDisplayed() ? null : true);
            Job edited = api().getJob(job.id());
            assertThat(edited.jitterSeconds()).isEqualTo(30);
            assertThat(edited.maxRuns()).as("emptied: removed").isNull();
            assertThat(edited.startAt()).isEqualTo(Instant.parse("2030-01-01T00:00:00Z"));
            assertThat(edited.pauseAfterFailures()).as("untouched").isEqualTo(3);

            Job oneOff = api().submitJob(JobRequest.shell("once", "true").runAt(Instant.now().plusSeconds(3600))
                    .build()).job();
            String oneOffRow = "#jobs tr[data-job-id='" + oneOff.id() + "']";
            waitFor(driver, d -> text(d, oneOffRow + " td.status") != null ? true : null);
            click(driver, oneOffRow + " button[data-action=edit]");
            waitFor(driver, d -> ("Edit job once").equals(text(d, "#edit-title")) ? true : null);
            assertThat(driver.findElement(By.cssSelector("#edit-form label[data-field=max_runs]")).isDisplayed())
                    .as("a one-off job has no schedule controls").isFalse();
        }

        /** Issue 45: notify set in the new-job form, changed and cleared in the edit form; a refusal beside it. */
        @Test
        void theFormsSetChangeAndClearANotifyAndShowTheServersRefusalBesideIt() throws Exception {
            ChromeDriver driver = open("jobs");
            driver.findElement(By.id("new-job")).click();
            WebElement submit = driver.findElement(By.id("submit-form"));
            submit.findElement(By.name("name")).sendKeys("noticed-export");
            submit.findElement(By.name("command")).sendKeys("./export.sh");
            submit.findElement(By.name("cron_expr")).sendKeys("0 3 * * *");
            submit.findElement(By.name("notify_url")).sendKeys("https://hooks.example.com/forgeflow");
            for (String event : List.of("dead", "paused", "recovered")) {
                submit.findElement(By.cssSelector("input[name=notify_on][value=" + event + "]")).click();
            }
            submit.findElement(By.cssSelector("button[type=submit]")).click();
            String submitNotifyError = "#submit-form [data-field=notify] .field-error";
            waitFor(driver, d -> d.findElement(By.cssSelector(submitNotifyError)).isDisplayed());
            assertThat(text(driver, submitNotifyError)).as("the server's 422, beside the field").contains("notify.on");
            assertThat(driver.findElement(By.id("submit-form")).isDisplayed()).isTrue();
            assertThat(api().listJobs().items()).noneMatch(j -> j.name().equals("noticed-export"));

            submit.findElement(By.cssSelector("input[name=notify_on][value=dead]")).click();
            submit.findElement(By.cssSelector("input[name=notify_on][value=recovered]")).click();
            submit.findElement(By.cssSelector("button[type=submit]")).click();
            waitFor(driver, d -> d.findElement(By.id("submit-form")).isDisplayed() ? null : true);
            Job job = api().listJobs().items().stream().filter(j -> j.name().equals("noticed-export")).findFirst()
                    .orElseThrow();
            assertThat(job.notices().url()).isEqualTo("https://hooks.example.com/forgeflow");
            assertThat(job.notices().on()).containsExactlyInAnyOrder("dead", "recovered");

            String row = "#jobs tr[data-job-id='" + job.id() + "']";
            waitFor(driver, d -> "active".equals(text(d, row + " td.status")));
            click(driver, row + " button[data-action=edit]");
            WebElement form = waitFor(driver, d -> d.findElement(By.id("edit-form")).isDisplayed() ? d.findElement(By.id("edit-form")) : null);
            waitFor(driver, d -> "https://hooks.example.com/forgeflow".equals(
                    form.findElement(By.name("notify_url")).getAttribute("value")));
            assertThat(form.findElement(By.cssSelector("input[name=notify_on][value=paused]")).isSelected()).isFalse();
            assertThat(form.findElement(By.cssSelector("input[name=notify_on][value=dead]")).isSelected()).isTrue();

            retype(form.findElement(By.name("notify_url")), "ftp://hooks.example.com/x");
            driver.findElement(By.id("edit-save")).click();
            String editNotifyError = "#edit-form [data-field=notify] .field-error";
            waitFor(driver, d -> d.findElement(By.cssSelector(editNotifyError)).isDisplayed());
            assertThat(text(driver, editNotifyError)).contains("notify.url");
            assertThat(api().getJob(job.id()).notices().url()).isEqualTo("https://hooks.example.com/forgeflow");

            retype(form.findElement(By.name("notify_url")), "https://hooks.example.com/other");
            form.findElement(By.cssSelector("input[name=notify_on][value=paused]")).click();
            driver.findElement(By.id("edit-save")).click();
            waitFor(driver, d -> d.findElement(By.id("edit-form")).isDisplayed() ? null : true);
            Job changed = api().getJob(job.id());
            assertThat(changed.notices().url()).isEqualTo("https://hooks.example.com/other");
            assertThat(changed.notices().on()).containsExactlyInAnyOrder("dead", "paused", "recovered");

            click(driver, row + " button[data-action=edit]");
            WebElement again = waitFor(driver, d -> d.findElement(By.id("edit-form")).isDisplayed() ? d.findElement(By.id("edit-form")) : null);
            waitFor(driver, d -> "https://hooks.example.com/other".equals(
                    again.findElement(By.name("notify_url")).getAttribute("value")));
            retype(again.findElement(By.name("notify_url")), "");
            driver.findElement(By.id("edit-save")).click();
            waitFor(driver, d -> d.findElement(By.id("edit-form")).isDisplayed() ? null : true);
            assertThat(api().getJob(job.id()).notices()).as("an emptied URL removes notify").isNull();
        }

        @Test
        void anEditOfAJobCancelledMeanwhileSaysSoAndOffersToReloadIt() throws Exception {
            Job job = api().submitJob(JobRequest.shell("warm-cache", "./warm.sh").cron("*/5 * * * *").build()).job();
            ChromeDriver driver = open("jobs");
            String row = "#jobs tr[data-job-id='" + job.id() + "']";
            waitFor(driver, d -> "active".equals(text(d, row + " td.status")));
            click(driver, row + " button[data-action=edit]");
            WebElement form = waitFor(driver, d -> d.findElement(By.id("edit-form")).isDisplayed() ? d.findElement(By.id("edit-form")) : null);
            waitFor(driver, d -> "5".equals(form.findElement(By.name("priority")).getAttribute("value")));
            api().cancelJob(job.id());

            retype(form.findElement(By.name("priority")), "3");
            driver.findElement(By.id("edit-save")).click();
            waitFor(driver, d -> d.findElement(By.id("edit-error")).isDisplayed());
            assertThat(text(driver, "#edit-error")).startsWith("The job changed on the server").contains("Reload it");
            assertThat(driver.findElement(By.id("edit-reload")).isDisplayed()).isTrue();
            driver.findElement(By.id("edit-reload")).click();
            waitFor(driver, d -> "5".equals(form.findElement(By.name("priority")).getAttribute("value")));
            waitFor(driver, d -> "cancelled".equals(text(d, row + " td.status")));
            assertThat(api().getJob(job.id()).priority()).isEqualTo(5);
        }

        @Test
        void aLabelFilterThisNodeDoesNotKnowIsAppliedToThePageAndSaysSo() throws Exception {
            api().submitJob(JobRequest.shell("label-less", "true").cron("0 5 * * *").build());
            ChromeDriver driver = open("jobs");
            waitFor(driver, d -> !d.findElements(By.cssSelector("#jobs tr[data-job-id]")).isEmpty());
            driver.findElement(By.id("jobs-label")).sendKeys("team:ops");
            waitFor(driver, d -> "no jobs match the filters".equals(text(d, "#jobs td.empty")));
            String note = text(driver, "#jobs-filter-note");
            // a node with the label filter answers the filtered list; one without it answers 400 and the page filters
            assertThat(note == null || note.isEmpty() || note.contains("does not filter jobs by label")).as(note).isTrue();
            retype(driver.findElement(By.id("jobs-label")), "team");
            waitFor(driver, d -> String.valueOf(text(d, "#jobs-filter-note")).contains("Ignored label filter \"team\": write key:value."));
            waitFor(driver, d -> !d.findElements(By.cssSelector("#jobs tr[data-job-id]")).isEmpty());
        }

        @Test
        void deletesAJobAfterAConfirmAndOffersToCancelARunningRunFirst() throws Exception {
            Job idle = api().submitJob(JobRequest.shell("old-report", "./report.sh").cron("0 4 * * *").build()).job();
            Job busy = api().submitJob(JobRequest.shell("long-import", "sleep 30").build()).job();
            String busyRun = firstRun(busy.id()).id();
            awaitStatus(busyRun, Run.RUNNING);
            ChromeDriver driver = open("jobs");
            driver.executeScript("window.confirms = []; window.confirm = (m) => { window.confirms.push(m); return true; };");

            String idleRow = "#jobs tr[data-job-id='" + idle.id() + "']";
            waitFor(driver, d -> "active".equals(text(d, idleRow + " td.status")));
            click(driver, idleRow + " button[data-action=delete]");
            waitFor(driver, d -> d.findElements(By.cssSelector(idleRow)).isEmpty());
            assertThat(api().getJob(idle.id()).status()).isEqualTo(Job.DELETED);
            assertThat((List<?>) driver.executeScript("return window.confirms;")).hasSize(1);

            String busyRow = "#jobs tr[data-job-id='" + busy.id() + "']";
            waitFor(driver, d -> d.findElements(By.cssSelector(busyRow)).isEmpty() ? null : true);
            click(driver, busyRow + " button[data-action=delete]");
            waitFor(driver, d -> d.findElements(By.cssSelector(busyRow)).isEmpty());
            @SuppressWarnings("unchecked")
            List<String> confirms = (List<String>) driver.executeScript("return window.confirms;");
            assertThat(confirms).hasSize(3);
            assertThat(confirms.get(2)).contains("is running").contains("Cancel the running run and delete");
            assertThat(api().getJob(busy.id()).status()).isEqualTo(Job.DELETED);
            awaitStatus(busyRun, Run.CANCELLED);
        }

        @Test
        void filtersTheJobsListByNameStatusAndQueue() throws Exception {
            Job a = api().submitJob(JobRequest.shell("filter-alpha-1", "true").cron("0 1 * * *").queue("reports").build()).job();
            Job b = api().submitJob(JobRequest.shell("filter-alpha-2", "true").cron("0 2 * * *").build()).job();
            Job c = api().submitJob(JobRequest.shell("filter-beta", "true").cron("0 3 * * *").queue("reports").build()).job();
            api().pauseJob(b.id());
            ChromeDriver driver = open("jobs");
            String rows = "return Array.from(document.querySelectorAll('#jobs tr[data-job-id]')).map(r => r.dataset.jobId);";
            waitFor(driver, d -> ((List<?>) driver.executeScript(rows)).contains(c.id()));

            driver.findElement(By.id("jobs-search")).sendKeys("filter-alpha");
            waitFor(driver, d -> List.of(b.id(), a.id()).equals(driver.executeScript(rows)));
            new org.openqa.selenium.support.ui.Select(driver.findElement(By.id("jobs-status"))).selectByVisibleText("paused");
            waitFor(driver, d -> List.of(b.id()).equals(driver.executeScript(rows)));
            new org.openqa.selenium.support.ui.Select(driver.findElement(By.id("jobs-status"))).selectByVisibleText("all");
            driver.findElement(By.id("jobs-queue")).sendKeys("reports");
            waitFor(driver, d -> List.of(a.id()).equals(driver.executeScript(rows)));
            retype(driver.findElement(By.id("jobs-search")), "nothing-like-this");
            waitFor(driver, d -> "no jobs match the filters".equals(text(d, "#jobs td.empty")));
        }

        @Test
        void pausesAQueueFromTheOverviewAndResumesIt() throws Exception {
            seedCluster(false);
            api().submitJob(JobRequest.shell("nightly-export", "true").cron("0 2 * * *").build());
            ChromeDriver driver = open("");
            ((JavascriptExecutor) driver).executeScript("window.confirm = () => true;");
            String row = "#queues tr[data-queue='default/default']"; // rows are keyed by tenant and name
            waitFor(driver, d -> "active".equals(text(d, row + " td:nth-child(7)")));
            click(driver, row + " button[data-action=pause]");
            waitFor(driver, d -> "paused".equals(text(d, row + " td:nth-child(7)")));
            assertThat(queuePaused("default")).isTrue();
            click(driver, row + " button[data-action=resume]");
            waitFor(driver, d -> "active".equals(text(d, row + " td:nth-child(7)")));
            assertThat(queuePaused("default")).isFalse();
        }

        @Test
        void requeuesADeadRunFromTheDeadLettersAndShowsItsAttemptTimeline() throws Exception {
            seedCluster(false);
            Path marker = Files.createTempDirectory("forgeflow-dashboard").resolve("first-try-done");
            Job flaky = api().submitJob(JobRequest.shell("send-invoices-once", "if [ -f " + marker + " ]; then "
                    + "echo 'invoices sent: 42'; else touch " + marker + "; echo 'HTTP 503 from billing: maintenance' >&2; "
                    + "exit 1; fi").maxAttempts(1).build()).job();
            String runId = firstRun(flaky.id()).id();
            awaitStatus(runId, Run.DEAD);

            ChromeDriver driver = open("dead");
            String row = "#dead tr[data-run-id='" + runId + "']";
            waitFor(driver, d -> d.findElements(By.cssSelector(row)).isEmpty() ? null : true);
            assertThat(text(driver, row + " td.err")).contains("exit code 1");
            assertThat(text(driver, "#dead-badge")).isEqualTo("2");
            screenshot(driver, "dead-letters");
            click(driver, row + " button[data-action=requeue]");
            waitFor(driver, d -> d.findElements(By.cssSelector(row)).isEmpty());
            Run recovered = awaitStatus(runId, Run.SUCCEEDED);
            assertThat(recovered.output()).contains("invoices sent: 42");

            driver.findElement(By.cssSelector("#tabs a[data-tab=runs]")).click();
            String runRow = "#runs tr[data-run-id='" + runId + "']";
            waitFor(driver, d -> "succeeded".equals(text(d, runRow + " td.status")));
            click(driver, runRow);
            waitFor(driver, d -> "succeeded".equals(text(d, "#run-status")));
            List<List<String>> attempts = waitFor(driver, d -> {
                List<List<String>> read = attempts(d);
                return read.size() == 2 ? read : null;
            });
            assertThat(attempts.get(0).get(0)).isEqualTo("failed");
            assertThat(attempts.get(0).get(1)).contains("#1 failed").contains("node-a").contains("exit code 1");
            assertThat(attempts.get(1).get(0)).isEqualTo("succeeded");
            assertThat(text(driver, "#run-output")).contains("invoices sent: 42");
            assertThat(text(driver, "#run-detail .meta")).startsWith("attempt 2 of 2 · priority 5 · scheduled ");
            assertThat(text(driver, "#attempts li:nth-child(2)")).startsWith("requeued, due ");
            assertThat(driver.getCurrentUrl()).endsWith("#runs?run=" + runId);
            screenshot(driver, "run");
        }

        @Test
        void textFromTheServerIsShownAsTextNeverAsMarkup() throws Exception {
            String name = "<img src=x onerror=\"document.body.dataset.pwned='yes'\"><b>bold</b>";
            Job job = api().submitJob(JobRequest.shell(name, "echo '<script>document.body.dataset.pwned=1</script>'")
                    .build()).job();
            String runId = firstRun(job.id()).id();
            awaitStatus(runId, Run.SUCCEEDED);
            ChromeDriver driver = open("runs?run=" + runId);
            waitFor(driver, d -> "succeeded".equals(text(d, "#run-status")));
            waitFor(driver, d -> d.findElement(By.cssSelector("#run-detail h2")).getText().contains("<img"));
            assertThat(text(driver, "#run-output")).contains("<script>document.body.dataset.pwned=1</script>");
            driver.findElement(By.cssSelector("#tabs a[data-tab=jobs]")).click();
            waitFor(driver, d -> name.equals(text(d, "#jobs tr[data-job-id='" + job.id() + "'] td:first-child")));
            assertThat(driver.findElements(By.cssSelector("main img, #jobs td b, #run-detail h2 b"))).isEmpty();
            assertThat(driver.executeScript("return document.body.dataset.pwned || null;")).isNull();
        }

        @Test
        void aJobShowsItsWorkflowGraphAndItsBatchAProgressBar() throws Exception {
            io.forgeflow.client.Batch batch = api().submitBatch(io.forgeflow.client.BatchRequest.builder()
                    .name("nightly-import")
                    .job("extract", JobRequest.shell("extract", "echo extracted").build())
                    .job("load", JobRequest.shell("load", "echo 'COPY failed' >&2; exit 1").maxAttempts(1).build())
                    .job("report", JobRequest.shell("report", "echo report").dependsOn("extract", "load").build())
                    .job("publish", JobRequest.shell("publish", "echo published").dependsOn("report")
                            .onParentFailure("wait").build())
                    .job("archive", JobRequest.shell("archive", "echo archived").runAt(Instant.now().plusSeconds(3600))
                            .build())
                    .onComplete(JobRequest.shell("notify", "echo done").build())
                    .build()).batch();
            Map<String, String> ids = batch.refs();
            Instant deadline = Instant.now().plus(WAIT);
            io.forgeflow.client.Batch now = api().getBatch(batch.id());
            while (now.ended() < 3 && Instant.now().isBefore(deadline)) {
                Thread.sleep(100);
                now = api().getBatch(batch.id());
            }
            assertThat(now.ended()).as("extract succeeded, load died, report was cancelled: %s", now).isEqualTo(3);

            ChromeDriver driver = open("job?id=" + ids.get("report"));
            String parents = "#workflow .wf-parents .wf-node";
            waitFor(driver, d -> d.findElements(By.cssSelector(parents)).size() == 2 ? true : null);
            assertThat(text(driver, "#job-detail h2")).startsWith("Job report");
            assertThat(node(driver, ids.get("extract"))).containsExactly("succeeded", "extract", "A");
            assertThat(node(driver, ids.get("load"))).containsExactly("dead", "load", "A");
            assertThat(node(driver, ids.get("report"))).as("this job, not a link").containsExactly("cancelled", "report", "DIV");
            assertThat(node(driver, ids.get("publish"))).containsExactly("waiting", "publish", "A");
            assertThat(text(driver, "#workflow [data-job-id='" + ids.get("load") + "'] .wf-status")).isEqualTo("dead · job completed");
            assertThat(driver.executeScript("return getComputedStyle(document.querySelector(arguments[0])).borderLeftColor;",
                    "#workflow [data-job-id='" + ids.get("load") + "']")).as("dead is red").isEqualTo("rgb(185, 28, 28)");
            assertThat(driver.executeScript("return getComputedStyle(document.querySelector(arguments[0])).borderLeftColor;",
                    "#workflow [data-job-id='" + ids.get("publish") + "']")).as("waiting is violet").isEqualTo("rgb(124, 58, 237)");
            waitFor(driver, d -> d.findElements(By.cssSelector("#workflow svg.wf-lines path")).size() == 3 ? true : null);
            assertThat(text(driver, "#workflow-note")).contains("Runs after 2 parents succeed");
            screenshot(driver, "workflow");

            click(driver, "#workflow a[data-job-id='" + ids.get("extract") + "']");
            waitFor(driver, d -> d.getCurrentUrl().endsWith("#job?id=" + ids.get("extract")) ? true : null);
            waitFor(driver, d -> String.valueOf(text(d, "#job-detail h2")).startsWith("Job extract") ? true : null);
            waitFor(driver, d -> d.findElements(By.cssSelector("#workflow .wf-children .wf-node")).size() == 1 ? true : null);
            assertThat(node(driver, ids.get("report"))).containsExactly("cancelled", "report", "A");
            assertThat(text(driver, "#workflow .wf-parents .wf-none")).isEqualTo("none");
            assertThat(text(driver, "#job-runs tbody tr td.status")).isEqualTo("succeeded");

            click(driver, "#job-batch");
            waitFor(driver, d -> d.getCurrentUrl().endsWith("#batch?id=" + batch.id()) ? true : null);
            waitFor(driver, d -> "3 of 5 jobs ended (60 %)".equals(text(d, "#batch-progress-text")) ? true : null);
            assertThat(text(driver, "#batch-detail h2")).startsWith("Batch nightly-import");
            assertThat(text(driver, "#batch-status")).isEqualTo("open");
            assertThat(text(driver, "#batch-counts li[data-status=waiting] b")).isEqualTo("1");
            assertThat(text(driver, "#batch-counts li[data-status=pending] b")).isEqualTo("1");
            assertThat(text(driver, "#batch-counts li[data-status=dead] b")).isEqualTo("1");
            Number barWidth = (Number) driver.executeScript(
                    "return document.querySelector('#batch-progress').clientWidth;");
            for (String status : List.of("succeeded", "dead", "cancelled", "pending", "waiting")) {
                Number width = (Number) driver.executeScript("return document.querySelector(arguments[0]).getBoundingClientRect().width;",
                        "#batch-progress .seg[data-status=" + status + "]");
                assertThat(width.doubleValue()).as("%s is a fifth of the bar", status)
                        .isCloseTo(barWidth.doubleValue() / 5, org.assertj.core.data.Offset.offset(2.0));
            }
            assertThat(driver.findElements(By.cssSelector("#batch-progress .seg[data-status=running]"))).isEmpty();
            screenshot(driver, "batch");
            click(driver, "#batch-on-complete");
            waitFor(driver, d -> String.valueOf(text(d, "#job-detail h2")).startsWith("Job notify") ? true : null);

            driver.get(base() + "/#runs?status=waiting");
            String waitingRun = "#runs tr[data-status=waiting]";
            waitFor(driver, d -> d.findElements(By.cssSelector(waitingRun)).isEmpty() ? null : true);
            assertThat(attribute(driver, "#runs-status", "value")).isEqualTo("waiting");
            assertThat(driver.findElements(By.cssSelector("#runs tbody tr[data-run-id]")))
                    .allSatisfy(row -> assertThat(row.getAttribute("data-status")).isEqualTo("waiting"));
            assertThat(attribute(driver, waitingRun + " td.status span", "class"))
                    .isEqualTo("st-waiting");
        }

        @Test
        void aWaitingJobsGraphTurnsSucceededWithoutAReloadWhenItsParentEnds() throws Exception {
            ChromeDriver driver = open("runs"); // the browser first: it can take seconds to start
            Job parent = api().submitJob(JobRequest.shell("warm-cache", "echo warmed")
                    .runAt(Instant.now().plusSeconds(8)).build()).job();
            Job child = api().submitJob(JobRequest.shell("serve-report", "echo served").dependsOn(parent.id()).build()).job();
            String childRun = firstRun(child.id()).id();

            driver.get(base() + "/#runs?run=" + childRun);
            waitFor(driver, d -> "waiting".equals(text(d, "#run-status")) ? true : null);
            // waitFor looks again when the live run view re-renders under a found element (stale)
            Boolean cancellable = waitFor(driver, d -> d.findElement(
                    By.cssSelector("#run-detail button[data-action=cancel-run]")).isEnabled() ? Boolean.TRUE : null);
            assertThat(cancellable).as("a waiting run can be cancelled").isTrue();
            click(driver, "#run-job");
            waitFor(driver, d -> d.getCurrentUrl().endsWith("#job?id=" + child.id()) ? true : null);
            waitFor(driver, d -> node(d, child.id()) != null ? true : null);
            driver.executeScript("document.body.dataset.marker = 'same-page';");
            assertThat(node(driver, child.id())).containsExactly("waiting", "serve-report", "DIV");
            assertThat(node(driver, parent.id())).containsExactly("pending", "warm-cache", "A");

            waitFor(driver, d -> "succeeded".equals(String.valueOf(node(d, child.id()).get(0))) ? true : null);
            assertThat(node(driver, parent.id()).get(0)).isEqualTo("succeeded");
            assertThat(driver.executeScript("return document.body.dataset.marker;"))
                    .as("followed live, not reloaded").isEqualTo("same-page");
        }

        /** A node of the workflow graph: its status, its name, and whether it is a link (A) or this job (DIV). */
        @SuppressWarnings("unchecked")
        List<String> node(WebDriver driver, String jobId) {
            return (List<String>) ((JavascriptExecutor) driver).executeScript(
                    "const n = document.querySelector(\"#workflow [data-job-id='\" + arguments[0] + \"']\");"
                            + "return n ? [n.dataset.status, n.querySelector('.wf-name').textContent, n.tagName] : null;",
                    jobId);
        }

        @Test
        void isReadableOnAPhone() throws Exception {
            seedCluster(false);
            ChromeDriver driver = browser();
            driver.executeCdpCommand("Emulation.setDeviceMetricsOverride",
                    Map.of("width", 390, "height", 844, "deviceScaleFactor", 2, "mobile", true));
            try {
                open("overview");
                waitFor(driver, d -> "1".equals(d.findElement(By.id("count-dead")).getText()));
                waitFor(driver, d -> !d.findElements(By.cssSelector("#recent tr[data-run-id]")).isEmpty());
                waitFor(driver, d -> !d.findElements(By.cssSelector("#nodes tr[data-worker]")).isEmpty());
                Number overflow = (Number) driver.executeScript(
                        "return document.documentElement.scrollWidth - window.innerWidth;");
                assertThat(overflow.intValue()).as("no sideways scrolling of the page").isLessThanOrEqualTo(0);
                assertThat(driver.findElement(By.cssSelector("#recent th.opt")).isDisplayed())
                        .as("secondary columns are hidden").isFalse();
                screenshot(driver, "phone");
            } finally {
                laptop(driver);
            }
        }
    }

    @Nested
    class Routing {
        HttpResponse<String> get(String path, String... headers) throws Exception {
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base() + path)).GET();
            for (int i = 0; i < headers.length; i += 2) {
                request.header(headers[i], headers[i + 1]);
            }
            return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        }

        @Test
        void theDashboardIsServedAtTheRootWithoutATokenAndWithAStrictContentSecurityPolicy() throws Exception {
            HttpResponse<String> page = get("/");
            assertThat(page.statusCode()).isEqualTo(200);
            assertThat(page.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/html"));
            assertThat(page.body()).contains("<title>ForgeFlow</title>").contains("/ui/app.js");
            assertThat(page.headers().firstValue("Content-Security-Policy").orElse(""))
                    .contains("script-src 'self'").contains("default-src 'none'").doesNotContain("unsafe-inline");
            assertThat(page.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
            assertThat(get("/ui/app.js").headers().firstValue("Content-Type").orElse("")).startsWith("text/javascript");
            assertThat(get("/ui/app.css").headers().firstValue("Content-Type").orElse("")).startsWith("text/css");
            String etag = page.headers().firstValue("ETag").orElseThrow();
            assertThat(get("/", "If-None-Match", etag).statusCode()).isEqualTo(304);
            assertThat(page.body()).doesNotContain("<script>").as("no inline script: the CSP would refuse it");
        }

        @Test
        void theApiTheProbesAndTheMetricsRouteAsBefore() throws Exception {
            HttpResponse<String> missing = get("/ui/nothing.js");
            assertThat(missing.statusCode()).isEqualTo(404);
            assertThat(missing.body()).startsWith("{\"error\":");
            assertThat(get("/api/jobs").statusCode()).as("the API still wants its token").isEqualTo(401);
            assertThat(get("/api/jobs", "Authorization", "Bearer " + ADMIN).statusCode()).isEqualTo(200);
            assertThat(get("/api/nothing", "Authorization", "Bearer " + ADMIN).statusCode()).isEqualTo(404);
            assertThat(get("/healthz").statusCode()).isEqualTo(200);
            assertThat(get("/readyz").statusCode()).isEqualTo(200);
            assertThat(get("/metrics").body()).contains("forgeflow_queue_lag_seconds");
            assertThat(get("/index.html", "Authorization", "Bearer " + ADMIN).statusCode()).isEqualTo(404);
            HttpResponse<String> post = http.send(HttpRequest.newBuilder(URI.create(base() + "/"))
                    .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(post.statusCode()).isEqualTo(405);
            assertThat(post.body()).startsWith("{\"error\":");
        }
    }
}
