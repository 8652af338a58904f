package io.forgeflow.admin.workflows;

import io.forgeflow.admin.fx.Views;
import javafx.beans.binding.Bindings;
import javafx.collections.ListChangeListener;
import javafx.geometry.Insets;
import javafx.scene.control.Button;
import javafx.scene.control.Hyperlink;
import javafx.scene.control.Label;
import javafx.scene.control.ProgressBar;
import javafx.scene.control.TextField;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;

/**
 * The Batches screen: an id field, then the batch's progress bar (a segment per status, as wide as its share of the
 * batch), its status, counts and on-complete job link. It only binds to {@link BatchViewModel}.
 */
public final class BatchView extends VBox {
    static final double BAR_WIDTH = 640;

    public BatchView(BatchViewModel vm) {
        super(10);
        setId("batchView");
        setPadding(new Insets(14));
        TextField id = new TextField();
        id.setId("batchIdField");
        id.setPromptText("Batch id");
        id.setPrefColumnCount(30);
        id.textProperty().bindBidirectional(vm.batchIdProperty());
        id.setOnAction(e -> vm.open());
        Button open = Views.button("openBatch", "Open", vm::open);
        Label inputError = new Label();
        inputError.setId("batchIdError");
        inputError.setWrapText(true);
        inputError.getStyleClass().add("field-error");
        inputError.textProperty().bind(vm.inputErrorProperty());

        Label title = Views.heading("");
        title.setId("batchTitle");
        title.textProperty().bind(vm.titleProperty());
        Label status = new Label();
        status.setId("batchStatus");
        status.getStyleClass().add("status-badge");
        status.textProperty().bind(vm.statusProperty());
        status.visibleProperty().bind(Bindings.isNotEmpty(vm.statusProperty()));
        Views.styleByStatus(status, vm.statusProperty());

        ProgressBar ended = new ProgressBar();
        ended.setId("batchProgress");
        ended.setPrefWidth(BAR_WIDTH);
        ended.progressProperty().bind(vm.progressProperty());
        HBox bar = new HBox();
        bar.setId("batchBar");
        bar.getStyleClass().add("batch-bar");
        bar.setMaxWidth(BAR_WIDTH);
        bar.setPrefWidth(BAR_WIDTH);
        HBox legend = new HBox(12);
        legend.setId("batchLegend");
        Runnable drawBar = () -> {
            bar.getChildren().clear();
            for (BatchViewModel.Segment s : vm.segments()) {
                Region part = new Region();
                part.setId("batchSegment-" + s.status());
                part.getStyleClass().addAll("batch-segment", "segment-" + s.status());
                part.setPrefWidth(BAR_WIDTH * s.fraction());
                part.setMinWidth(s.count() > 0 ? 3 : 0);
                part.setPrefHeight(16);
                Tooltip.install(part, new Tooltip(s.status() + ": " + s.count()));
                bar.getChildren().add(part);
            }
            legend.getChildren().clear();
            for (BatchViewModel.Segment s : vm.segments()) {
                Label key = new Label("■ " + s.status() + " " + s.count());
                key.setId("batchLegend-" + s.status());
                key.getStyleClass().add("status-" + s.status());
                legend.getChildren().add(key);
            }
        };
        vm.segments().addListener((ListChangeListener<BatchViewModel.Segment>) c -> drawBar.run());
        drawBar.run();
        Label summary = new Label();
        summary.setId("batchSummary");
        summary.setWrapText(true);
        summary.textProperty().bind(vm.summaryProperty());
        Label counts = new Label();
        counts.setId("batchCounts");
        counts.textProperty().bind(vm.countsProperty());

        Hyperlink onComplete = new Hyperlink();
        onComplete.setId("batchOnCompleteLink");
        onComplete.textProperty().bind(vm.onCompleteLabelProperty());
        onComplete.setOnAction(e -> vm.openOnCompleteJob());
        Label noOnComplete = new Label("none");
        noOnComplete.visibleProperty().bind(Bindings.isEmpty(vm.onCompleteJobIdProperty()));
        noOnComplete.managedProperty().bind(noOnComplete.visibleProperty());
        onComplete.visibleProperty().bind(noOnComplete.visibleProperty().not());
        onComplete.managedProperty().bind(onComplete.visibleProperty());

        VBox shown = new VBox(8, Views.toolbar(title, status), bar, legend, ended, summary, counts,
                Views.toolbar(new Label("On complete:"), onComplete, noOnComplete));
        shown.visibleProperty().bind(vm.batchProperty().isNotNull());
        shown.managedProperty().bind(shown.visibleProperty());
        VBox.setVgrow(shown, Priority.NEVER);
        getChildren().addAll(Views.toolbar(new Label("Batch"), id, open), inputError, shown,
                Views.message("batchMessage", vm.messageProperty(), vm.failedProperty()));
    }
}
