package io.forgeflow.admin.jobs;

import io.forgeflow.admin.fx.Views;
import io.forgeflow.admin.jobs.JobFormViewModel.Field;
import io.forgeflow.admin.jobs.JobFormViewModel.ScheduleMode;
import javafx.beans.binding.Bindings;
import javafx.beans.binding.BooleanBinding;
import javafx.beans.property.StringProperty;
import javafx.collections.FXCollections;
import javafx.geometry.Insets;
import javafx.scene.Node;
import javafx.scene.control.Button;
import javafx.scene.control.CheckBox;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.ListView;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.TextArea;
import javafx.scene.control.TextField;
import javafx.scene.control.TextInputControl;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.ColumnConstraints;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.Priority;
import javafx.scene.layout.HBox;
import javafx.scene.layout.VBox;

import java.time.ZoneId;
import java.util.Locale;

/**
 * The job form (submit or edit). The fields scroll; the actions and the message stay in view below them. It only binds
 * controls to {@link JobFormViewModel}.
 */
public final class JobFormView extends BorderPane {
    private final JobFormViewModel vm;
    private final GridPane grid = new GridPane();
    private int row;

    public JobFormView(JobFormViewModel vm) {
        this.vm = vm;
        setId("jobFormView");
        ScrollPane scroll = new ScrollPane(grid);
        scroll.setFitToWidth(true);
        grid.setHgap(12);
        grid.setVgap(6);
        grid.setPadding(new Insets(16));
        ColumnConstraints labels = new ColumnConstraints(150);
        ColumnConstraints inputs = new ColumnConstraints();
        inputs.setHgrow(Priority.ALWAYS);
        inputs.setMaxWidth(640);
        grid.getColumnConstraints().setAll(labels, inputs);

        BooleanBinding shell = vm.executorProperty().isEqualTo("shell");
        BooleanBinding http = vm.executorProperty().isEqualTo("http");
        BooleanBinding cron = vm.scheduleModeProperty().isEqualTo(ScheduleMode.CRON);
        BooleanBinding once = vm.scheduleModeProperty().isEqualTo(ScheduleMode.ONCE);

        BooleanBinding editing = vm.modeProperty().isEqualTo(JobFormViewModel.Mode.EDIT);
        Label heading = Views.heading("Submit a job");
        heading.setId("formTitle");
        heading.textProperty().bind(vm.titleProperty());
        grid.add(heading, 0, row++, 2, 1);
        add("Name", field("jobName", vm.nameProperty(), "nightly-report"), Field.NAME, null);
        ChoiceBox<String> executor = new ChoiceBox<>(FXCollections.observableArrayList(JobFormViewModel.EXECUTORS));
        executor.setId("jobExecutor");
        executor.valueProperty().bindBidirectional(vm.executorProperty());
        executor.visibleProperty().bind(editing.not());
        executor.managedProperty().bind(executor.visibleProperty());
        TextField fixedExecutor = readOnly("jobExecutorFixed", vm.executorProperty(), editing);
        add("Executor", new VBox(2, executor, fixedExecutor, fixedNote(editing, "fixed at submission")),
                Field.EXECUTOR, null);
        add("Command", field("jobCommand", vm.commandProperty(), "/bin/sh -c … e.g. echo hello"), Field.COMMAND, shell);
        add("URL", field("jobUrl", vm.urlProperty(), "https://example.com/hook"), Field.URL, http);
        ChoiceBox<String> method = new ChoiceBox<>(FXCollections.observableArrayList(JobFormViewModel.HTTP_METHODS));
        method.setId("jobMethod");
        method.valueProperty().bindBidirectional(vm.methodProperty());
        add("Method", method, Field.METHOD, http);
        add("Headers (JSON)", area("jobHeaders", vm.headersProperty(), "{\"Authorization\": \"Bearer …\"}"),
                Field.HEADERS, http);
        add("Body (JSON)", area("jobBody", vm.bodyProperty(), "{\"report\": \"daily\"}"), Field.BODY, http);

        ChoiceBox<ScheduleMode> mode = new ChoiceBox<>(FXCollections.observableArrayList(ScheduleMode.values()));
        mode.setId("jobScheduleMode");
        mode.valueProperty().bindBidirectional(vm.scheduleModeProperty());
        // a recurring job stays recurring (the server refuses otherwise)
        mode.disableProperty().bind(Bindings.createBooleanBinding(() -> vm.editingProperty().get() != null
                && vm.editingProperty().get().cronExpr() != null, vm.editingProperty()));
        add("When", mode, null, null);
        TextField cronField = field("jobCron", vm.cronExprProperty(), "*/5 * * * *   or   @daily");
        Label cronStatus = new Label();
        cronStatus.setId("cronStatus");
        cronStatus.textProperty().bind(vm.cronStatusProperty());
        ListView<String> preview = new ListView<>(vm.cronPreview());
        preview.setId("cronPreview");
        preview.setPrefHeight(5 * 26 + 4);
        preview.setFocusTraversable(false);
        preview.visibleProperty().bind(Bindings.isNotEmpty(vm.cronPreview()));
        preview.managedProperty().bind(preview.visibleProperty());
        add("Cron", new VBox(4, cronField, cronStatus, preview), Field.CRON, cron);
        add("Run at", field("jobRunAt", vm.runAtProperty(), "2026-07-01 09:30 (in the time zone below)"),
                Field.RUN_AT, once);
        ComboBox<String> zone = new ComboBox<>(FXCollections.observableArrayList(
                ZoneId.getAvailableZoneIds().stream().sorted().toList()));
        zone.setId("jobTimezone");
        zone.setEditable(true);
        zone.getEditor().textProperty().bindBidirectional(vm.timezoneProperty());
        add("Time zone", zone, Field.TIMEZONE, null);
        add("Priority", small("jobPriority", vm.priorityProperty(), "1 (highest) – 9"), Field.PRIORITY, null);
        add("Max attempts", small("jobMaxAttempts", vm.maxAttemptsProperty(), "1 – 100"), Field.MAX_ATTEMPTS, null);
        add("Timeout (s)", small("jobTimeout", vm.timeoutSecondsProperty(), "1 – 86400"), Field.TIMEOUT, null);
        ChoiceBox<String> catchUp = new ChoiceBox<>(FXCollections.observableArrayList(
                JobFormViewModel.CATCH_UP_CHOICES));
        catchUp.setId("jobCatchUp");
        catchUp.valueProperty().bindBidirectional(vm.catchUpProperty());
        add("Missed ticks", catchUp, Field.CATCH_UP, cron);
        add("Queue", small("jobQueue", vm.queueProperty(), "default"), Field.QUEUE, null);
        add("Concurrency key", field("jobConcurrencyKey", vm.concurrencyKeyProperty(),
                "optional: runs sharing the key count against max concurrent"), Field.CONCURRENCY_KEY, null);
        add("Max concurrent", small("jobMaxConcurrent", vm.maxConcurrentProperty(), "1 – 10000"),
                Field.MAX_CONCURRENT, null);
        ChoiceBox<String> overlap = new ChoiceBox<>(FXCollections.observableArrayList(
                JobFormViewModel.OVERLAP_CHOICES));
        overlap.setId("jobOverlap");
        overlap.valueProperty().bindBidirectional(vm.overlapProperty());
        add("Overlap", overlap, Field.OVERLAP, cron);
        add("Start at", field("jobStartAt", vm.startAtProperty(), "optional, RFC 3339: 2026-07-01T00:00:00Z"),
                Field.START_AT, cron);
        add("End at", field("jobEndAt", vm.endAtProperty(), "optional, RFC 3339: the job completes after it"),
                Field.END_AT, cron);
        add("Max runs", small("jobMaxRuns", vm.maxRunsProperty(), "optional: 1 – 1000000"), Field.MAX_RUNS, cron);
        add("Jitter (s)", small("jobJitter", vm.jitterSecondsProperty(), "optional: 0 – 86400"), Field.JITTER, cron);
        add("Pause after failures", small("jobPauseAfterFailures", vm.pauseAfterFailuresProperty(),
                "optional: 1 – 1000 dead in a row"), Field.PAUSE_AFTER_FAILURES, cron);
        add("Labels", field("jobLabels", vm.labelsProperty(), "team:ops, env:prod"), Field.LABELS, null);
        add("Notify URL", field("jobNotifyUrl", vm.notifyUrlProperty(),
                "optional: a webhook told when the job needs a person (empty: none)"), Field.NOTIFY_URL, null);
        CheckBox dead = new CheckBox("dead");
        dead.setId("jobNotifyDead");
        dead.selectedProperty().bindBidirectional(vm.notifyDeadProperty());
        CheckBox paused = new CheckBox("paused");
        paused.setId("jobNotifyPaused");
        paused.selectedProperty().bindBidirectional(vm.notifyPausedProperty());
        CheckBox recovered = new CheckBox("recovered");
        recovered.setId("jobNotifyRecovered");
        recovered.selectedProperty().bindBidirectional(vm.notifyRecoveredProperty());
        HBox events = new HBox(12, dead, paused, recovered);
        events.disableProperty().bind(Bindings.isEmpty(vm.notifyUrlProperty()));
        add("Notify on", events, Field.NOTIFY_ON, null);
        addFlowControl(vm.flowControl(), editing);
        BooleanBinding submitting = editing.not();
        add("Parents", field("jobParents", vm.parentsProperty(),
                "optional: job ids it waits for, e.g. 0190f3c2-…, 0190f3c3-…"), Field.PARENTS, submitting);
        ChoiceBox<String> policy = new ChoiceBox<>(FXCollections.observableArrayList(
                JobFormViewModel.ON_PARENT_FAILURE_CHOICES));
        policy.setId("jobOnParentFailure");
        policy.valueProperty().bindBidirectional(vm.onParentFailureProperty());
        policy.disableProperty().bind(Bindings.isEmpty(vm.parentsProperty()));
        Label policyNote = new Label("cancel: a dead or cancelled parent cancels it · run: runs once all ended · "
                + "wait: until all succeeded");
        policyNote.getStyleClass().add("stat-caption");
        policyNote.setWrapText(true);
        add("On parent failure", new VBox(2, policy, policyNote), Field.ON_PARENT_FAILURE, submitting);
        add("Tenant", field("jobTenant", vm.tenantProperty(),
                "optional: the tenant it belongs to, e.g. acme (empty: the connection's, else default)"),
                Field.TENANT, submitting);
        TextField key = field("jobIdempotencyKey", vm.idempotencyKeyProperty(),
                "optional: resubmitting with the same key never makes a second job");
        key.editableProperty().bind(editing.not());
        key.promptTextProperty().bind(Bindings.when(editing).then("none")
                .otherwise("optional: resubmitting with the same key never makes a second job"));
        add("Idempotency key", new VBox(2, key, fixedNote(editing, "fixed at submission")), Field.IDEMPOTENCY_KEY,
                null);
        CheckBox keep = new CheckBox("Keep pending runs as they are (their priority, queue, payload and labels)");
        keep.setId("jobKeepPending");
        keep.selectedProperty().bindBidirectional(vm.keepPendingProperty());
        keep.visibleProperty().bind(editing);
        keep.managedProperty().bind(editing);

        Button submit = Views.button("submitJob", "Submit job", vm::submit);
        submit.textProperty().bind(vm.actionLabelProperty());
        submit.getStyleClass().add("primary");
        submit.setDefaultButton(true);
        submit.disableProperty().bind(vm.submittingProperty());
        Button clear = Views.button("resetForm", "Clear", vm::reset);
        clear.textProperty().bind(Bindings.when(editing).then("New job instead").otherwise("Clear"));
        Button reload = Views.button("reloadEditedJob", "Reload the job", vm::reloadEdited);
        reload.visibleProperty().bind(vm.canReloadProperty());
        reload.managedProperty().bind(reload.visibleProperty());
        Button runs = Views.button("formViewRuns", "View its runs", vm::showRunsOfSubmitted);
        runs.visibleProperty().bind(vm.submittedProperty().isNotNull());
        Label message = Views.message("formMessage", vm.messageProperty(), vm.failedProperty());
        message.setMaxWidth(800);
        VBox actions = new VBox(6, keep, Views.toolbar(submit, clear, reload, runs), message);
        actions.setPadding(new Insets(10, 16, 12, 178));
        actions.getStyleClass().add("form-actions");
        setCenter(scroll);
        setBottom(actions);
    }

    /** Debounce (a new job only: it cannot change) and throttle (README "Flow control"). */
    private void addFlowControl(FlowControlForm flow, BooleanBinding editing) {
        ChoiceBox<String> edge = new ChoiceBox<>(FXCollections.observableArrayList(FlowControlForm.EDGES));
        edge.setId("jobDebounceEdge");
        edge.valueProperty().bindBidirectional(flow.debounceEdgeProperty());
        add("Debounce", new VBox(4,
                field("jobDebounceKey", flow.debounceKeyProperty(), "optional: key, e.g. user-42 (runs once, now)"),
                new javafx.scene.layout.HBox(8, small("jobDebouncePeriod", flow.debouncePeriodProperty(),
                        "period (s)"), small("jobDebounceMaxWait", flow.debounceMaxWaitProperty(),
                        "max wait (s)"), edge)), Field.DEBOUNCE, editing.not());
        add("Throttle", new javafx.scene.layout.HBox(8,
                field("jobThrottleKey", flow.throttleKeyProperty(), "optional: key, e.g. partner-api:account-7"),
                small("jobThrottleCount", flow.throttleCountProperty(), "starts"),
                small("jobThrottlePer", flow.throttlePerProperty(), "per (s)")), Field.THROTTLE, null);
    }

    private void add(String caption, Node input, Field field, BooleanBinding shownWhen) {
        Label label = new Label(caption);
        VBox box = new VBox(2, input);
        if (field != null) {
            Label error = new Label();
            error.setId("error-" + field.name().toLowerCase(Locale.ROOT).replace('_', '-'));
            error.getStyleClass().add("field-error");
            error.setWrapText(true);
            error.textProperty().bind(vm.errorProperty(field));
            error.visibleProperty().bind(Bindings.isNotEmpty(vm.errorProperty(field)));
            error.managedProperty().bind(error.visibleProperty());
            box.getChildren().add(error);
        }
        if (shownWhen != null) {
            for (Node n : new Node[] {label, box}) {
                n.visibleProperty().bind(shownWhen);
                n.managedProperty().bind(shownWhen);
            }
        }
        grid.add(label, 0, row);
        grid.add(box, 1, row++);
    }

    private static TextField readOnly(String id, StringProperty property, BooleanBinding shownWhen) {
        TextField field = new TextField();
        field.setId(id);
        field.setEditable(false);
        field.setMaxWidth(160);
        field.textProperty().bind(property);
        field.visibleProperty().bind(shownWhen);
        field.managedProperty().bind(shownWhen);
        return field;
    }

    private static Label fixedNote(BooleanBinding shownWhen, String text) {
        Label note = new Label(text);
        note.getStyleClass().add("stat-caption");
        note.visibleProperty().bind(shownWhen);
        note.managedProperty().bind(shownWhen);
        return note;
    }

    private static TextField field(String id, StringProperty property, String prompt) {
        TextField field = new TextField();
        bind(field, id, property, prompt);
        return field;
    }

    private static TextField small(String id, StringProperty property, String prompt) {
        TextField field = field(id, property, prompt);
        field.setMaxWidth(160);
        return field;
    }

    private static TextArea area(String id, StringProperty property, String prompt) {
        TextArea area = new TextArea();
        area.setPrefRowCount(3);
        bind(area, id, property, prompt);
        return area;
    }

    private static void bind(TextInputControl control, String id, StringProperty property, String prompt) {
        control.setId(id);
        control.setPromptText(prompt);
        control.textProperty().bindBidirectional(property);
    }
}
