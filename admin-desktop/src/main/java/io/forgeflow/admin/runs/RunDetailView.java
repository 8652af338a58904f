package io.forgeflow.admin.runs;

import io.forgeflow.admin.fx.Views;
import io.forgeflow.client.Attempt;
import javafx.beans.binding.Bindings;
import javafx.geometry.Insets;
import javafx.scene.control.Button;
import javafx.scene.control.Hyperlink;
import javafx.scene.control.Label;
import javafx.scene.control.TableView;
import javafx.scene.control.TextArea;
import javafx.scene.control.TextField;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;

import java.util.List;

/** The run detail pane: error first, then output and the attempt timeline. It only binds to {@link RunDetailViewModel}. */
public final class RunDetailView extends VBox {

    public RunDetailView(RunDetailViewModel vm) {
        super(8);
        setId("runDetailView");
        setPadding(new Insets(10));
        Label title = Views.heading("");
        title.setId("runTitle");
        title.textProperty().bind(vm.titleProperty());
        Label status = new Label();
        status.setId("runStatus");
        status.getStyleClass().add("status-badge");
        status.textProperty().bind(vm.statusProperty());
        status.visibleProperty().bind(Bindings.isNotEmpty(vm.statusProperty()));
        Views.styleByStatus(status, vm.statusProperty());
        Label summary = new Label();
        summary.setId("runSummary");
        summary.setWrapText(true);
        summary.textProperty().bind(vm.summaryProperty());

        Hyperlink traceLink = new Hyperlink();
        traceLink.setId("traceLink");
        traceLink.textProperty().bind(vm.traceIdProperty());
        traceLink.setOnAction(e -> vm.openTrace());
        traceLink.visibleProperty().bind(Bindings.isNotEmpty(vm.traceUrlProperty()));
        traceLink.managedProperty().bind(traceLink.visibleProperty());
        TextField traceText = new TextField();
        traceText.setId("traceIdText");
        traceText.setEditable(false);
        traceText.setPrefColumnCount(24);
        traceText.getStyleClass().add("mono");
        traceText.textProperty().bind(vm.traceIdProperty());
        traceText.visibleProperty().bind(Bindings.isEmpty(vm.traceUrlProperty())
                .and(Bindings.isNotEmpty(vm.traceIdProperty())));
        traceText.managedProperty().bind(traceText.visibleProperty());
        Label traceNote = new Label();
        traceNote.setId("traceNote");
        traceNote.setWrapText(true);
        traceNote.getStyleClass().add("stat-caption");
        traceNote.textProperty().bind(vm.traceNoteProperty());
        Label traceCaption = new Label("Trace");
        var trace = Views.toolbar(traceCaption, traceLink, traceText, traceNote);
        trace.visibleProperty().bind(vm.runProperty().isNotNull());
        trace.managedProperty().bind(trace.visibleProperty());

        Button cancel = Views.button("cancelRun", "Cancel run…", vm::cancel);
        cancel.getStyleClass().add("danger");
        cancel.disableProperty().bind(vm.canCancelProperty().not());
        Button requeue = Views.button("requeueRun", "Requeue", vm::requeue);
        requeue.disableProperty().bind(vm.canRequeueProperty().not());
        Button reload = Views.button("reloadRun", "Reload", vm::reload);
        reload.disableProperty().bind(vm.runProperty().isNull());

        TextArea error = new TextArea();
        error.setId("runError");
        error.setEditable(false);
        error.setWrapText(true);
        error.setPrefRowCount(4);
        error.getStyleClass().add("error-text");
        error.textProperty().bind(vm.errorProperty());
        TextArea output = new TextArea();
        output.setId("runOutput");
        output.setEditable(false);
        output.setPrefRowCount(6);
        output.getStyleClass().add("mono");
        output.textProperty().bind(vm.outputProperty());

        TableView<Attempt> attempts = new TableView<>(vm.attempts());
        attempts.setId("attemptsTable");
        attempts.setPlaceholder(new Label("No attempt yet."));
        attempts.setPrefHeight(150);
        attempts.getColumns().setAll(List.of(
                Views.column("#", 28, a -> Integer.toString(a.attempt())),
                Views.column("Worker", 72, a -> a.workerId() == null ? "—" : a.workerId()),
                Views.column("Started", 128, a -> vm.timeOf(a.startedAt())),
                Views.column("Took", 70, vm::durationOf),
                Views.statusColumn("Outcome", 100, a -> a.outcome() == null ? "running" : a.outcome()),
                Views.column("Error", 200, a -> a.error() == null ? "" : a.error())));
        attempts.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);

        VBox.setVgrow(output, Priority.ALWAYS);
        getChildren().addAll(Views.toolbar(title, status), summary, trace,
                Views.toolbar(cancel, requeue, reload),
                Views.confirmationBar("runConfirm", vm.confirmationProperty(), vm::confirm, vm::dismiss),
                Views.message("runMessage", vm.messageProperty(), vm.failedProperty()),
                new Label("Error"), error, new Label("Output"), output, new Label("Attempts"), attempts);
    }
}
