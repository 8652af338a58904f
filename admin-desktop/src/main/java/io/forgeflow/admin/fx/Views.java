package io.forgeflow.admin.fx;

import io.forgeflow.admin.support.Confirmation;
import javafx.beans.binding.Bindings;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.value.ObservableBooleanValue;
import javafx.beans.value.ObservableStringValue;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.Node;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.TableCell;
import javafx.scene.control.TableColumn;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;

import java.util.List;
import java.util.function.Function;

/** Small builders the views share, so each view reads as layout and bindings only. */
public final class Views {
    private static final List<String> STATUS_CLASSES = List.of("status-waiting", "status-pending", "status-running",
            "status-succeeded", "status-dead", "status-cancelled", "status-active", "status-paused", "status-completed",
            "status-failed", "status-timed_out", "status-lease_expired", "status-open", "status-deleted",
            "status-snoozed", "status-gave_up");

    private Views() {
    }

    /** A text column whose value is computed from the row (sorting compares the text). */
    public static <S> TableColumn<S, String> column(String title, double width, Function<S, String> value) {
        TableColumn<S, String> column = new TableColumn<>(title);
        column.setPrefWidth(width);
        column.setCellValueFactory(c -> new ReadOnlyStringWrapper(c.getValue() == null ? "" : value.apply(c.getValue())));
        return column;
    }

    /** A column that sorts by a comparable value and shows it through format. */
    public static <S, T extends Comparable<T>> TableColumn<S, T> sortedColumn(String title, double width,
                                                                              Function<S, T> value,
                                                                              Function<T, String> format) {
        TableColumn<S, T> column = new TableColumn<>(title);
        column.setPrefWidth(width);
        column.setCellValueFactory(c -> new ReadOnlyObjectWrapper<>(c.getValue() == null ? null : value.apply(c.getValue())));
        column.setComparator((a, b) -> a == null ? (b == null ? 0 : 1) : b == null ? -1 : a.compareTo(b));
        column.setCellFactory(c -> new TableCell<>() {
            @Override
            protected void updateItem(T item, boolean empty) {
                super.updateItem(item, empty);
                setText(empty ? null : format.apply(item));
            }
        });
        return column;
    }

    /** A status column: the text coloured by a {@code status-<value>} style class. */
    public static <S> TableColumn<S, String> statusColumn(String title, double width, Function<S, String> status) {
        TableColumn<S, String> column = column(title, width, status);
        column.setCellFactory(c -> new TableCell<>() {
            @Override
            protected void updateItem(String item, boolean empty) {
                super.updateItem(item, empty);
                getStyleClass().removeAll(STATUS_CLASSES);
                setText(empty ? null : item);
                if (!empty && item != null) {
                    getStyleClass().add("status-" + item);
                }
            }
        });
        return column;
    }

    /** Gives the node the {@code status-<value>} style class of status (none for null), dropping any other. */
    public static void styleStatus(Node node, String status) {
        node.getStyleClass().removeAll(STATUS_CLASSES);
        if (status != null && !status.isEmpty()) {
            node.getStyleClass().add("status-" + status);
        }
    }

    /** Keeps a label's {@code status-<value>} style class in step with a status text. */
    public static void styleByStatus(Label label, ObservableStringValue status) {
        Runnable apply = () -> {
            label.getStyleClass().removeAll(STATUS_CLASSES);
            if (status.get() != null && !status.get().isEmpty()) {
                label.getStyleClass().add("status-" + status.get());
            }
        };
        status.addListener((o, a, b) -> apply.run());
        apply.run();
    }

    /** A wrapping message line, red when failed is true, hidden when empty. */
    public static Label message(String id, ObservableStringValue text, ObservableBooleanValue failed) {
        Label label = new Label();
        label.setId(id);
        label.setWrapText(true);
        label.textProperty().bind(text);
        label.visibleProperty().bind(Bindings.isNotEmpty(text));
        label.managedProperty().bind(label.visibleProperty());
        label.getStyleClass().add("message");
        Runnable style = () -> {
            label.getStyleClass().remove("message-error");
            if (failed.get()) {
                label.getStyleClass().add("message-error");
            }
        };
        failed.addListener((o, a, b) -> style.run());
        style.run();
        return label;
    }

    /** A yes/no bar for a pending destructive action; the confirm button has id {@code <prefix>Yes}. */
    public static HBox confirmationBar(String prefix, ReadOnlyObjectProperty<Confirmation> confirmation,
                                       Runnable confirm, Runnable dismiss) {
        Label question = new Label();
        question.setWrapText(true);
        question.setId(prefix + "Question");
        question.textProperty().bind(Bindings.createStringBinding(
                () -> confirmation.get() == null ? "" : confirmation.get().question(), confirmation));
        Button yes = new Button();
        yes.setId(prefix + "Yes");
        yes.getStyleClass().add("danger");
        yes.textProperty().bind(Bindings.createStringBinding(
                () -> confirmation.get() == null ? "" : confirmation.get().confirmLabel(), confirmation));
        yes.setOnAction(e -> confirm.run());
        Button no = new Button("Keep it");
        no.setId(prefix + "No");
        no.setOnAction(e -> dismiss.run());
        HBox.setHgrow(question, Priority.ALWAYS);
        HBox bar = new HBox(8, question, yes, no);
        bar.setId(prefix + "Bar");
        bar.setAlignment(Pos.CENTER_LEFT);
        bar.setPadding(new Insets(8));
        bar.getStyleClass().add("confirmation");
        bar.visibleProperty().bind(confirmation.isNotNull());
        bar.managedProperty().bind(bar.visibleProperty());
        return bar;
    }

    public static Button button(String id, String text, Runnable action) {
        Button button = new Button(text);
        button.setId(id);
        button.setOnAction(e -> action.run());
        return button;
    }

    /** Stretches to push what follows to the right of an HBox. */
    public static Region spacer() {
        Region spacer = new Region();
        HBox.setHgrow(spacer, Priority.ALWAYS);
        return spacer;
    }

    public static Label heading(String text) {
        Label label = new Label(text);
        label.getStyleClass().add("heading");
        return label;
    }

    public static HBox toolbar(Node... nodes) {
        HBox bar = new HBox(8, nodes);
        bar.setAlignment(Pos.CENTER_LEFT);
        bar.getStyleClass().add("toolbar");
        return bar;
    }
}
