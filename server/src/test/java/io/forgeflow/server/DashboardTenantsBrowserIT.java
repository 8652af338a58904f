package io.forgeflow.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.Keys;
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
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The dashboard with tenants (issue 42), in headless Chromium against a real node on PostgreSQL configured with a
 * cluster-wide token and tenant-bound ones (tenants-test-config.yml): the tenant picker filters the lists through
 * X-ForgeFlow-Tenant, the Tenant column appears only when a row is outside the default tenant, details and the submit
 * form name the tenant, a tenant-bound token works on jobs, runs and its tenant's queues while the cluster panels say
 * why they are empty, and a queue row's Pause acts on that row's tenant's queue. Fails (never skips) without Chromium,
 * as DashboardBrowserIT does.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class DashboardTenantsBrowserIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final DropwizardAppExtension<ForgeFlowConfiguration> APP = new DropwizardAppExtension<>(
            ForgeFlowApplication.class, ResourceHelpers.resourceFilePath("tenants-test-config.yml"),
            ConfigOverride.config("forgeflow.databaseUrl", () -> pg.jdbcUrl()),
            ConfigOverride.config("forgeflow.workerId", "tenants-ui-node"));

    static final String ADMIN = "tenants-admin-0123456789";
    static final String ACME = "tenants-acme-0123456789";
    static final String BETA = "tenants-beta-0123456789";
    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    static final Duration WAIT = Duration.ofSeconds(30);
    static final ObjectMapper JSON = new ObjectMapper();
    static final HttpClient HTTP = HttpClient.newHttpClient();

    static ChromeDriver browser;
    static Path profile;

    static String base() {
        return "http://127.0.0.1:" + APP.getLocalPort();
    }

    static ChromeDriver browser() throws IOException {
        if (browser != null) {
            return browser;
        }
        if (!Files.isExecutable(CHROMIUM) || !Files.isExecutable(CHROMEDRIVER)) {
            fail("this test needs Chromium and its driver at " + CHROMIUM + " and " + CHROMEDRIVER
                    + ": `apt-get update && apt-get install -y chromium chromium-driver`");
        }
        profile = Files.createTempDirectory("forgeflow-chromium-tenants");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
                "--user-data-dir=" + profile, "--window-size=1280,800", "--lang=en-US");
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile()).usingAnyFreePort().build();
        browser = new ChromeDriver(service, options);
        browser.manage().timeouts().scriptTimeout(Duration.ofSeconds(10));
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

    /** Opens the dashboard at #hash with token (and tenant, unless null) in a fresh tab's sessionStorage. */
    static ChromeDriver open(String hash, String token, String tenant) throws IOException {
        ChromeDriver driver = browser();
        driver.get(base() + "/ui/icon.svg");
        driver.executeScript("sessionStorage.clear(); sessionStorage.setItem('forgeflow.token', arguments[0]);"
                + " if (arguments[1]) { sessionStorage.setItem('forgeflow.tenant', arguments[1]); }", token, tenant);
        driver.get(base() + "/#" + hash);
        waitFor(driver, d -> !"connecting".equals(d.findElement(By.id("live")).getAttribute("data-mode")));
        return driver;
    }

    static <T> T waitFor(WebDriver driver, Function<WebDriver, T> condition) {
        return new WebDriverWait(driver, WAIT).ignoring(org.openqa.selenium.StaleElementReferenceException.class)
                .ignoring(org.openqa.selenium.NoSuchElementException.class).until(condition::apply);
    }

    static Object script(WebDriver driver, String js, Object... args) {
        return ((JavascriptExecutor) driver).executeScript(js, args);
    }

    /** The trimmed text of the first element css selects, or null, read in one step. */
    static String text(WebDriver driver, String css) {
        return (String) script(driver, "const e = document.querySelector(arguments[0]);"
                + " return e ? e.textContent.trim() : null;", css);
    }

    /** Whether the first element css selects is rendered (not hidden, nor inside something hidden). */
    static boolean shown(WebDriver driver, String css) {
        return Boolean.TRUE.equals(script(driver, "const e = document.querySelector(arguments[0]);"
                + " return !!e && e.getClientRects().length > 0;", css));
    }

    /** The ids of the rows in table #table (data-job-id or data-run-id), read in one step. */
    @SuppressWarnings("unchecked")
    static List<String> rowIds(WebDriver driver, String table, String attribute) {
        return (List<String>) script(driver, "return Array.from(document.querySelectorAll('#' + arguments[0]"
                + " + ' tbody tr[' + arguments[1] + ']')).map(r => r.getAttribute(arguments[1]));", table, attribute);
    }

    /** Each row of #table as [its id, the text of its td.tenant or null]. */
    @SuppressWarnings("unchecked")
    static List<List<String>> tenantCells(WebDriver driver, String table, String attribute) {
        return (List<List<String>>) script(driver, "return Array.from(document.querySelectorAll('#' + arguments[0]"
                + " + ' tbody tr[' + arguments[1] + ']')).map(r => [r.getAttribute(arguments[1]),"
                + " r.querySelector('td.tenant') ? r.querySelector('td.tenant').textContent : null]);",
                table, attribute);
    }

    static HttpResponse<String> call(String method, String path, String body, String token, String tenant)
            throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base() + path))
                .header("Authorization", "Bearer " + token).header("Accept", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) {
            request.header("Content-Type", "application/json");
        }
        if (tenant != null) {
            request.header("X-ForgeFlow-Tenant", tenant);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** A noop job (never claimed by this node: its run stays pending) made with token in tenant (or none). */
    static JsonNode submit(String name, String token, String tenant) throws Exception {
        HttpResponse<String> answer = call("POST", "/api/jobs",
                "{\"name\": \"" + name + "\", \"executor\": \"noop\", \"payload\": {}}", token, tenant);
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(201);
        return JSON.readTree(answer.body());
    }

    static String firstRun(String jobId, String token) throws Exception {
        HttpResponse<String> answer = call("GET", "/api/runs?job_id=" + jobId, null, token, null);
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        return JSON.readTree(answer.body()).get("items").get(0).get("id").asText();
    }

    static void pickTenant(WebDriver driver, String tenant) {
        WebElement input = driver.findElement(By.id("tenant"));
        input.sendKeys(Keys.chord(Keys.CONTROL, "a"), Keys.BACK_SPACE);
        input.sendKeys(tenant, Keys.ENTER);
    }

    @Test
    void thePickerFiltersEveryListAndTheTenantColumnAppearsOnlyWhenARowIsOutsideTheDefault() throws Exception {
        String plain = submit("solo-plain", ADMIN, null).get("id").asText();
        String acme = submit("acme-nightly", ADMIN, "acme").get("id").asText();
        String beta = submit("beta-nightly", BETA, null).get("id").asText();

        ChromeDriver driver = open("jobs", ADMIN, null);
        waitFor(driver, d -> rowIds(d, "jobs", "data-job-id").containsAll(List.of(plain, acme, beta)));
        assertThat(shown(driver, "#jobs th.tenant-col")).as("rows of three tenants: the column is there").isTrue();
        assertThat(tenantCells(driver, "jobs", "data-job-id")).contains(List.of(plain, "default"),
                List.of(acme, "acme"), List.of(beta, "beta"));
        assertThat(attributeOf(driver, "#tenant", "placeholder")).isEqualTo("All tenants");

        // a name filter that leaves only default jobs: the table looks as it did before tenants
        driver.findElement(By.id("jobs-search")).sendKeys("solo");
        waitFor(driver, d -> rowIds(d, "jobs", "data-job-id").equals(List.of(plain)));
        assertThat(shown(driver, "#jobs th.tenant-col")).as("only default rows: no Tenant column").isFalse();
        assertThat(tenantCells(driver, "jobs", "data-job-id")).containsExactly(java.util.Arrays.asList(plain, null));
        driver.findElement(By.id("jobs-search")).sendKeys(Keys.chord(Keys.CONTROL, "a"), Keys.BACK_SPACE);
        waitFor(driver, d -> rowIds(d, "jobs", "data-job-id").size() == 3);

        pickTenant(driver, "acme");
        waitFor(driver, d -> rowIds(d, "jobs", "data-job-id").equals(List.of(acme)));
        assertThat(shown(driver, "#jobs th.tenant-col")).isTrue();
        assertThat(script(driver, "return sessionStorage.getItem('forgeflow.tenant');")).isEqualTo("acme");

        driver.findElement(By.cssSelector("#tabs a[data-tab=runs]")).click();
        String acmeRun = firstRun(acme, ADMIN);
        waitFor(driver, d -> rowIds(d, "runs", "data-run-id").equals(List.of(acmeRun)));
        assertThat(tenantCells(driver, "runs", "data-run-id")).containsExactly(List.of(acmeRun, "acme"));

        // another tenant's run by id, with acme picked: the server's 404, shown as such
        String betaRun = firstRun(beta, ADMIN);
        driver.get(base() + "/#runs?run=" + betaRun);
        waitFor(driver, d -> String.valueOf(text(d, "#run-detail")).contains("does not exist"));

        pickTenant(driver, "");
        driver.get(base() + "/#jobs");
        waitFor(driver, d -> rowIds(d, "jobs", "data-job-id").size() == 3);
        assertThat(script(driver, "return sessionStorage.getItem('forgeflow.tenant');")).isNull();
    }

    @Test
    void detailsNameTheTenantAndTheSubmitFormSendsTheTenantField() throws Exception {
        String acme = submit("acme-report", ADMIN, "acme").get("id").asText();
        String acmeRun = firstRun(acme, ADMIN);

        ChromeDriver driver = open("job?id=" + acme, ADMIN, null);
        waitFor(driver, d -> "tenant acme".equals(text(d, "#job-tenant")));
        driver.get(base() + "/#runs?run=" + acmeRun);
        waitFor(driver, d -> "tenant acme".equals(text(d, "#run-tenant")));

        driver.get(base() + "/#jobs");
        waitFor(driver, d -> rowIds(d, "jobs", "data-job-id").contains(acme));
        driver.findElement(By.id("new-job")).click();
        WebElement form = driver.findElement(By.id("submit-form"));
        form.findElement(By.name("name")).sendKeys("beta-from-form");
        new org.openqa.selenium.support.ui.Select(form.findElement(By.name("executor"))).selectByVisibleText("noop");
        form.findElement(By.name("tenant")).sendKeys("beta");
        form.findElement(By.cssSelector("button[type=submit]")).click();
        waitFor(driver, d -> d.findElement(By.id("submit-form")).isDisplayed() ? null : true);

        JsonNode betaJobs = JSON.readTree(call("GET", "/api/jobs?tenant=beta", null, ADMIN, null).body());
        List<String> names = new ArrayList<>();
        betaJobs.get("items").forEach(j -> names.add(j.get("name").asText() + "@" + j.get("tenant").asText()));
        assertThat(names).containsExactly("beta-from-form@beta");
        String betaId = betaJobs.get("items").get(0).get("id").asText();
        waitFor(driver, d -> tenantCells(d, "jobs", "data-job-id").contains(List.of(betaId, "beta")));

        // a name the server would refuse never becomes the header: the picker says so and keeps "All tenants"
        pickTenant(driver, "Not A Tenant");
        waitFor(driver, d -> String.valueOf(text(d, "#toast")).contains("is not a tenant name"));
        assertThat(attributeOf(driver, "#tenant", "value")).isEmpty();
        assertThat(rowIds(driver, "jobs", "data-job-id")).contains(acme, betaId);
    }

    @Test
    void aTenantBoundTokenSeesItsJobsAndRunsAndTheClusterPanelsSayWhyTheyAreEmpty() throws Exception {
        String acme = submit("acme-sync", ACME, null).get("id").asText();
        String beta = submit("beta-sync", BETA, null).get("id").asText();
        String acmeRun = firstRun(acme, ACME);
        String message = "This token is bound to tenant acme; cluster views need a cluster-wide token.";

        // a tenant left picked in this tab (beta) is refused for this token: the page falls back to the token's own
        ChromeDriver driver = open("overview", ACME, "beta");
        waitFor(driver, d -> String.valueOf(text(d, "#cluster-note")).startsWith(message));
        assertThat(shown(driver, "#cluster-note")).isTrue();
        waitFor(driver, d -> message.equals(text(d, "#nodes tbody td")));
        assertThat(text(driver, "#count-pending")).isEqualTo("–");
        assertThat(shown(driver, "#tenant-pick")).as("a bound token picks no tenant").isFalse();
        assertThat(text(driver, "#tenant-bound")).isEqualTo("Tenant acme (this token's)");
        waitFor(driver, d -> "polling".equals(d.findElement(By.id("live")).getAttribute("data-mode")));
        waitFor(driver, d -> rowIds(d, "recent", "data-run-id").contains(acmeRun));

        driver.findElement(By.cssSelector("#tabs a[data-tab=jobs]")).click();
        waitFor(driver, d -> rowIds(d, "jobs", "data-job-id").equals(List.of(acme)));
        assertThat(tenantCells(driver, "jobs", "data-job-id")).containsExactly(List.of(acme, "acme"));
        assertThat(rowIds(driver, "jobs", "data-job-id")).doesNotContain(beta);
        driver.findElement(By.cssSelector("#tabs a[data-tab=runs]")).click();
        waitFor(driver, d -> rowIds(d, "runs", "data-run-id").equals(List.of(acmeRun)));
        driver.findElement(By.cssSelector("#runs tr[data-run-id='" + acmeRun + "']")).click();
        waitFor(driver, d -> "tenant acme".equals(text(d, "#run-tenant")));
        assertThat(shown(driver, "#toast") && String.valueOf(text(driver, "#toast")).contains("tenant"))
                .as("no error toast about tenants: the panels say it").isFalse();
        assertThat(shown(driver, "#banner")).isFalse();
    }

    @Test
    void aClusterWideTokenOnASingleTenantClusterSeesNoTenantAnywhere() throws Exception {
        String plain = submit("plain-job", ADMIN, null).get("id").asText();
        String run = firstRun(plain, ADMIN);

        ChromeDriver driver = open("jobs", ADMIN, null);
        waitFor(driver, d -> rowIds(d, "jobs", "data-job-id").equals(List.of(plain)));
        assertThat(shown(driver, "#jobs th.tenant-col")).isFalse();
        assertThat(tenantCells(driver, "jobs", "data-job-id")).containsExactly(java.util.Arrays.asList(plain, null));
        driver.get(base() + "/#runs?run=" + run);
        waitFor(driver, d -> rowIds(d, "runs", "data-run-id").equals(List.of(run)));
        waitFor(driver, d -> String.valueOf(text(d, "#run-detail")).contains("job " + plain));
        assertThat(shown(driver, "#runs th.tenant-col")).isFalse();
        assertThat(text(driver, "#run-tenant")).isNull();
        driver.get(base() + "/#overview");
        waitFor(driver, d -> "1".equals(text(d, "#count-pending")));
        assertThat(shown(driver, "#cluster-note")).isFalse();
        assertThat(shown(driver, "#tenant-pick")).isTrue();
    }

    @Test
    void aTenantBoundTokenSeesAndPausesItsTenantsQueuesOnly() throws Exception {
        submitTo("acme-reports", "reports", ACME, null);
        submitTo("plain-reports", "reports", ADMIN, null);

        ChromeDriver driver = open("overview", ACME, null);
        script(driver, "window.confirm = (m) => { window.confirmed = m; return true; };");
        String row = "#queues tr[data-queue='acme/reports']";
        waitFor(driver, d -> "active".equals(text(d, row + " td.state")));
        waitFor(driver, d -> String.valueOf(text(d, "#cluster-note")).contains("queues"));
        assertThat(text(driver, "#nodes tbody td")).as("nodes stay cluster-wide")
                .isEqualTo("This token is bound to tenant acme; cluster views need a cluster-wide token.");
        assertThat(rowIds(driver, "queues", "data-queue")).containsExactly("acme/default", "acme/reports");
        assertThat(text(driver, "#queues td.forbidden")).isNull();
        assertThat(tenantCells(driver, "queues", "data-queue")).containsExactly(List.of("acme/default", "acme"),
                List.of("acme/reports", "acme"));

        driver.findElement(By.cssSelector(row + " button[data-action=pause]")).click();
        waitFor(driver, d -> "paused".equals(text(d, row + " td.state")));
        assertThat(script(driver, "return window.confirmed;")).asString().contains("tenant acme's queue \"reports\"");
        assertThat(queue("reports", ACME, null).get("paused").asBoolean()).isTrue();
        assertThat(queue("reports", ADMIN, null).get("paused").asBoolean()).as("default's reports").isFalse();
        assertThat(String.valueOf(text(driver, "#toast"))).doesNotContain("forbidden");

        driver.findElement(By.cssSelector(row + " button[data-action=resume]")).click();
        waitFor(driver, d -> "active".equals(text(d, row + " td.state")));
        assertThat(queue("reports", ACME, null).get("paused").asBoolean()).isFalse();
    }

    @Test
    void aClusterWideTokenSeesEveryTenantsQueuesAndPausesTheRowsTenantsQueue() throws Exception {
        submitTo("acme-reports", "reports", ADMIN, "acme");
        submitTo("plain-reports", "reports", ADMIN, null);

        ChromeDriver driver = open("overview", ADMIN, null);
        script(driver, "window.confirm = (m) => { window.confirmed = m; return true; };");
        waitFor(driver, d -> rowIds(d, "queues", "data-queue")
                .equals(List.of("acme/reports", "default/default", "default/reports")));
        assertThat(shown(driver, "#queues th.tenant-col")).as("a queue outside the default: the column is there").isTrue();
        assertThat(tenantCells(driver, "queues", "data-queue")).containsExactly(List.of("acme/reports", "acme"),
                List.of("default/default", "default"), List.of("default/reports", "default"));
        assertThat(script(driver, "return Array.from(document.querySelectorAll('#jobs-queue-names option'))"
                + ".map(o => o.value);")).as("one option per name").isEqualTo(List.of("default", "reports"));

        String acmeRow = "#queues tr[data-queue='acme/reports']";
        driver.findElement(By.cssSelector(acmeRow + " button[data-action=pause]")).click();
        waitFor(driver, d -> "paused".equals(text(d, acmeRow + " td.state")));
        assertThat(script(driver, "return window.confirmed;")).asString().contains("tenant acme's queue \"reports\"");
        assertThat(queue("reports", ADMIN, "acme").get("paused").asBoolean()).isTrue();
        assertThat(queue("reports", ADMIN, null).get("paused").asBoolean()).as("default's reports").isFalse();
        assertThat(text(driver, "#queues tr[data-queue='default/reports'] td.state")).isEqualTo("active");

        // the default tenant's row: its confirmation names no tenant, and acme's queue stays paused
        driver.findElement(By.cssSelector("#queues tr[data-queue='default/reports'] button[data-action=pause]")).click();
        waitFor(driver, d -> "paused".equals(text(d, "#queues tr[data-queue='default/reports'] td.state")));
        assertThat(script(driver, "return window.confirmed;")).asString().startsWith("Pause queue \"reports\"?");
        assertThat(queue("reports", ADMIN, null).get("paused").asBoolean()).isTrue();
        driver.findElement(By.cssSelector(acmeRow + " button[data-action=resume]")).click();
        waitFor(driver, d -> "active".equals(text(d, acmeRow + " td.state")));
        assertThat(queue("reports", ADMIN, "acme").get("paused").asBoolean()).isFalse();
        assertThat(queue("reports", ADMIN, null).get("paused").asBoolean()).as("default's reports").isTrue();
    }

    /** A noop job on queue (its pending run makes the queue known) made with token in tenant (or none). */
    static void submitTo(String name, String queue, String token, String tenant) throws Exception {
        HttpResponse<String> answer = call("POST", "/api/jobs", "{\"name\": \"" + name
                + "\", \"executor\": \"noop\", \"queue\": \"" + queue + "\", \"payload\": {}}", token, tenant);
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(201);
    }

    /** GET /api/queues/{name} with token in tenant (or the token's own, or the default). */
    static JsonNode queue(String name, String token, String tenant) throws Exception {
        HttpResponse<String> answer = call("GET", "/api/queues/" + name, null, token, tenant);
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        return JSON.readTree(answer.body());
    }

    static String attributeOf(WebDriver driver, String css, String name) {
        return (String) script(driver, "const e = document.querySelector(arguments[0]);"
                + " return e ? String(e[arguments[1]] ?? e.getAttribute(arguments[1])) : null;", css, name);
    }
}
