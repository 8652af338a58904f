package io.forgeflow.application.tenant;

import io.forgeflow.domain.port.TenantRepository;
import io.forgeflow.domain.port.WorkSignal;
import io.forgeflow.domain.tenant.TenantInfo;
import io.forgeflow.domain.tenant.TenantSettings;
import io.forgeflow.domain.tenant.Tenants;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Objects;

/**
 * Operators' view and controls of tenants (README "Tenants"): their weights in the claim's fair share and their
 * cluster-wide limits. A change applies to the next claim of every node; a change wakes the workers at once.
 */
public final class TenantControls {
    private static final Logger LOG = LoggerFactory.getLogger(TenantControls.class);

    private final TenantRepository tenants;
    private final WorkSignal signal;

    public TenantControls(TenantRepository tenants, WorkSignal signal) {
        this.tenants = Objects.requireNonNull(tenants, "tenants");
        this.signal = Objects.requireNonNull(signal, "signal");
    }

    public List<TenantInfo> list() {
        return tenants.list();
    }

    /** A tenant by name; a well-formed name nobody uses reads as an idle tenant with the default settings. */
    public TenantInfo get(String name) {
        return tenants.get(Tenants.require("name", name));
    }

    /** Sets what is given ({@code set*}): the weight, and limits (a null limit clears it); keeps the rest. */
    public TenantInfo configure(String name, boolean setWeight, boolean setMaxRunning, boolean setRateLimit,
                                TenantSettings settings) {
        Tenants.require("name", name);
        Objects.requireNonNull(settings, "settings");
        TenantInfo after = tenants.configure(name, setWeight, setMaxRunning, setRateLimit, settings);
        TenantSettings now = after.settings();
        LOG.info("tenant {}: weight {}, max_running {}, rate limit {}", name, now.weight(), now.maxRunning(),
                now.rateLimit() == null ? "none" : now.rateLimit().count() + " per " + now.rateLimit().perSeconds()
                        + "s");
        signal.runsBecameDue(); // a raised weight or limit may let waiting runs start
        return after;
    }
}
