package io.forgeflow.admin.runs;

import io.forgeflow.admin.fx.Views;
import io.forgeflow.client.Run;
import javafx.collections.FXCollections;
import javafx.collections.transformation.SortedList;
import javafx.geometry.Insets;
import javafx.scene.control.Button;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.Label;
import javafx.scene.control.SplitPane;
import javafx.scene.control.TableView;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;

import java.time.Instant;
import java.util.List;

/**
 * The Runs screen: a virtualised table (only visible rows are drawn, so 10,000 runs stay smooth) beside the run
 * detail. It only binds to {@link RunListViewModel}.
 */
public final class RunListView extends SplitPane {

    public RunListView(RunListViewModel vm) {
        setId("runsView");
        Label job = new Label();
        job.setId("runsJobFilter");
        job.getStyleClass().add("heading");
        job.textProperty().bind(vm.jobFilterLabelProperty());
        Button allJobs = Views.button("runsAllJobs", "Show all jobs", vm::showAllJobs);
        allJobs.disableProperty().bind(vm.jobFilterProperty().isNull());
        ChoiceBox<String> status = new ChoiceBox<>(FXCollections.observableArrayList(RunListViewModel.STATUS_CHOICES));
        status.setId("runStatusFilter");
        status.valueProperty().bindBidirectional(vm.statusFilterProperty());
        Button loadMore = Views.button("runsLoadMore", "Load more", vm::loadMore);
        loadMore.disableProperty().bind(vm.hasMoreProperty().not().or(vm.loadingProperty()));
        Label count = new Label();
        count.setId("runsCount");
        count.textProperty().bind(vm.countProperty());

        TableView<Run> table = new TableView<>();
        table.setId("runsTable");
        SortedList<Run> sorted = new SortedList<>(vm.runs());
        sorted.comparatorProperty().bind(table.comparatorProperty());
        table.setItems(sorted);
        table.setPlaceholder(new Label("No runs."));
        table.getColumns().setAll(List.of(
                Views.column("Run", 82, Run::id),
                Views.column("Job", 115, r -> vm.jobName(r.jobId())),
                Views.statusColumn("Status", 80, Run::status),
                Views.column("Attempt", 70, vm::attemptsOf),
                Views.<Run, Instant>sortedColumn("Scheduled", 112, Run::scheduledFor, vm::timeOf),
                Views.<Run, Instant>sortedColumn("Finished", 112, Run::finishedAt, vm::timeOf),
                Views.column("Worker", 70, r -> r.workerId() == null ? "" : r.workerId())));
        Label zone = new Label("Times in " + vm.zoneName());
        zone.getStyleClass().add("stat-caption");
        table.getSelectionModel().selectedItemProperty().addListener((o, a, run) -> {
            if (run != null && run != vm.selectedProperty().get()) {
                vm.selectedProperty().set(run);
            }
        });
        java.util.function.Consumer<Run> show = run -> {
            if (run != null && table.getSelectionModel().getSelectedItem() != run) {
                table.getSelectionModel().select(run);
                table.scrollTo(run);
            }
        };
        vm.selectedProperty().addListener((o, a, run) -> show.accept(run));
        show.accept(vm.selectedProperty().get()); // this view may be built after a run was opened
        vm.names().addListener((javafx.collections.MapChangeListener<String, String>) c -> table.refresh());
        VBox.setVgrow(table, Priority.ALWAYS);

        VBox left = new VBox(8,
                Views.toolbar(job, allJobs),
                Views.toolbar(new Label("Status"), status, Views.button("runsRefresh", "Refresh", vm::refresh),
                        loadMore, count, Views.spacer(), zone),
                Views.message("runsMessage", vm.messageProperty(), javafx.beans.binding.Bindings.isNotEmpty(
                        vm.messageProperty())),
                table);
        left.setPadding(new Insets(14, 8, 14, 14));
        getItems().addAll(left, new RunDetailView(vm.detail()));
        setDividerPositions(0.55);
    }
}
