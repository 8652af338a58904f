package io.forgeflow.server;

import com.sun.net.httpserver.HttpServer;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.forgeflow.adapter.postgres.testing.PostgresExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.io.File;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A hostile web page in the operator's browser against a node without tokens (the README's quick start): headless
 * Chromium loads a page from a second HTTP server on another loopback origin (127.0.0.2), which sends the
 * cross-site form POST, a no-cors fetch with a form content type and a fetch with {@code Origin} to the node. No
 * job is created and no command runs (a marker file stays absent), a rebound host name cannot read the runs, and
 * the node's own dashboard in the same browser still submits a job.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class BrowserAttackIT {
    @RegisterExtension
    static final PostgresExtension pg = PostgresExtension.migrated();

    static final DropwizardAppExtension<ForgeFlowConfiguration> APP = new DropwizardAppExtension<>(
            ForgeFlowApplication.class, ResourceHelpers.resourceFilePath("test-config.yml"),
            ConfigOverride.config("forgeflow.databaseUrl", () -> pg.jdbcUrl()),
            ConfigOverride.config("forgeflow.workerId", "attacked-node"));

    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    static final Duration WAIT = Duration.ofSeconds(30);

    static Path dir;
    static HttpServer attacker;
    static ChromeDriver browser;

    @BeforeAll
    static void start() throws Exception {
        if (!Files.isExecutable(CHROMIUM) || !Files.isExecutable(CHROMEDRIVER)) {
            fail("this test needs Chromium and its driver at " + CHROMIUM + " and " + CHROMEDRIVER + ": install them "
                    + "with `apt-get update && apt-get install -y chromium chromium-driver`");
        }
        dir = Files.createTempDirectory("forgeflow-attack");
        attacker = HttpServer.create(new InetSocketAddress("127.0.0.2", 0), 0);
        attacker.createContext("/", exchange -> {
            byte[] page = attackPage().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
            exchange.sendResponseHeaders(200, page.length);
            exchange.getResponseBody().write(page);
            exchange.close();
        });
        attacker.start();
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
                "--user-data-dir=" + dir.resolve("profile"), "--window-size=1280,800",
                // DNS rebinding, played by the browser's resolver: a foreign name that answers 127.0.0.1
                "--host-resolver-rules=MAP rebind.attacker.test 127.0.0.1");
        browser = new ChromeDriver(new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort().build(), options);
    }

    @AfterAll
    static void stop() throws Exception {
        if (browser != null) {
            browser.quit();
        }
        if (attacker != null) {
            attacker.stop(0);
        }
        if (dir != null) {
            try (var files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
            }
        }
    }

    static String node() {
        return "http://127.0.0.1:" + APP.getLocalPort();
    }

    static Path marker(String name) {
        return dir.resolve(name);
    }

    static String job(String name, Path marker) {
        return "{\"name\": \"" + name + "\", \"executor\": \"shell\", \"payload\": {\"command\": \"touch " + marker + "\"}}";
    }

    /** Three ways a page sends a job without a preflight; the title says when all three have gone out. */
    static String attackPage() {
        String formJob = job("evil-form", marker("evil-form"));
        int split = formJob.length() - 2; // the form's name=value pair must reassemble into the JSON document
        String name = formJob.substring(0, split) + ", \"x\": \"";
        String value = "\"" + formJob.substring(split);
        return "<!doctype html><html><head><title>waiting</title></head><body>"
                + "<iframe name=sink id=sink></iframe>"
                + "<form id=f method=POST enctype=text/plain target=sink action='" + node() + "/api/jobs'>"
                + "<input type=hidden name='" + name.replace("'", "&#39;") + "' value='" + value.replace("'", "&#39;")
                + "'></form>"
                + "<script>\n"
                + "const node = " + json(node()) + ";\n"
                + "const a = fetch(node + '/api/jobs', {mode: 'no-cors', method: 'POST', headers: {'Content-Type': "
                + "'application/x-www-form-urlencoded'}, body: " + json(job("evil-no-cors", marker("evil-no-cors")))
                + "}).catch(e => e);\n"
                + "const b = fetch(node + '/api/jobs', {method: 'POST', headers: {'Content-Type': 'text/plain'}, body: "
                + json(job("evil-cors", marker("evil-cors"))) + "}).then(r => 'read ' + r.status, e => 'blocked');\n"
                + "const c = new Promise(done => { document.getElementById('sink').onload = done; });\n"
                + "document.getElementById('f').submit();\n"
                + "Promise.all([a, b, c]).then(([x, y]) => { document.title = 'sent: ' + y; });\n"
                + "</script></body></html>";
    }

    static String json(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    static long jobs() {
        return pg.jdbi().withHandle(h -> h.createQuery("SELECT count(*) FROM jobs").mapTo(Long.class).one());
    }

    @Test
    void aForeignPageCreatesNoJobAndRunsNoCommandWhileTheDashboardStillSubmits() throws Exception {
        long before = jobs();
        browser.get("http://127.0.0.2:" + attacker.getAddress().getPort() + "/");
        new WebDriverWait(browser, WAIT).until(d -> d.getTitle().startsWith("sent"));
        assertThat(browser.getTitle()).as("the page could not read the node's answer").isEqualTo("sent: blocked");
        assertThat(jobs()).as("no job created by the page").isEqualTo(before);

        // the node's own dashboard, same browser: its job runs, so the worker is alive and would have run the others
        Path good = marker("dashboard");
        browser.get(node() + "/#jobs");
        new WebDriverWait(browser, WAIT).until(d -> d.findElement(By.id("new-job")).isDisplayed());
        browser.findElement(By.id("new-job")).click();
        WebElement form = browser.findElement(By.id("submit-form"));
        form.findElement(By.name("name")).sendKeys("from-the-dashboard");
        form.findElement(By.name("command")).sendKeys("touch " + good);
        form.findElement(By.cssSelector("button[type=submit]")).click();
        new WebDriverWait(browser, WAIT).until(d -> Files.exists(good));

        assertThat(jobs()).isEqualTo(before + 1);
        for (String evil : new String[] {"evil-form", "evil-no-cors", "evil-cors"}) {
            assertThat(marker(evil)).as(evil).doesNotExist();
        }
    }

    @Test
    void aPageOnAReboundDnsNameCannotReadTheRuns() {
        browser.get("http://rebind.attacker.test:" + APP.getLocalPort() + "/api/runs");
        String body = browser.findElement(By.tagName("body")).getText();
        assertThat(body).contains("does not answer to the host name").contains("FORGEFLOW_ALLOWED_HOSTS")
                .doesNotContain("\"items\"");
        browser.get(node() + "/api/runs");
        assertThat(browser.findElement(By.tagName("body")).getText()).contains("\"items\"");
    }
}
