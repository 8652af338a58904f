package io.forgeflow.admin.workflows;

import io.forgeflow.admin.cluster.WorkflowNode;
import io.forgeflow.admin.fx.Views;
import javafx.beans.binding.Bindings;
import javafx.collections.ListChangeListener;
import javafx.collections.ObservableList;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.control.Button;
import javafx.scene.control.Hyperlink;
import javafx.scene.control.Label;
import javafx.scene.control.ScrollPane;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.VBox;

/**
 * The job detail: its workflow graph (parents → the job → children; a node is a button coloured by its latest run's
 * status, else its job's, that opens that job), {@code depends_on}, {@code on_parent_failure} and the batch link.
 * It only binds to {@link JobDetailViewModel}.
 */
public final class JobDetailView extends VBox {
    /** Nodes drawn per side; a job may have a thousand children, the rest are counted. */
    static final int SHOWN = 40;

    public JobDetailView(JobDetailViewModel vm) {
        super(8);
        setId("jobDetailView");
        setPadding(new Insets(10, 14, 10, 14));
        Label title = Views.heading("");
        title.setId("jobDetailTitle");
        title.textProperty().bind(vm.titleProperty());

        VBox parents = column("wfParents");
        VBox self = new VBox();
        self.setAlignment(Pos.CENTER);
        VBox children = column("wfChildren");
        fill(parents, vm.parents(), vm, "no parents");
        fill(children, vm.children(), vm, "no children");
        Runnable showSelf = () -> self.getChildren().setAll(vm.selfProperty().get() == null ? java.util.List.of()
                : java.util.List.of(node(vm.selfProperty().get(), vm, "wfThis")));
        vm.selfProperty().addListener((o, a, b) -> showSelf.run());
        showSelf.run();
        HBox graph = new HBox(10, parents, arrow(), self, arrow(), children);
        graph.setId("workflowGraph");
        graph.setAlignment(Pos.CENTER_LEFT);
        graph.visibleProperty().bind(vm.selfProperty().isNotNull());
        graph.managedProperty().bind(graph.visibleProperty());
        ScrollPane graphScroll = new ScrollPane(graph);
        graphScroll.setFitToHeight(true);
        graphScroll.setPrefViewportHeight(120);
        graphScroll.visibleProperty().bind(graph.visibleProperty());
        graphScroll.managedProperty().bind(graph.visibleProperty());

        GridPane facts = new GridPane();
        facts.setHgap(10);
        facts.setVgap(4);
        facts.addRow(0, new Label("Depends on"), bound("jobDependsOn", vm.dependsOnProperty()));
        facts.addRow(1, new Label("On parent failure"), bound("jobOnParentFailure", vm.onParentFailureProperty()));
        Hyperlink batch = new Hyperlink();
        batch.setId("jobBatchLink");
        batch.textProperty().bind(Bindings.concat("Batch ", vm.batchIdProperty()));
        batch.setOnAction(e -> vm.openBatch());
        Label noBatch = new Label("not made by a batch");
        noBatch.visibleProperty().bind(Bindings.isEmpty(vm.batchIdProperty()));
        noBatch.managedProperty().bind(noBatch.visibleProperty());
        batch.visibleProperty().bind(noBatch.visibleProperty().not());
        batch.managedProperty().bind(batch.visibleProperty());
        facts.addRow(2, new Label("Batch"), new HBox(batch, noBatch));
        Label streakName = new Label("Dead in a row");
        Label streak = bound("jobDeadStreak", vm.deadStreakProperty());
        streakName.visibleProperty().bind(Bindings.isNotEmpty(vm.deadStreakProperty()));
        streakName.managedProperty().bind(streakName.visibleProperty());
        streak.visibleProperty().bind(streakName.visibleProperty());
        streak.managedProperty().bind(streakName.visibleProperty());
        facts.addRow(3, streakName, streak);
        facts.addRow(4, new Label("Debounce"), bound("jobDebounce", vm.debounceProperty()));
        facts.addRow(5, new Label("Throttle"), bound("jobThrottle", vm.throttleProperty()));
        Label tenantName = new Label("Tenant");
        Label tenant = bound("jobTenant", vm.tenantProperty());
        tenantName.visibleProperty().bind(Bindings.isNotEmpty(vm.tenantProperty()));
        tenantName.managedProperty().bind(tenantName.visibleProperty());
        tenant.visibleProperty().bind(tenantName.visibleProperty());
        tenant.managedProperty().bind(tenantName.visibleProperty());
        facts.addRow(6, tenantName, tenant);
        facts.visibleProperty().bind(vm.selfProperty().isNotNull());
        facts.managedProperty().bind(facts.visibleProperty());

        getChildren().addAll(title, graphScroll, facts,
                Views.message("jobDetailMessage", vm.messageProperty(), vm.failedProperty()));
    }

    private static VBox column(String id) {
        VBox box = new VBox(6);
        box.setId(id);
        box.setAlignment(Pos.CENTER_LEFT);
        return box;
    }

    private static void fill(VBox box, ObservableList<WorkflowNode> nodes, JobDetailViewModel vm, String empty) {
        Runnable show = () -> {
            box.getChildren().clear();
            if (nodes.isEmpty()) {
                Label none = new Label(empty);
                none.getStyleClass().add("stat-caption");
                box.getChildren().add(none);
            }
            nodes.stream().limit(SHOWN).forEach(n -> box.getChildren().add(node(n, vm, "wfNode-" + n.id())));
            if (nodes.size() > SHOWN) {
                Label more = new Label("… and " + (nodes.size() - SHOWN) + " more");
                more.setId(box.getId() + "More");
                more.getStyleClass().add("stat-caption");
                box.getChildren().add(more);
            }
        };
        nodes.addListener((ListChangeListener<WorkflowNode>) c -> show.run());
        show.run();
    }

    /** A node: the job's name over its statuses, coloured by {@link WorkflowNode#shownStatus()}; a click opens it. */
    private static Button node(WorkflowNode n, JobDetailViewModel vm, String id) {
        Button button = new Button((n.name() == null ? n.id() : n.name()) + "\n" + JobDetailViewModel.statusLine(n));
        button.setId(id);
        button.getStyleClass().add("workflow-node");
        if (n.shownStatus() != null) {
            button.getStyleClass().add("status-" + n.shownStatus());
        }
        button.setTooltip(new javafx.scene.control.Tooltip(n.id()));
        button.setOnAction(e -> vm.openNode(n));
        return button;
    }

    private static Label arrow() {
        Label arrow = new Label("→");
        arrow.getStyleClass().add("heading");
        return arrow;
    }

    private static Label bound(String id, javafx.beans.value.ObservableStringValue text) {
        Label label = new Label();
        label.setId(id);
        label.setWrapText(true);
        label.textProperty().bind(text);
        return label;
    }
}
