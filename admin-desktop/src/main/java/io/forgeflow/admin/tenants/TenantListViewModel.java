package io.forgeflow.admin.tenants;

import io.forgeflow.admin.cluster.ClusterClient;
import io.forgeflow.admin.cluster.Tenancy;
import io.forgeflow.admin.support.Async;
import io.forgeflow.admin.support.LimitInput;
import io.forgeflow.admin.support.Lists;
import io.forgeflow.admin.support.Problems;
import io.forgeflow.client.ForgeFlowApiException;
import io.forgeflow.client.Tenant;
import io.forgeflow.client.TenantUpdate;
import javafx.beans.binding.Bindings;
import javafx.beans.binding.BooleanBinding;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The tenants (README "Tenants"): each one's weight in the claim's fair share, its cluster-wide limits and its load,
 * and a form for the selected one. Saving sends only the fields that differ from the tenant as read ({@code PUT
 * /api/tenants/{name}}: the others keep their value, even if someone changed them meanwhile); an emptied field is the
 * default (weight 1, no limit). A bad value is the server's message next to the field it names. The list is
 * cluster-wide: for a tenant-bound token (403 {@code tenant_forbidden}) it stays empty and says why.
 */
public final class TenantListViewModel {
    /** The fields of the form, by the names the server's errors use ({@code rate_limit.count} is RATE_LIMIT's). */
    public enum Field {
        WEIGHT("weight"), MAX_RUNNING("max_running"), RATE_LIMIT("rate_limit");

        private final String wire;

        Field(String wire) {
            this.wire = wire;
        }

        /** The form field a server error's {@code field} names, or null for none of them. */
        static Field of(String field) {
            String root = LimitInput.root(field);
            for (Field f : values()) {
                if (f.wire.equals(root)) {
                    return f;
                }
            }
            return null;
        }
    }

    private final ClusterClient cluster;
    private final Async async;

    private final ObservableList<Tenant> tenants = FXCollections.observableArrayList();
    private final ObjectProperty<Tenant> selected = new SimpleObjectProperty<>(this, "selected");
    private final StringProperty weight = new SimpleStringProperty(this, "weight", "");
    private final StringProperty maxRunning = new SimpleStringProperty(this, "maxRunning", "");
    private final StringProperty rateCount = new SimpleStringProperty(this, "rateCount", "");
    private final StringProperty ratePerSeconds = new SimpleStringProperty(this, "ratePerSeconds", "");
    private final ReadOnlyStringWrapper editing = new ReadOnlyStringWrapper(this, "editing", "");
    private final ReadOnlyBooleanWrapper loading = new ReadOnlyBooleanWrapper(this, "loading");
    private final ReadOnlyBooleanWrapper saving = new ReadOnlyBooleanWrapper(this, "saving");
    private final ReadOnlyStringWrapper count = new ReadOnlyStringWrapper(this, "count", "");
    private final ReadOnlyStringWrapper message = new ReadOnlyStringWrapper(this, "message", "");
    private final ReadOnlyBooleanWrapper failed = new ReadOnlyBooleanWrapper(this, "failed");
    private final ObjectProperty<Field> errorField = new SimpleObjectProperty<>(this, "errorField");
    private final ReadOnlyStringWrapper refused = new ReadOnlyStringWrapper(this, "refused", "");
    private final BooleanBinding canSave;
    private long generation;
    /** The tenant as it was when the form was filled: saving sends what the operator changed from it. */
    private Tenant filled;

    public TenantListViewModel(ClusterClient cluster, Async async) {
        this.cluster = Objects.requireNonNull(cluster, "cluster");
        this.async = Objects.requireNonNull(async, "async");
        canSave = Bindings.createBooleanBinding(() -> !editing.get().isEmpty() && !saving.get(), editing, saving);
        selected.addListener((o, was, now) -> {
            if (now != null && (was == null || !was.name().equals(now.name()) || editing.get().isEmpty())) {
                edit(now);
            }
        });
    }

    /** Reads every tenant again; the selection and the form stay on the tenant they show. */
    public void refresh() {
        if (!refused.get().isEmpty()) {
            return;
        }
        long mine = ++generation;
        loading.set(true);
        async.run(cluster::tenants, list -> {
            if (mine != generation) {
                return;
            }
            loading.set(false);
            String shown = selected.get() == null ? null : selected.get().name();
            Lists.replaceIfChanged(tenants, list);
            if (shown != null) {
                // the same tenant, read again: the form keeps what the operator typed
                list.stream().filter(t -> t.name().equals(shown)).findFirst().ifPresent(selected::set);
            }
            count.set(list.size() + (list.size() == 1 ? " tenant" : " tenants"));
        }, failure -> {
            if (mine != generation) {
                return;
            }
            loading.set(false);
            if (Tenancy.isForbidden(failure)) {
                boundTo(Tenancy.boundTenant(failure));
            } else {
                report(Problems.describe("load the tenants", failure), null);
            }
        });
    }

    /** Keeps the list fresh; it does not touch what the operator is typing. */
    public void poll() {
        if (!loading.get() && !saving.get()) {
            refresh();
        }
    }

    /**
     * The connected token is bound to this tenant (the connect screen proved it): the list is cluster-wide, so it is
     * not read, and the screen says why.
     */
    public void boundTo(String tenant) {
        generation++;
        loading.set(false);
        tenants.clear();
        selected.set(null);
        filled = null;
        editing.set("");
        count.set("");
        message.set("");
        failed.set(false);
        refused.set("This token is bound to tenant " + (tenant == null ? "(unnamed)" : tenant) + "; tenants' weights "
                + "and limits are cluster-wide: they need a cluster-wide token.");
    }

    /** Fills the form with the tenant as read. */
    public void edit(Tenant tenant) {
        Objects.requireNonNull(tenant, "tenant");
        filled = tenant;
        editing.set(tenant.name());
        weight.set(String.valueOf(tenant.weight()));
        maxRunning.set(tenant.maxRunning() == null ? "" : String.valueOf(tenant.maxRunning()));
        rateCount.set(tenant.rateLimit() == null ? "" : String.valueOf(tenant.rateLimit().count()));
        ratePerSeconds.set(tenant.rateLimit() == null ? "" : String.valueOf(tenant.rateLimit().perSeconds()));
        errorField.set(null);
        message.set("");
        failed.set(false);
    }

    /** Sends what differs from the tenant as read; the server's answer replaces the row. */
    public void save() {
        Tenant before = filled;
        if (before == null || saving.get()) {
            return;
        }
        TenantUpdate update;
        try {
            update = changes(before);
        } catch (LimitInput.Invalid e) {
            report(e.getMessage(), Field.of(e.name()));
            return;
        }
        if (update.body().isEmpty()) {
            errorField.set(null);
            failed.set(false);
            message.set("Nothing changed.");
            return;
        }
        errorField.set(null);
        failed.set(false);
        message.set("Saving tenant " + before.name() + "…");
        saving.set(true);
        String name = before.name();
        async.run(() -> cluster.configureTenant(name, update), after -> {
            saving.set(false);
            int i = indexOf(after.name());
            if (i >= 0) {
                tenants.set(i, after);
            } else {
                tenants.add(after);
            }
            selected.set(after);
            edit(after);
            message.set("Saved tenant " + after.name() + ": weight " + after.weight() + ", limits " + limitsOf(after)
                    + ".");
        }, failure -> {
            saving.set(false);
            if (failure instanceof ForgeFlowApiException api && (api.status() == 400 || api.status() == 422)) {
                // the server's own words, next to the field it names
                report(api.error(), Field.of(api.field()));
            } else if (Tenancy.isForbidden(failure)) {
                boundTo(Tenancy.boundTenant(failure));
            } else if (failure instanceof ForgeFlowApiException api && api.status() == 403) {
                // the token is good but lacks admin: reconnecting with it would not help, another token would
                report("Could not save tenant " + name + ": " + api.error() + " (HTTP 403)", null);
            } else {
                report(Problems.describe("save tenant " + name, failure), null);
            }
        });
    }

    /** Puts the form back to the tenant as last read. */
    public void revert() {
        int i = indexOf(editing.get());
        if (i >= 0) {
            edit(tenants.get(i));
        }
    }

    private int indexOf(String name) {
        for (int i = 0; i < tenants.size(); i++) {
            if (tenants.get(i).name().equals(name)) {
                return i;
            }
        }
        return -1;
    }

    private TenantUpdate changes(Tenant before) {
        TenantUpdate update = TenantUpdate.create();
        Integer w = LimitInput.whole(weight.get(), "weight");
        if ((w == null ? 1 : w) != before.weight()) {
            update.weight(w);
        }
        Integer max = LimitInput.whole(maxRunning.get(), "max_running");
        if (!Objects.equals(max, before.maxRunning())) {
            update.maxRunning(max);
        }
        int[] r = LimitInput.rate(rateCount.get(), ratePerSeconds.get());
        Tenant.RateLimit rate = r == null ? null : new Tenant.RateLimit(r[0], r[1]);
        if (!Objects.equals(rate, before.rateLimit())) {
            if (rate == null) {
                update.clearRateLimit();
            } else {
                update.rateLimit(rate.count(), rate.perSeconds());
            }
        }
        return update;
    }

    private void report(String text, Field field) {
        errorField.set(field);
        failed.set(true);
        message.set(text);
    }

    // ---------------------------------------------------------------- how a tenant reads in the table

    /** "max 5 running, 10 per 60 s (4 used)", or "none". */
    public static String limitsOf(Tenant t) {
        List<String> parts = new ArrayList<>();
        if (t.maxRunning() != null) {
            parts.add("max " + t.maxRunning() + " running");
        }
        if (t.rateLimit() != null) {
            parts.add(t.rateLimit().count() + " per " + t.rateLimit().perSeconds() + " s (" + t.startsInWindow()
                    + " used)");
        }
        return parts.isEmpty() ? "none" : String.join(", ", parts);
    }

    // ---------------------------------------------------------------- state for the view

    public ObservableList<Tenant> tenants() {
        return tenants;
    }

    /** The row selected in the table; selecting one fills the form. */
    public ObjectProperty<Tenant> selectedProperty() {
        return selected;
    }

    public StringProperty weightProperty() {
        return weight;
    }

    public StringProperty maxRunningProperty() {
        return maxRunning;
    }

    public StringProperty rateCountProperty() {
        return rateCount;
    }

    public StringProperty ratePerSecondsProperty() {
        return ratePerSeconds;
    }

    /** The name of the tenant the form edits; empty when none. */
    public ReadOnlyStringProperty editingProperty() {
        return editing.getReadOnlyProperty();
    }

    /** The field the current error is about (the view marks it); null when none. */
    public ObjectProperty<Field> errorFieldProperty() {
        return errorField;
    }

    public ReadOnlyBooleanProperty loadingProperty() {
        return loading.getReadOnlyProperty();
    }

    public ReadOnlyBooleanProperty savingProperty() {
        return saving.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty countProperty() {
        return count.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty messageProperty() {
        return message.getReadOnlyProperty();
    }

    public ReadOnlyBooleanProperty failedProperty() {
        return failed.getReadOnlyProperty();
    }

    /** Empty for a cluster-wide token; for a tenant-bound one, why there is nothing here. */
    public ReadOnlyStringProperty refusedProperty() {
        return refused.getReadOnlyProperty();
    }

    public BooleanBinding canSaveProperty() {
        return canSave;
    }
}
