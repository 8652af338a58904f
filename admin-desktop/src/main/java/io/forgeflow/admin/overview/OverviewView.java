package io.forgeflow.admin.overview;

import io.forgeflow.admin.fx.Views;
import io.forgeflow.client.Node;
import io.forgeflow.client.Run;
import javafx.beans.binding.Bindings;
import javafx.beans.property.ReadOnlyLongProperty;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ListCell;
import javafx.scene.control.ListView;
import javafx.scene.control.SplitPane;
import javafx.scene.control.TableRow;
import javafx.scene.control.TableView;
import javafx.scene.input.MouseButton;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;

/** The overview. It only binds controls to {@link OverviewViewModel}; a click on a dead run opens its detail. */
public final class OverviewView extends VBox {

    public OverviewView(OverviewViewModel vm) {
        super(12);
        setId("overviewView");
        setPadding(new Insets(14));

        HBox tiles = new HBox(12,
                tile("waiting", "Waiting", vm.waitingProperty()),
                tile("pending", "Pending", vm.pendingProperty()),
                tile("running", "Running", vm.runningProperty()),
                tile("succeeded", "Succeeded", vm.succeededProperty()),
                deadTile(vm),
                tile("cancelled", "Cancelled", vm.cancelledProperty()));

        Label problem = Views.message("overviewProblem", vm.problemProperty(),
                Bindings.isNotEmpty(vm.problemProperty()));
        // a tenant-bound token: no counts (they are the cluster's), the reason instead
        Label clusterNote = Views.message("clusterNote", vm.clusterNoteProperty(),
                new javafx.beans.property.SimpleBooleanProperty(false));
        tiles.visibleProperty().bind(Bindings.isEmpty(vm.clusterNoteProperty()));
        tiles.managedProperty().bind(tiles.visibleProperty());

        TableView<Run> attention = new TableView<>(vm.attention());
        attention.setId("attentionTable");
        attention.setPlaceholder(new Label("No dead runs. Nothing needs attention."));
        attention.getColumns().setAll(java.util.List.of(
                Views.column("Job", 170, r -> vm.jobName(r.jobId())),
                Views.column("Run", 150, Run::id),
                Views.column("Failed at", 190, vm::finishedText),
                Views.column("Attempts", 80, r -> r.attempt() + " / " + r.maxAttempts()),
                Views.column("Error", 420, vm::errorSummary)));
        attention.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);
        attention.setRowFactory(t -> {
            TableRow<Run> row = new TableRow<>();
            row.setOnMouseClicked(e -> {
                if (!row.isEmpty() && e.getButton() == MouseButton.PRIMARY) {
                    vm.open(row.getItem());
                }
            });
            return row;
        });
        attention.setPrefHeight(220);
        vm.names().addListener((javafx.collections.MapChangeListener<String, String>) c -> attention.refresh());
        VBox attentionBox = new VBox(6, Views.toolbar(Views.heading("Needs attention: latest dead runs"),
                new Label("Click a run to see its error, output and attempts.")), attention);
        VBox.setVgrow(attention, Priority.ALWAYS);

        Label leader = new Label();
        leader.setId("leaderLabel");
        leader.textProperty().bind(Bindings.concat("Scheduler leader: ", vm.leaderProperty()));
        TableView<Node> nodes = new TableView<>(vm.nodes());
        nodes.setId("nodesTable");
        Label noNodes = new Label();
        noNodes.setId("nodesPlaceholder");
        noNodes.setWrapText(true);
        noNodes.textProperty().bind(Bindings.when(Bindings.isEmpty(vm.clusterNoteProperty()))
                .then("No live node reported.").otherwise(vm.clusterNoteProperty()));
        nodes.setPlaceholder(noNodes);
        nodes.getColumns().setAll(java.util.List.of(
                Views.column("Worker", 150, Node::workerId),
                Views.column("Roles", 150, n -> String.join(", ", n.roles())),
                Views.column("Running", 70, n -> Long.toString(n.running())),
                Views.column("Last seen", 90, vm::lastSeenText),
                Views.column("Jobs run", 140, OverviewViewModel::jobsRunText),
                Views.column("Leader", 60, n -> n.leader() ? "★ leader" : "")));
        nodes.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);
        VBox nodesBox = new VBox(6, Views.toolbar(Views.heading("Live nodes"), Views.spacer(), leader), nodes);
        VBox.setVgrow(nodes, Priority.ALWAYS);

        Label live = new Label();
        live.setId("liveStatus");
        live.textProperty().bind(vm.liveStatusProperty());
        Label updated = new Label();
        updated.setId("updatedLabel");
        updated.textProperty().bind(vm.updatedProperty());
        ListView<FeedEntry> feed = new ListView<>(vm.feed());
        feed.setId("feedList");
        feed.setPlaceholder(new Label("No run events yet."));
        feed.setCellFactory(l -> new ListCell<>() {
            @Override
            protected void updateItem(FeedEntry item, boolean empty) {
                super.updateItem(item, empty);
                setText(empty || item == null ? null : vm.describe(item));
                Views.styleStatus(this, empty || item == null ? null : item.status());
            }
        });
        feed.setOnMouseClicked(e -> {
            if (e.getClickCount() == 2) {
                vm.open(feed.getSelectionModel().getSelectedItem());
            }
        });
        VBox feedBox = new VBox(6, Views.toolbar(Views.heading("Live feed"), Views.spacer(), updated), live, feed);
        VBox.setVgrow(feed, Priority.ALWAYS);

        SplitPane bottom = new SplitPane(nodesBox, feedBox);
        bottom.setDividerPositions(0.45);
        VBox.setVgrow(bottom, Priority.ALWAYS);
        VBox.setVgrow(attentionBox, Priority.SOMETIMES);
        getChildren().addAll(tiles, clusterNote, problem, attentionBox, bottom);
    }

    private static VBox tile(String key, String caption, ReadOnlyLongProperty value) {
        Label number = new Label();
        number.setId("stat-" + key);
        number.getStyleClass().add("stat-number");
        number.textProperty().bind(value.asString());
        Label label = new Label(caption);
        label.getStyleClass().add("stat-caption");
        VBox tile = new VBox(2, number, label);
        tile.setAlignment(Pos.CENTER_LEFT);
        tile.getStyleClass().addAll("tile", "tile-" + key);
        tile.setPrefWidth(140);
        number.getStyleClass().add("status-" + key);
        return tile;
    }

    private static Button deadTile(OverviewViewModel vm) {
        VBox content = tile("dead", "Dead: open dead letters", vm.deadProperty());
        content.getStyleClass().remove("tile");
        Button button = new Button();
        button.setId("deadTile");
        button.setGraphic(content);
        button.getStyleClass().addAll("tile", "tile-button");
        button.setPrefWidth(190);
        button.setOnAction(e -> vm.openDeadLetters());
        Runnable alarm = () -> {
            button.getStyleClass().remove("alarm");
            if (vm.deadProperty().get() > 0) {
                button.getStyleClass().add("alarm");
            }
        };
        vm.deadProperty().addListener((o, a, b) -> alarm.run());
        alarm.run();
        return button;
    }
}
