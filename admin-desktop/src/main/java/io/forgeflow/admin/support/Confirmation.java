package io.forgeflow.admin.support;

import java.util.Objects;

/**
 * A destructive action waiting for the operator's yes: the view shows the question with a confirm button labelled
 * confirmLabel, then calls the view model's confirm or dismiss.
 */
public record Confirmation(String question, String confirmLabel, Runnable onConfirm) {

    public Confirmation {
        Objects.requireNonNull(question, "question");
        Objects.requireNonNull(confirmLabel, "confirmLabel");
        Objects.requireNonNull(onConfirm, "onConfirm");
    }
}
