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
import java.util.List;
import java.util.UUID;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The dashboard's Tenants view (issue 42, part two) in headless Chromium against a real node on PostgreSQL
 * (tenants-test-config.yml): the list with weights, limits and load from GET /api/tenants, the edit form sending only
 * what changed with PUT /api/tenants/{name} and showing the server's message next to the field it names, and a
 * tenant-bound token told the view is cluster-wide. Fails (never skips) without Chromium, as DashboardBrowserIT does.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class DashboardTenantSettingsBrowserIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final DropwizardAppExtension<ForgeFlowConfiguration> APP = new DropwizardAppExtension<>(
            ForgeFlowApplication.class, ResourceHelpers.resourceFilePath("tenants-test-config.yml"),
            ConfigOverride.config("forgeflow.databaseUrl", () -> pg.jdbcUrl()),
            ConfigOverride.config("forgeflow.workerId", "tenant-settings-ui-node"));

    static final String ADMIN = "tenants-admin-0123456789";
    static final String ACME = "tenants-acme-0123456789";
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
        profile = Files.createTempDirectory("forgeflow-chromium-tenant-settings");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
                "--user-data-dir=" + profile, "--window-size=1280,900", "--lang=en-US");
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

    /** Opens the dashboard at #hash with token in a fresh tab's sessionStorage. */
    static ChromeDriver open(String hash, String token) throws IOException {
        ChromeDriver driver = browser();
        driver.get(base() + "/ui/icon.svg");
        driver.executeScript("sessionStorage.clear(); sessionStorage.setItem('forgeflow.token', arguments[0]);", token);
        driver.get(base() + "/#" + hash);
        waitFor(driver, d -> !"connecting".equals(d.findElement(By.id("live")).getAttribute("data-mode")));
        return driver;
    }

    static <T> T waitFor(WebDriver driver, Function<WebDriver, T> condition) {
        return new WebDriverWait(driver, WAIT).ignoring(org.openqa.selenium.StaleElementReferenceException.class)
                .ignoring(org.openqa.selenium.NoSuchElementException.class).until(condition::apply);
    }

    static Object script(WebDriver driver, String js, Object... args) {
        return ((org.openqa.selenium.JavascriptExecutor) driver).executeScript(js, args);
    }

    static String text(WebDriver driver, String css) {
        return (String) script(driver, "const e = document.querySelector(arguments[0]);"
                + " return e ? e.textContent.trim() : null;", css);
    }

    static boolean shown(WebDriver driver, String css) {
        return Boolean.TRUE.equals(script(driver, "const e = document.querySelector(arguments[0]);"
                + " return !!e && e.getClientRects().length > 0;", css));
    }

    /** The cells of the tenant's row in #tenants as text (name, weight, pending, running, limits), or null. */
    @SuppressWarnings("unchecked")
    static List<String> row(WebDriver driver, String tenant) {
        return (List<String>) script(driver, "const r = Array.from(document.querySelectorAll('#tenants tbody tr'))"
                + ".find(r => r.dataset.tenant === arguments[0]); return r ? Array.from(r.cells).slice(0, 5)"
                + ".map(c => c.textContent.trim()) : null;", tenant);
    }

    /** Waits until the tenant's row reads expected; else fails saying what the table and the page show. */
    static void untilRow(WebDriver driver, List<String> expected) {
        try {
            waitFor(driver, d -> expected.equals(row(d, expected.get(0))));
        } catch (org.openqa.selenium.TimeoutException e) {
            throw new AssertionError("row " + expected + " not shown; the table: " + text(driver, "#tenants tbody")
                    + "; toast: " + text(driver, "#toast") + "; banner: " + text(driver, "#banner"), e);
        }
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

    static JsonNode tenant(String name) throws Exception {
        HttpResponse<String> answer = call("GET", "/api/tenants/" + name, null, ADMIN, null);
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        return JSON.readTree(answer.body());
    }

    static void type(WebElement form, String name, String value) {
        WebElement input = form.findElement(By.name(name));
        input.sendKeys(Keys.chord(Keys.CONTROL, "a"), Keys.BACK_SPACE);
        if (!value.isEmpty()) {
            input.sendKeys(value);
        }
    }

    @Test
    void anAdminSetsATenantsWeightAndLimitsAndSeesTheServersMessageForBadInput() throws Exception {
        String name = "ui-fair-" + UUID.randomUUID().toString().substring(0, 8);
        HttpResponse<String> job = call("POST", "/api/jobs", "{\"name\": \"fair-job\", \"executor\": \"noop\", "
                + "\"payload\": {}}", ADMIN, name);
        assertThat(job.statusCode()).as(job.body()).isEqualTo(201);

        ChromeDriver driver = open("tenants", ADMIN);
        untilRow(driver, List.of(name, "1", "1", "0", "none"));
        assertThat(row(driver, "default")).as("default is always listed").isNotNull();
        assertThat(shown(driver, "#tenants-tab")).isTrue();
        assertThat(shown(driver, "#tenants-note")).isFalse();
        assertThat(shown(driver, "#tenant-form")).isFalse();

        driver.findElement(By.cssSelector("#tenants tr[data-tenant='" + name + "'] button[data-action=edit-tenant]"))
                .click();
        WebElement form = driver.findElement(By.id("tenant-form"));
        waitFor(driver, d -> shown(d, "#tenant-form"));
        assertThat(text(driver, "#tenant-title")).isEqualTo("Edit tenant " + name);
        assertThat(form.findElement(By.name("weight")).getAttribute("value")).isEqualTo("1");

        // the server's refusal, in its words, next to the field it names; nothing changes
        type(form, "weight", "0");
        driver.findElement(By.id("tenant-save")).click();
        waitFor(driver, d -> shown(d, "#tenant-form label[data-field=weight] .field-error"));
        assertThat(text(driver, "#tenant-form label[data-field=weight] .field-error")).startsWith("weight must be")
                .contains("1000").contains("0");
        assertThat(driver.findElement(By.cssSelector("#tenant-form label[data-field=weight]")).getAttribute("class"))
                .contains("invalid");
        type(form, "weight", "2");
        type(form, "rate_count", "0");
        type(form, "rate_per_seconds", "60");
        driver.findElement(By.id("tenant-save")).click();
        waitFor(driver, d -> shown(d, "#tenant-form label[data-field=rate_limit] .field-error"));
        assertThat(text(driver, "#tenant-form label[data-field=rate_limit] .field-error"))
                .startsWith("rate_limit.count");
        assertThat(shown(driver, "#tenant-form label[data-field=weight] .field-error")).isFalse();
        assertThat(tenant(name).get("weight").asInt()).isEqualTo(1);
        assertThat(tenant(name).get("rate_limit").isNull()).isTrue();

        // what is no number never leaves the page
        type(form, "max_running", "five");
        driver.findElement(By.id("tenant-save")).click();
        waitFor(driver, d -> "max_running must be a whole number, was \"five\"".equals(
                text(d, "#tenant-form label[data-field=max_running] .field-error")));

        type(form, "weight", "3");
        type(form, "max_running", "5");
        type(form, "rate_count", "10");
        type(form, "rate_per_seconds", "60");
        driver.findElement(By.id("tenant-save")).click();
        waitFor(driver, d -> !shown(d, "#tenant-form"));
        untilRow(driver, List.of(name, "3", "1", "0", "max 5 running, 10 per 60 s (0 used)"));
        JsonNode saved = tenant(name);
        assertThat(saved.get("weight").asInt()).isEqualTo(3);
        assertThat(saved.get("max_running").asInt()).isEqualTo(5);
        assertThat(saved.get("rate_limit").get("count").asInt()).isEqualTo(10);
        assertThat(saved.get("rate_limit").get("per_seconds").asInt()).isEqualTo(60);

        // emptied limits are cleared, the weight left as it is stays
        driver.findElement(By.cssSelector("#tenants tr[data-tenant='" + name + "'] button[data-action=edit-tenant]"))
                .click();
        waitFor(driver, d -> shown(d, "#tenant-form"));
        assertThat(form.findElement(By.name("max_running")).getAttribute("value")).isEqualTo("5");
        type(form, "max_running", "");
        type(form, "rate_count", "");
        type(form, "rate_per_seconds", "");
        driver.findElement(By.id("tenant-save")).click();
        waitFor(driver, d -> !shown(d, "#tenant-form"));
        JsonNode cleared = tenant(name);
        assertThat(cleared.get("max_running").isNull()).isTrue();
        assertThat(cleared.get("rate_limit").isNull()).isTrue();
        assertThat(cleared.get("weight").asInt()).isEqualTo(3);
        waitFor(driver, d -> "none".equals(row(d, name) == null ? null : row(d, name).get(4)));
    }

    @Test
    void aTenantBoundTokenIsToldTheTenantsViewIsClusterWide() throws Exception {
        ChromeDriver driver = open("tenants", ACME);
        String message = "This token is bound to tenant acme; tenants' weights and limits are cluster-wide: they "
                + "need a cluster-wide token.";
        waitFor(driver, d -> message.equals(text(d, "#tenants-note")));
        assertThat(shown(driver, "#tenants-note")).isTrue();
        assertThat(text(driver, "#tenants tbody td")).isEqualTo(message);
        assertThat(row(driver, "acme")).isNull();
        assertThat(shown(driver, "#tenants-tab")).as("the tab is hidden once the token is known to be bound")
                .isFalse();
        assertThat(shown(driver, "#tenant-form")).isFalse();
        assertThat(shown(driver, "#banner")).isFalse();
        assertThat(call("GET", "/api/tenants", null, ACME, null).statusCode()).isEqualTo(403);
    }
}
