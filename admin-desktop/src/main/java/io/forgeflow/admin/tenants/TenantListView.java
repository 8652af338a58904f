package io.forgeflow.admin.tenants;

import io.forgeflow.admin.fx.Views;
import io.forgeflow.admin.tenants.TenantListViewModel.Field;
import io.forgeflow.client.Tenant;
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

/** The tenants and the edit form of the selected one. It only binds to {@link TenantListViewModel}. */
public final class TenantListView extends VBox {
    private final TenantListViewModel vm;
    private final GridPane grid = new GridPane();
    private int row;

    public TenantListView(TenantListViewModel vm) {
        super(10);
        this.vm = vm;
        setId("tenantsView");
        setPadding(new Insets(14));
        BooleanBinding refused = Bindings.isNotEmpty(vm.refusedProperty());

        TableView<Tenant> table = new TableView<>(vm.tenants());
        table.setId("tenantsTable");
        table.setPlaceholder(new Label("No tenants read yet."));
        table.getColumns().setAll(List.of(
                Views.column("Tenant", 180, Tenant::name),
                Views.column("Weight", 70, t -> String.valueOf(t.weight())),
                Views.column("Pending", 80, t -> String.valueOf(t.pending())),
                Views.column("Running", 80, t -> String.valueOf(t.running())),
                Views.column("Limits", 320, TenantListViewModel::limitsOf)));
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
        count.setId("tenantsCount");
        count.textProperty().bind(vm.countProperty());
        Label why = new Label();
        why.setId("tenantsRefused");
        why.setWrapText(true);
        why.getStyleClass().add("message");
        why.textProperty().bind(vm.refusedProperty());
        for (Node n : new Node[] {why}) {
            n.visibleProperty().bind(refused);
            n.managedProperty().bind(refused);
        }

        Label title = Views.heading("");
        title.setId("tenantEditTitle");
        title.textProperty().bind(Bindings.when(Bindings.isEmpty(vm.editingProperty()))
                .then("Select a tenant to change its weight and limits")
                .otherwise(Bindings.concat("Tenant ", vm.editingProperty())));
        grid.setHgap(10);
        grid.setVgap(6);
        add("Weight", field("tenantWeight", vm.weightProperty(), "1 – 1000 (empty: 1)"), Field.WEIGHT);
        add("Max running", field("tenantMaxRunning", vm.maxRunningProperty(), "cluster-wide (empty: no limit)"),
                Field.MAX_RUNNING);
        add("Rate limit", new HBox(8, field("tenantRateCount", vm.rateCountProperty(), "starts"),
                new Label("per"), field("tenantRatePer", vm.ratePerSecondsProperty(), "seconds (empty: none)")),
                Field.RATE_LIMIT);
        Button save = Views.button("saveTenant", "Save", vm::save);
        save.getStyleClass().add("primary");
        save.setDefaultButton(true);
        save.disableProperty().bind(vm.canSaveProperty().not());
        Button revert = Views.button("revertTenant", "Revert", vm::revert);
        revert.disableProperty().bind(Bindings.isEmpty(vm.editingProperty()));
        grid.disableProperty().bind(Bindings.isEmpty(vm.editingProperty()));
        VBox form = new VBox(8, title, grid, Views.toolbar(save, revert),
                Views.message("tenantsMessage", vm.messageProperty(), vm.failedProperty()));
        form.setId("tenantForm");
        form.getStyleClass().add("form-actions");

        Node note = new Label("Weights share the workers' slots among tenants with due runs (weight 3 starts three runs "
                + "for each run of weight 1); limits hold across the cluster. Changing them needs the admin scope; "
                + "an emptied field is the default.");
        ((Label) note).setWrapText(true);
        for (Node n : new Node[] {table, form, note}) {
            n.visibleProperty().bind(refused.not());
            n.managedProperty().bind(refused.not());
        }
        Button refresh = Views.button("tenantsRefresh", "Refresh", vm::refresh);
        refresh.disableProperty().bind(refused.or(vm.loadingProperty()));
        getChildren().addAll(Views.toolbar(Views.heading("Tenants"), count, Views.spacer(), refresh), note, why, table,
                form);
    }

    private void add(String caption, Node input, Field field) {
        Label error = new Label();
        error.setId("tenantError-" + field.name().toLowerCase(Locale.ROOT).replace('_', '-'));
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
