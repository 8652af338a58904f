package io.forgeflow.admin.queues;

import io.forgeflow.admin.fx.Views;
import io.forgeflow.admin.queues.QueueListViewModel.Field;
import io.forgeflow.client.Queue;
import javafx.beans.binding.Bindings;
import javafx.beans.binding.BooleanBinding;
import javafx.beans.property.StringProperty;
import javafx.geometry.Insets;
import javafx.scene.Node;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.TableView;
import javafx.scene.control.TextField;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;

import java.util.List;
import java.util.Locale;

/** The queues, pause and resume of the selected one, and its limits form. It only binds to {@link QueueListViewModel}. */
public final class QueueListView extends VBox {
    private final QueueListViewModel vm;
    private final GridPane grid = new GridPane();
    private int row;

    public QueueListView(QueueListViewModel vm) {
        super(10);
        this.vm = vm;
        setId("queuesView");
        setPadding(new Insets(14));

        TableView<Queue> table = new TableView<>(vm.queues());
        table.setId("queuesTable");
        table.setPlaceholder(new Label("No queues read yet."));
        var tenant = Views.column("Tenant", 110, QueueListViewModel::tenantOf);
        tenant.setId("queueTenantColumn");
        tenant.visibleProperty().bind(vm.tenantColumnVisibleProperty());
        table.getColumns().setAll(List.of(
                tenant,
                Views.column("Queue", 180, Queue::name),
                Views.statusColumn("State", 80, QueueListViewModel::stateOf),
                Views.column("Running", 75, q -> String.valueOf(q.running())),
                Views.column("Max running", 95, QueueListViewModel::maxRunningOf),
                Views.column("Rate limit", 190, QueueListViewModel::rateLimitOf),
                Views.column("Pending", 75, q -> String.valueOf(q.pending())),
                Views.column("Due", 65, q -> String.valueOf(q.due())),
                Views.column("Lag", 110, QueueListViewModel::lagOf)));
        table.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);
        table.getSelectionModel().selectedItemProperty().addListener((o, was, now) -> {
            if (now != null) {
                vm.selectedProperty().set(now);
            }
        });
        vm.selectedProperty().addListener((o, was, now) -> {
            if (now != null && table.getSelectionModel().getSelectedItem() != now) {
                table.getSelectionModel().select(now);
            }
        });
        VBox.setVgrow(table, Priority.ALWAYS);

        Label count = new Label();
        count.setId("queuesCount");
        count.textProperty().bind(vm.countProperty());
        Button refresh = Views.button("queuesRefresh", "Refresh", vm::refresh);
        refresh.disableProperty().bind(vm.loadingProperty());
        Button pause = Views.button("pauseQueue", "Pause", vm::pauseSelected);
        pause.disableProperty().bind(vm.canPauseProperty().not());
        Button resume = Views.button("resumeQueue", "Resume", vm::resumeSelected);
        resume.disableProperty().bind(vm.canResumeProperty().not());

        Label title = Views.heading("");
        title.setId("queueEditTitle");
        title.textProperty().bind(Bindings.when(Bindings.isEmpty(vm.editingProperty()))
                .then("Select a queue to pause it, resume it or change its limits")
                .otherwise(Bindings.concat("Queue ", vm.editingProperty())));
        grid.setHgap(10);
        grid.setVgap(6);
        add("Max running", field("queueMaxRunning", vm.maxRunningProperty(), "on all nodes (empty: no limit)"),
                Field.MAX_RUNNING);
        add("Rate limit", new HBox(8, field("queueRateCount", vm.rateCountProperty(), "starts"),
                new Label("per"), field("queueRatePer", vm.ratePerSecondsProperty(), "seconds (empty: none)")),
                Field.RATE_LIMIT);
        Button save = Views.button("saveQueue", "Save limits", vm::save);
        save.getStyleClass().add("primary");
        save.setDefaultButton(true);
        save.disableProperty().bind(vm.canSaveProperty().not());
        Button revert = Views.button("revertQueue", "Revert", vm::revert);
        revert.disableProperty().bind(Bindings.isEmpty(vm.editingProperty()));
        grid.disableProperty().bind(Bindings.isEmpty(vm.editingProperty()));
        VBox form = new VBox(8, title, grid, Views.toolbar(save, revert),
                Views.message("queuesMessage", vm.messageProperty(), vm.failedProperty()));
        form.setId("queueForm");
        form.getStyleClass().add("form-actions");

        Label note = new Label("A queue is a tenant's. While paused, no run of it starts on any node (running runs go "
                + "on); its limits hold across the cluster from the next claim. Changing them needs the operate "
                + "scope; an emptied field clears that limit.");
        note.setWrapText(true);
        getChildren().addAll(Views.toolbar(Views.heading("Queues"), count, Views.spacer(), pause, resume, refresh),
                note, Views.confirmationBar("queueConfirm", vm.confirmationProperty(), vm::confirm, vm::dismiss),
                table, form);
    }

    private void add(String caption, Node input, Field field) {
        Label error = new Label();
        error.setId("queueError-" + field.name().toLowerCase(Locale.ROOT).replace('_', '-'));
        error.getStyleClass().add("field-error");
        error.setWrapText(true);
        BooleanBinding here = vm.errorFieldProperty().isEqualTo(field);
        error.textProperty().bind(Bindings.when(here).then(vm.messageProperty()).otherwise(""));
        error.visibleProperty().bind(here);
        error.managedProperty().bind(here);
        grid.add(new Label(caption), 0, row);
        grid.add(new VBox(2, input, error), 1, row++);
    }

    private static TextField field(String id, StringProperty property, String prompt) {
        TextField field = new TextField();
        field.setId(id);
        field.setPromptText(prompt);
        field.setPrefColumnCount(12);
        field.textProperty().bindBidirectional(property);
        return field;
    }
}
