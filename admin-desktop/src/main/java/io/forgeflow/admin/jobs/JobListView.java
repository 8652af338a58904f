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

        TextField filter = new TextField();
        filter.setId("jobFilter");
        filter.setPromptText("Filter by name, executor, cron or status");
        filter.setPrefColumnCount(26);
        filter.textProperty().bindBidirectional(vm.filterTextProperty());
        ChoiceBox<String> status = new ChoiceBox<>(FXCollections.observableArrayList(JobListViewModel.STATUS_CHOICES));
        status.setId("jobStatusFilter");
        status.valueProperty().bindBidirectional(vm.statusFilterProperty());
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
        table.getColumns().setAll(List.of(
                Views.column("Name", 190, Job::name),
                Views.column("Executor", 80, Job::executor),
                Views.column("Schedule (in its time zone)", 230, vm::scheduleOf),
                Views.column("Next run (local)", 190, vm::nextRunLocalOf),
                Views.column("Next run (UTC)", 160, vm::nextRunUtcOf),
                Views.statusColumn("Status", 90, Job::status),
                Views.sortedColumn("Priority", 70, Job::priority, p -> Integer.toString(p))));
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

        Button runs = Views.button("showJobRuns", "Runs", vm::showRunsOfSelected);
        runs.disableProperty().bind(vm.hasSelectionProperty().not());
        Button trigger = Views.button("triggerJob", "Trigger now", vm::triggerSelected);
        trigger.disableProperty().bind(vm.canTriggerProperty().not());
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
                Views.toolbar(filter, status, Views.button("jobsRefresh", "Refresh", vm::refresh), loadMore, count,
                        Views.spacer(), newJob),
                table,
                Views.toolbar(new Label("Selected job:"), runs, trigger, pause, resume, Views.spacer(), cancel, delete),
                Views.confirmationBar("jobConfirm", vm.confirmationProperty(), vm::confirm, vm::dismiss),
                Views.message("jobsMessage", vm.messageProperty(), vm.failedProperty()));
    }
}
