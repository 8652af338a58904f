package io.forgeflow.admin.jobs;

import io.forgeflow.admin.fx.Views;
import io.forgeflow.client.Job;
import javafx.collections.FXCollections;
import javafx.collections.transformation.SortedList;
import javafx.geometry.Insets;
import javafx.scene.control.Button;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.Label;
import javafx.scene.control.TableRow;
import javafx.scene.control.TableView;
import javafx.scene.control.TextField;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;

import java.util.List;

/** The Jobs screen. It only binds controls to {@link JobListViewModel}. */
public final class JobListView extends VBox {

    public JobListView(JobListViewModel vm) {
        super(10);
        setId("jobsView");
        setPadding(new Insets(14));

        TextField name = filterField("jobNamePrefix", "Name starts with…", 14, vm.namePrefixProperty(), vm);
        ChoiceBox<String> status = new ChoiceBox<>(FXCollections.observableArrayList(JobListViewModel.STATUS_CHOICES));
        status.setId("jobStatusFilter");
        status.valueProperty().bindBidirectional(vm.statusFilterProperty());
        TextField queue = filterField("jobQueueFilter", "Queue", 9, vm.queueFilterProperty(), vm);
        TextField labels = filterField("jobLabelFilter", "Labels: team:ops, env:prod", 16, vm.labelFilterProperty(), vm);
        Button apply = Views.button("jobsApplyFilter", "Filter", vm::applyFilters);
        Button clear = Views.button("jobsClearFilter", "Clear", vm::clearFilters);
        Label filterError = Views.message("jobFilterError", vm.filterErrorProperty(),
                javafx.beans.binding.Bindings.isNotEmpty(vm.filterErrorProperty()));
        Button loadMore = Views.button("jobsLoadMore", "Load more", vm::loadMore);
        loadMore.disableProperty().bind(vm.hasMoreProperty().not().or(vm.loadingProperty()));
        Label count = new Label();
        count.setId("jobsCount");
        count.textProperty().bind(vm.countProperty());
        Button newJob = Views.button("newJob", "New job…", vm::newJob);
        newJob.getStyleClass().add("primary");

        TableView<Job> table = new TableView<>();
        table.setId("jobsTable");
        SortedList<Job> sorted = new SortedList<>(vm.visibleJobs());
        sorted.comparatorProperty().bind(table.comparatorProperty());
        table.setItems(sorted);
        table.setPlaceholder(new Label("No jobs. Submit one with New job…"));
        // shown only while a loaded job is outside the default tenant: one tenant looks as it always did
        var tenant = Views.column("Tenant", 90, JobListViewModel::tenantOf);
        tenant.setId("jobTenantColumn");
        tenant.visibleProperty().bind(vm.tenantColumnVisibleProperty());
        table.getColumns().setAll(List.of(
                Views.column("Name", 190, Job::name),
                tenant,
                Views.column("Executor", 80, Job::executor),
                Views.column("Schedule (in its time zone)", 230, vm::scheduleOf),
                Views.column("Next run (local)", 190, vm::nextRunLocalOf),
                Views.column("Next run (UTC)", 160, vm::nextRunUtcOf),
                Views.statusColumn("Status", 90, Job::status),
                Views.column("Schedule state", 220, vm::statusOf),
                Views.column("Window", 200, vm::windowOf),
                Views.column("Notices", 220, vm::noticesOf),
                Views.sortedColumn("Priority", 70, Job::priority, p -> Integer.toString(p)),
                Views.column("Queue", 90, Job::queue),
                Views.column("Labels", 160, j -> io.forgeflow.admin.support.LabelText.format(j.labels())),
                Views.column("Sequence", 120, j -> j.sequenceKey() == null ? "" : j.sequenceKey())));
        table.setRowFactory(t -> {
            TableRow<Job> row = new TableRow<>();
            row.setOnMouseClicked(e -> {
                if (e.getClickCount() == 2 && !row.isEmpty()) {
                    vm.showRunsOfSelected();
                }
            });
            return row;
        });
        table.getSelectionModel().selectedItemProperty().addListener((o, a, job) -> {
            if (job != vm.selectedProperty().get()) {
                vm.selectedProperty().set(job);
            }
        });
        java.util.function.Consumer<Job> show = job -> {
            if (table.getSelectionModel().getSelectedItem() != job) {
                if (job == null) {
                    table.getSelectionModel().clearSelection();
                } else {
                    table.getSelectionModel().select(job);
                }
            }
        };
        vm.selectedProperty().addListener((o, a, job) -> show.accept(job));
        show.accept(vm.selectedProperty().get()); // this view may be built after a job was selected
        VBox.setVgrow(table, Priority.ALWAYS);

        Button edit = Views.button("editJob", "Edit…", vm::editSelected);
        edit.disableProperty().bind(vm.canEditProperty().not());
        Button runs = Views.button("showJobRuns", "Runs", vm::showRunsOfSelected);
        runs.disableProperty().bind(vm.hasSelectionProperty().not());
        Button trigger = Views.button("triggerJob", "Trigger now", vm::triggerSelected);
        trigger.disableProperty().bind(vm.canTriggerProperty().not());
        javafx.scene.control.TextField pauseNote = new javafx.scene.control.TextField();
        pauseNote.setId("pauseNote");
        pauseNote.setPromptText("pause note (why)");
        pauseNote.textProperty().bindBidirectional(vm.pauseNoteProperty());
        Button pause = Views.button("pauseJob", "Pause", vm::pauseSelected);
        pause.disableProperty().bind(vm.canPauseProperty().not());
        Button resume = Views.button("resumeJob", "Resume", vm::resumeSelected);
        resume.disableProperty().bind(vm.canResumeProperty().not());
        Button cancel = Views.button("cancelJob", "Cancel job…", vm::cancelSelected);
        cancel.getStyleClass().add("danger");
        cancel.disableProperty().bind(vm.canCancelProperty().not());
        Button delete = Views.button("deleteJob", "Delete job…", vm::deleteSelected);
        delete.getStyleClass().add("danger");
        delete.disableProperty().bind(vm.canDeleteProperty().not());

        getChildren().addAll(
                Views.toolbar(name, status, queue, labels, apply, clear, Views.spacer(), newJob),
                filterError,
                Views.toolbar(Views.button("jobsRefresh", "Refresh", vm::refresh), loadMore, count),
                table,
                Views.toolbar(new Label("Selected job:"), edit, runs, trigger, pauseNote, pause, resume, Views.spacer(), cancel, delete),
                backfillBar(vm.backfill()),
                Views.confirmationBar("jobConfirm", vm.confirmationProperty(), vm::confirm, vm::dismiss),
                Views.message("jobsMessage", vm.messageProperty(), vm.failedProperty()));
    }

    /**
     * Backfill of the selected recurring job: from, to, overlap, the button, each field's error, the answer and, as the
     * screen polls, how far its runs have got.
     */
    private static javafx.scene.Node backfillBar(BackfillViewModel bf) {
        TextField from = new TextField();
        from.setId("backfillFrom");
        from.setPromptText("from: 2026-07-01T00:00:00Z");
        from.setPrefColumnCount(16);
        from.textProperty().bindBidirectional(bf.fromProperty());
        TextField to = new TextField();
        to.setId("backfillTo");
        to.setPromptText("to (included)");
        to.setPrefColumnCount(16);
        to.textProperty().bindBidirectional(bf.toProperty());
        ChoiceBox<String> overlap = new ChoiceBox<>(FXCollections.observableArrayList(
                BackfillViewModel.OVERLAP_CHOICES));
        overlap.setId("backfillOverlap");
        overlap.valueProperty().bindBidirectional(bf.overlapProperty());
        Button run = Views.button("backfillJob", "Backfill", bf::backfill);
        run.disableProperty().bind(bf.canBackfillProperty().not());
        javafx.scene.layout.HBox bar = Views.toolbar(new Label("Backfill the selected recurring job:"),
                withError(from, bf, BackfillViewModel.Field.FROM), withError(to, bf, BackfillViewModel.Field.TO),
                withError(overlap, bf, BackfillViewModel.Field.OVERLAP), run);
        bar.setAlignment(javafx.geometry.Pos.TOP_LEFT);
        javafx.scene.control.ProgressBar progress = new javafx.scene.control.ProgressBar();
        progress.setId("backfillProgress");
        progress.setPrefWidth(260);
        progress.progressProperty().bind(bf.progressProperty());
        progress.visibleProperty().bind(bf.resultProperty().isNotNull());
        progress.managedProperty().bind(progress.visibleProperty());
        return new VBox(4, bar, progress, Views.message("backfillMessage", bf.messageProperty(), bf.failedProperty()));
    }

    private static VBox withError(javafx.scene.Node input, BackfillViewModel bf, BackfillViewModel.Field field) {
        Label error = new Label();
        error.setId("backfill-error-" + field.name().toLowerCase(java.util.Locale.ROOT));
        error.getStyleClass().add("field-error");
        error.setWrapText(true);
        error.setMaxWidth(260);
        error.textProperty().bind(bf.errorProperty(field));
        error.visibleProperty().bind(javafx.beans.binding.Bindings.isNotEmpty(bf.errorProperty(field)));
        error.managedProperty().bind(error.visibleProperty());
        return new VBox(2, input, error);
    }

    /** A filter text field; Enter applies the filters. */
    private static TextField filterField(String id, String prompt, int columns, javafx.beans.property.StringProperty
            property, JobListViewModel vm) {
        TextField field = new TextField();
        field.setId(id);
        field.setPromptText(prompt);
        field.setPrefColumnCount(columns);
        field.textProperty().bindBidirectional(property);
        field.setOnAction(e -> vm.applyFilters());
        return field;
    }
}
