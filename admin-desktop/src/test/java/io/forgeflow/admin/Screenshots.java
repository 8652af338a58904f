package io.forgeflow.admin;

import io.forgeflow.admin.cluster.RestClusterClient;
import io.forgeflow.admin.console.ConsoleViewModel;
import io.forgeflow.admin.console.ConsoleViewModel.Screen;
import io.forgeflow.admin.jobs.JobFormViewModel;
import io.forgeflow.admin.support.InMemorySettingsStore;
import io.forgeflow.admin.support.Times;
import io.forgeflow.admin.testing.ScriptedServer;
import io.forgeflow.client.Job;
import io.forgeflow.client.Run;
import javafx.application.Platform;
import javafx.scene.Scene;
import javafx.scene.control.TableView;
import javafx.scene.image.PixelFormat;
import javafx.scene.image.WritableImage;
import javafx.stage.Stage;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Renders a PNG of each screen into a folder (default {@code docs/screenshots}), headless on Monocle, against the
 * scripted server seeded with a believable cluster. Run it with the command in admin-desktop/README.md.
 */
public final class Screenshots {
    private static final Duration DEADLINE = Duration.ofSeconds(30);

    private Screenshots() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args.length > 0 ? args[0] : "docs/screenshots");
        headless();
        List<Path> written = render(dir);
        written.forEach(p -> System.out.println("wrote " + p));
        System.exit(0); // the toolkit's own shutdown hook ends it; an explicit exit would race that hook

    }

    /** Monocle's headless glass and the software renderer, unless the command line chose otherwise. */
    static void headless() {
        setDefault("glass.platform", "Monocle");
        setDefault("monocle.platform", "Headless");
        setDefault("prism.order", "sw");
        setDefault("prism.lcdtext", "false");
        setDefault("java.awt.headless", "true");
    }

    private static void setDefault(String key, String value) {
        if (System.getProperty(key) == null) {
            System.setProperty(key, value);
        }
    }

    /** Starts the toolkit (if needed), walks through the screens and writes one PNG per screen. */
    public static List<Path> render(Path dir) throws Exception {
        Files.createDirectories(dir);
        try {
            Platform.startup(() -> { });
            Platform.setImplicitExit(false);
        } catch (IllegalStateException alreadyRunning) {
            // a test started it
        }
        List<Path> written = new ArrayList<>();
        try (ScriptedServer server = new ScriptedServer().seedDemo()) {
            InMemorySettingsStore settings = new InMemorySettingsStore();
            settings.put("serverUrl", server.url());
            AdminApp app = new AdminApp(new AdminApp.Settings(settings, RestClusterClient::open, Duration.ofSeconds(2),
                    new Times(ZoneId.of("Europe/Berlin"), Clock.systemUTC())));
            Stage stage = fx(Stage::new);
            fx(() -> {
                app.start(stage);
                return null;
            });
            Scene scene = stage.getScene();
            written.add(shot(scene, dir, "connect"));

            fx(() -> {
                app.connection().connect();
                return null;
            });
            await(() -> app.console() != null);
            ConsoleViewModel console = app.console();
            await(() -> fx(() -> console.overview().attention().size() == 2 && !console.overview().feed().isEmpty()
                    && console.names().names().size() >= 5 && console.overview().nodes().size() == 3));
            written.add(shot(scene, dir, "overview"));

            fx(() -> {
                console.screenProperty().set(Screen.JOBS);
                return null;
            });
            await(() -> fx(() -> console.jobs().jobs().size() == 6));
            fx(() -> {
                Job backup = console.jobs().jobs().stream().filter(j -> j.name().equals("backup-db")).findFirst()
                        .orElseThrow();
                console.jobs().selectedProperty().set(backup);
                return null;
            });
            written.add(shot(scene, dir, "jobs"));

            fx(() -> {
                console.showSubmitForm();
                JobFormViewModel form = console.form();
                form.nameProperty().set("cleanup-uploads");
                form.commandProperty().set("find /srv/uploads -mtime +30 -delete");
                form.scheduleModeProperty().set(JobFormViewModel.ScheduleMode.CRON);
                form.timezoneProperty().set("Europe/Berlin");
                form.cronExprProperty().set("*/15 6-22 * * MON-FRI");
                form.priorityProperty().set("3");
                form.timeoutSecondsProperty().set("90000");
                return null;
            });
            written.add(shot(scene, dir, "submit"));

            String nightly = server.jobNamed("nightly-report").id();
            server.relabel(nightly, "reports", java.util.Map.of("team", "ops"));
            fx(() -> {
                console.showEditForm(server.job(nightly));
                JobFormViewModel form = console.form();
                form.priorityProperty().set("2");
                form.labelsProperty().set("team:ops, forbidden:yes");
                form.keepPendingProperty().set(true);
                form.submit();
                return null;
            });
            await(() -> fx(() -> !console.form().errorProperty(JobFormViewModel.Field.LABELS).get().isEmpty()));
            fx(() -> {
                javafx.scene.control.ScrollPane fields = (javafx.scene.control.ScrollPane)
                        ((javafx.scene.layout.BorderPane) scene.lookup("#jobFormView")).getCenter();
                fields.setVvalue(1);
                return null;
            });
            written.add(shot(scene, dir, "edit"));

            String deadRun = fx(() -> console.overview().attention().stream()
                    .filter(r -> console.names().nameOf(r.jobId()).equals("backup-db")).findFirst().orElseThrow().id());
            server.traceRun(deadRun, "4bf92f3577b34da6a3ce929d0e0e4736",
                    "http://localhost:16686/trace/4bf92f3577b34da6a3ce929d0e0e4736");
            fx(() -> {
                console.showRun(deadRun);
                return null;
            });
            await(() -> fx(() -> console.runDetail().attempts().size() == 3 && console.runs().runs().size() > 10));
            fx(() -> {
                TableView<?> runs = (TableView<?>) scene.lookup("#runsTable");
                Run shown = console.runs().runs().stream().filter(r -> r.id().equals(deadRun)).findFirst().orElseThrow();
                console.runs().selectedProperty().set(shown);
                runs.scrollTo(0);
                return null;
            });
            await(() -> fx(() -> console.runDetail().attempts().size() == 3));
            written.add(shot(scene, dir, "runs"));

            fx(() -> {
                console.screenProperty().set(Screen.DEAD_LETTERS);
                return null;
            });
            await(() -> fx(() -> console.deadLetters().dead().size() == 2));
            fx(() -> {
                ((TableView<?>) scene.lookup("#deadTable")).getSelectionModel().select(0);
                return null;
            });
            written.add(shot(scene, dir, "dead-letters"));

            String backupJob = server.jobNamed("backup-db").id();
            String invoices = server.jobNamed("send-invoices").id();
            server.link(nightly, "wait", backupJob);
            server.link(invoices, null, nightly);
            server.link(server.jobNamed("sync-crm").id(), "run", nightly);
            server.addBatch("0190f3c2-6f1e-7a3b-9c4d-2e5f6a7b8c9d", "import-2026-12-02",
                    new long[] {3, 2, 1, 9, 1, 1}, server.jobNamed("cleanup-tmp").id(), "open", nightly);
            fx(() -> {
                console.showJob(nightly);
                return null;
            });
            await(() -> fx(() -> console.jobDetail().parents().size() == 1
                    && console.jobDetail().children().size() == 2));
            written.add(shot(scene, dir, "workflow"));

            fx(() -> {
                console.jobDetail().openBatch();
                return null;
            });
            await(() -> fx(() -> console.batches().batchProperty().get() != null));
            written.add(shot(scene, dir, "batch"));

            fx(() -> {
                app.stop();
                stage.close();
                return null;
            });
        }
        return written;
    }

    private static Path shot(Scene scene, Path dir, String name) throws Exception {
        WritableImage image = fx(() -> {
            scene.getRoot().applyCss();
            scene.getRoot().layout();
            return scene.snapshot(null);
        });
        int w = (int) image.getWidth();
        int h = (int) image.getHeight();
        int[] argb = new int[w * h];
        image.getPixelReader().getPixels(0, 0, w, h, PixelFormat.getIntArgbInstance(), argb, 0, w);
        BufferedImage png = new BufferedImage(w, h, BufferedImage.TYPE_INT_ARGB);
        png.setRGB(0, 0, w, h, argb, 0, w);
        Path file = dir.resolve(name + ".png");
        try {
            ImageIO.write(png, "png", file.toFile());
        } catch (IOException e) {
            throw new IOException("cannot write " + file, e);
        }
        return file;
    }

    private static <T> T fx(Callable<T> call) throws Exception {
        if (Platform.isFxApplicationThread()) {
            return call.call();
        }
        CompletableFuture<T> result = new CompletableFuture<>();
        Platform.runLater(() -> {
            try {
                result.complete(call.call());
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        });
        return result.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
    }

    private interface Check {
        boolean holds() throws Exception;
    }

    private static void await(Check check) throws Exception {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (!check.holds()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the screen did not load within " + DEADLINE.toSeconds() + " s");
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
        // let the views draw what just arrived (cells are created on the next layout)
        fx(() -> null);
    }
}
