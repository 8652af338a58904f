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
import javafx.scene.control.TextField;
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
        TextField jobId = filterField("runJobIdFilter", "Job id", 9, vm.jobIdFilterProperty(), vm);
        TextField queue = filterField("runQueueFilter", "Queue", 8, vm.queueFilterProperty(), vm);
        TextField labels = filterField("runLabelFilter", "Labels: team:ops", 11, vm.labelFilterProperty(), vm);
        // times are read in the zone the "Times in ..." label names
        TextField after = filterField("runScheduledAfter", "Scheduled after", 10, vm.scheduledAfterProperty(), vm);
        TextField before = filterField("runScheduledBefore", "Scheduled before", 10, vm.scheduledBeforeProperty(), vm);
        TextField finished = filterField("runFinishedAfter", "Finished after", 10, vm.finishedAfterProperty(), vm);
        for (TextField time : List.of(after, before, finished)) {
            time.setTooltip(new javafx.scene.control.Tooltip("2026-07-01 09:30 or 2026-07-01 (in " + vm.zoneName()
                    + "), or 2026-07-01T09:30:00Z"));
        }
        Button apply = Views.button("runsApplyFilter", "Filter", vm::applyFilters);
        apply.setMinWidth(javafx.scene.layout.Region.USE_PREF_SIZE);
        Button clear = Views.button("runsClearFilter", "Clear", vm::clearFilters);
        clear.setMinWidth(javafx.scene.layout.Region.USE_PREF_SIZE);
        Label filterError = Views.message("runFilterError", vm.filterErrorProperty(),
                javafx.beans.binding.Bindings.isNotEmpty(vm.filterErrorProperty()));
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
        var tenant = Views.column("Tenant", 80, RunListViewModel::tenantOf);
        tenant.setId("runTenantColumn");
        tenant.visibleProperty().bind(vm.tenantColumnVisibleProperty());
        table.getColumns().setAll(List.of(
                Views.column("Run", 82, Run::id),
                Views.column("Job", 115, r -> vm.jobName(r.jobId())),
                tenant,
                Views.statusColumn("Status", 80, Run::status),
                Views.column("Attempt", 70, vm::attemptsOf),
                Views.<Run, Instant>sortedColumn("Scheduled", 112, Run::scheduledFor, vm::timeOf),
                Views.<Run, Instant>sortedColumn("Finished", 112, Run::finishedAt, vm::timeOf),
                Views.column("Worker", 70, r -> r.workerId() == null ? "" : r.workerId()),
                Views.column("Trace", 110, vm::traceOf)));
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
                Views.toolbar(new Label("Status"), status, jobId, queue, labels),
                Views.toolbar(after, before, finished, apply, clear),
                filterError,
                Views.toolbar(Views.button("runsRefresh", "Refresh", vm::refresh), loadMore, count, Views.spacer(), zone),
                Views.message("runsMessage", vm.messageProperty(), javafx.beans.binding.Bindings.isNotEmpty(
                        vm.messageProperty())),
                table);
        left.setPadding(new Insets(14, 8, 14, 14));
        getItems().addAll(left, new RunDetailView(vm.detail()));
        setDividerPositions(0.55);
    }

    /** A filter text field; Enter applies the filters. */
    private static TextField filterField(String id, String prompt, int columns, javafx.beans.property.StringProperty
            property, RunListViewModel vm) {
        TextField field = new TextField();
        field.setId(id);
        field.setPromptText(prompt);
        field.setPrefColumnCount(columns);
        field.textProperty().bindBidirectional(property);
        field.setOnAction(e -> vm.applyFilters());
        return field;
    }
}
