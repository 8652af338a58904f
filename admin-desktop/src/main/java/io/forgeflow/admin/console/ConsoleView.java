package io.forgeflow.admin.console;

import io.forgeflow.admin.console.ConsoleViewModel.Screen;
import io.forgeflow.admin.deadletters.DeadLetterView;
import io.forgeflow.admin.fx.Views;
import io.forgeflow.admin.jobs.JobFormView;
import io.forgeflow.admin.jobs.JobListView;
import io.forgeflow.admin.overview.OverviewView;
import io.forgeflow.admin.runs.RunListView;
import io.forgeflow.admin.workflows.BatchView;
import io.forgeflow.admin.workflows.JobDetailView;
import javafx.beans.binding.Bindings;
import javafx.geometry.Insets;
import javafx.scene.Node;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.Tab;
import javafx.scene.control.TabPane;
import javafx.scene.layout.BorderPane;

import java.util.EnumMap;
import java.util.Map;
import java.util.function.Supplier;

/** The connected console: a header and one tab per screen, in step with {@link ConsoleViewModel#screenProperty()}. */
public final class ConsoleView extends BorderPane {

    public ConsoleView(ConsoleViewModel vm, Runnable disconnect) {
        setId("consoleView");
        Label app = new Label("ForgeFlow");
        app.getStyleClass().add("brand");
        Label server = new Label(vm.serverUrl());
        server.setId("serverLabel");
        Label live = new Label();
        live.setId("headerLive");
        live.textProperty().bind(Bindings.createStringBinding(() -> switch (vm.overview().modeProperty().get()) {
            case LIVE -> "● live";
            case POLLING -> "● polling";
            case RECONNECTING -> "● reconnecting";
            case CONNECTING -> "● connecting";
        }, vm.overview().modeProperty()));
        live.getStyleClass().add("live-dot");
        Button leave = Views.button("disconnect", "Disconnect", disconnect);
        Label tenant = new Label();
        tenant.setId("tenantLabel");
        tenant.textProperty().bind(vm.tenantLabelProperty());
        tenant.visibleProperty().bind(javafx.beans.binding.Bindings.isNotEmpty(vm.tenantLabelProperty()));
        tenant.managedProperty().bind(tenant.visibleProperty());
        var header = Views.toolbar(app, server, tenant, live, Views.spacer(), leave);
        header.getStyleClass().add("header");
        header.setPadding(new Insets(8, 14, 8, 14));
        setTop(header);

        TabPane tabs = new TabPane();
        tabs.setId("tabs");
        tabs.setTabClosingPolicy(TabPane.TabClosingPolicy.UNAVAILABLE);
        Map<Screen, Tab> byScreen = new EnumMap<>(Screen.class);
        byScreen.put(Screen.OVERVIEW, tab("tab-overview", "Overview", () -> new OverviewView(vm.overview())));
        byScreen.put(Screen.JOBS, tab("tab-jobs", "Jobs", () -> {
            javafx.scene.control.SplitPane jobs = new javafx.scene.control.SplitPane(new JobListView(vm.jobs()),
                    new JobDetailView(vm.jobDetail()));
            jobs.setOrientation(javafx.geometry.Orientation.VERTICAL);
            jobs.setDividerPositions(0.62);
            return jobs;
        }));
        byScreen.put(Screen.SUBMIT, tab("tab-submit", "Submit job", () -> new JobFormView(vm.form())));
        byScreen.put(Screen.RUNS, tab("tab-runs", "Runs", () -> new RunListView(vm.runs())));
        byScreen.put(Screen.DEAD_LETTERS, tab("tab-dead", "Dead letters", () -> new DeadLetterView(vm.deadLetters())));
        byScreen.put(Screen.BATCHES, tab("tab-batches", "Batches", () -> new BatchView(vm.batches())));
        byScreen.put(Screen.QUEUES, tab("tab-queues", "Queues",
                () -> new io.forgeflow.admin.queues.QueueListView(vm.queues())));
        byScreen.put(Screen.TENANTS, tab("tab-tenants", "Tenants",
                () -> new io.forgeflow.admin.tenants.TenantListView(vm.tenants())));
        ((Label) byScreen.get(Screen.SUBMIT).getGraphic()).textProperty().bind(Bindings.when(
                vm.form().modeProperty().isEqualTo(io.forgeflow.admin.jobs.JobFormViewModel.Mode.EDIT))
                .then("Edit job").otherwise("Submit job"));
        tabs.getTabs().setAll(byScreen.values());
        tabs.getSelectionModel().select(byScreen.get(vm.screenProperty().get()));
        tabs.getSelectionModel().selectedItemProperty().addListener((o, a, tab) -> byScreen.forEach((screen, t) -> {
            if (t == tab && vm.screenProperty().get() != screen) {
                vm.screenProperty().set(screen);
            }
        }));
        vm.screenProperty().addListener((o, a, screen) -> tabs.getSelectionModel().select(byScreen.get(screen)));
        setCenter(tabs);
    }

    /** A tab whose view is built the first time it is shown, so the console opens fast. */
    private static Tab tab(String id, String title, Supplier<Node> content) {
        Label label = new Label(title);
        label.setId(id);
        Tab tab = new Tab();
        tab.setGraphic(label);
        Runnable build = () -> {
            if (tab.getContent() == null) {
                tab.setContent(content.get());
            }
        };
        tab.selectedProperty().addListener((o, was, selected) -> {
            if (selected) {
                build.run();
            }
        });
        if (tab.isSelected()) {
            build.run();
        }
        return tab;
    }
}
