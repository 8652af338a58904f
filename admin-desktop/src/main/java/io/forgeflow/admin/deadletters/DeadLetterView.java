package io.forgeflow.admin.deadletters;

import io.forgeflow.admin.fx.Views;
import io.forgeflow.client.Run;
import javafx.beans.binding.Bindings;
import javafx.geometry.Insets;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.SelectionMode;
import javafx.scene.control.TableRow;
import javafx.scene.control.TableView;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;

import java.util.List;

/** The dead letters. It only binds to {@link DeadLetterViewModel}; the table's selection is the view model's. */
public final class DeadLetterView extends VBox {

    public DeadLetterView(DeadLetterViewModel vm) {
        super(10);
        setId("deadLettersView");
        setPadding(new Insets(14));
        TableView<Run> table = new TableView<>(vm.dead());
        table.setId("deadTable");
        table.getSelectionModel().setSelectionMode(SelectionMode.MULTIPLE);
        Bindings.bindContent(vm.selection(), table.getSelectionModel().getSelectedItems());
        table.setPlaceholder(new Label("The dead-letter queue is empty."));
        table.getColumns().setAll(List.of(
                Views.column("Run", 140, Run::id),
                Views.column("Job", 160, r -> vm.jobName(r.jobId())),
                Views.column("Died at", 190, vm::finishedOf),
                Views.column("Attempts", 75, r -> r.attempt() + " / " + r.maxAttempts()),
                Views.column("Last error", 420, vm::errorOf)));
        table.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);
        table.setRowFactory(t -> {
            TableRow<Run> row = new TableRow<>();
            row.setOnMouseClicked(e -> {
                if (e.getClickCount() == 2 && !row.isEmpty()) {
                    vm.openSelected();
                }
            });
            return row;
        });
        vm.names().addListener((javafx.collections.MapChangeListener<String, String>) c -> table.refresh());
        VBox.setVgrow(table, Priority.ALWAYS);

        Button selectAll = Views.button("deadSelectAll", "Select all", () -> table.getSelectionModel().selectAll());
        Button requeue = Views.button("requeueSelected", "Requeue selected", vm::requeueSelected);
        requeue.getStyleClass().add("primary");
        requeue.disableProperty().bind(vm.canRequeueProperty().not());
        Button open = Views.button("openDead", "Open run", vm::openSelected);
        open.disableProperty().bind(vm.canOpenProperty().not());
        Button loadMore = Views.button("deadLoadMore", "Load more", vm::loadMore);
        loadMore.disableProperty().bind(vm.hasMoreProperty().not().or(vm.loadingProperty()));
        Label count = new Label();
        count.setId("deadCount");
        count.textProperty().bind(vm.countProperty());

        getChildren().addAll(
                Views.toolbar(Views.heading("Dead letters"), count, Views.spacer(),
                        Views.button("deadRefresh", "Refresh", vm::refresh), loadMore),
                new Label("Runs that used up their attempts. Select one or many (Ctrl/Shift-click) and requeue them: "
                        + "each gets a fresh attempt budget and keeps its history."),
                table,
                Views.toolbar(selectAll, open, Views.spacer(), requeue),
                Views.message("deadMessage", vm.messageProperty(), vm.failedProperty()));
    }
}
