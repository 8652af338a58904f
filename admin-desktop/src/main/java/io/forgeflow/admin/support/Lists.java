package io.forgeflow.admin.support;

import javafx.collections.ObservableList;

import java.util.List;

/** What every polled list of a view model shares. */
public final class Lists {
    private Lists() {
    }

    /**
     * Replaces the list's items only when they differ: a poll that finds nothing new fires no change, so a view does
     * not redraw the nodes under the operator's pointer (a click there would be lost) nor drop a selection.
     *
     * @return whether the items changed
     */
    public static <T> boolean replaceIfChanged(ObservableList<T> list, List<? extends T> now) {
        if (list.equals(now)) {
            return false;
        }
        list.setAll(now);
        return true;
    }
}
