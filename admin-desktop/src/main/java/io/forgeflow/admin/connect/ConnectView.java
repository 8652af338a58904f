package io.forgeflow.admin.connect;

import io.forgeflow.admin.fx.Views;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.control.Button;
import javafx.scene.control.CheckBox;
import javafx.scene.control.Label;
import javafx.scene.control.PasswordField;
import javafx.scene.control.ProgressIndicator;
import javafx.scene.control.TextField;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.StackPane;
import javafx.scene.layout.VBox;

/** The connect screen. It only binds controls to {@link ConnectionViewModel}. */
public final class ConnectView extends StackPane {

    public ConnectView(ConnectionViewModel vm) {
        setId("connectView");
        Label title = new Label("ForgeFlow operations console");
        title.setId("title");
        title.getStyleClass().add("title");
        Label hint = new Label("Connect to any node of the cluster that serves the REST API.");

        TextField url = new TextField();
        url.setId("serverUrl");
        url.setPromptText(ConnectionViewModel.DEFAULT_URL);
        url.textProperty().bindBidirectional(vm.serverUrlProperty());
        url.setPrefColumnCount(28);

        PasswordField token = new PasswordField();
        token.setId("apiToken");
        token.setPromptText("optional");
        token.textProperty().bindBidirectional(vm.tokenProperty());

        TextField tenant = new TextField();
        tenant.setId("tenant");
        tenant.setPromptText("optional: all tenants");
        tenant.textProperty().bindBidirectional(vm.tenantProperty());
        tenant.setOnAction(e -> vm.connect());
        Label tenantHint = new Label("A tenant name (e.g. acme) shows and submits in that tenant only "
                + "(X-ForgeFlow-Tenant); empty: every tenant. A tenant-bound token always acts in its own.");
        tenantHint.getStyleClass().add("stat-caption");
        tenantHint.setWrapText(true);
        tenantHint.setMaxWidth(420);

        CheckBox remember = new CheckBox("Remember the token on this computer");
        remember.setId("rememberToken");
        remember.selectedProperty().bindBidirectional(vm.rememberTokenProperty());

        TextField trace = new TextField();
        trace.setId("traceUrlTemplate");
        trace.setPromptText("optional: http://jaeger:16686/trace/{trace_id}");
        trace.textProperty().bindBidirectional(vm.traceUrlTemplateProperty());
        Label traceHint = new Label("Used when the node sends no trace link (FORGEFLOW_TRACE_URL_TEMPLATE unset).");
        traceHint.getStyleClass().add("stat-caption");

        Button connect = new Button();
        connect.setId("connectButton");
        connect.setDefaultButton(true);
        connect.textProperty().bind(vm.connectLabelProperty());
        connect.disableProperty().bind(vm.canConnectProperty().not());
        connect.setOnAction(e -> vm.connect());
        url.setOnAction(e -> vm.connect());
        token.setOnAction(e -> vm.connect());

        ProgressIndicator spinner = new ProgressIndicator();
        spinner.setPrefSize(18, 18);
        spinner.visibleProperty().bind(vm.busyProperty());

        GridPane form = new GridPane();
        form.setHgap(10);
        form.setVgap(10);
        form.addRow(0, new Label("Server URL"), url);
        form.addRow(1, new Label("API token"), token);
        form.add(remember, 1, 2);
        HBox actions = new HBox(10, connect, spinner);
        actions.setAlignment(Pos.CENTER_LEFT);
        form.addRow(3, new Label("Tenant"), tenant);
        form.add(tenantHint, 1, 4);
        form.addRow(5, new Label("Trace viewer"), trace);
        form.add(traceHint, 1, 6);
        form.add(actions, 1, 7);

        Label message = Views.message("connectMessage", vm.messageProperty(), vm.failedProperty());
        message.setMaxWidth(520);

        VBox card = new VBox(14, title, hint, form, message);
        card.getStyleClass().add("card");
        card.setPadding(new Insets(28));
        card.setMaxSize(600, USE_PREF_SIZE);
        setAlignment(Pos.CENTER);
        getChildren().add(card);
    }
}
