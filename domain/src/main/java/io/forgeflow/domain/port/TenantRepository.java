package io.forgeflow.domain.port;

import io.forgeflow.domain.tenant.TenantInfo;
import io.forgeflow.domain.tenant.TenantSettings;

import java.util.List;

/**
 * Tenants' settings (weight and cluster-wide limits) and load. A tenant exists as soon as a job names it; settings
 * are kept for a tenant that has no job yet. The claim reads the settings on every call.
 */
public interface TenantRepository {

    /** Every known tenant (configured, or with jobs or live runs, and always {@code default}), by name. */
    List<TenantInfo> list();

    /** One tenant; a name nobody uses or configured reads as an idle tenant with the default settings. */
    TenantInfo get(String name);

    /**
     * Sets what is given ({@code set*} true; a null limit clears it, and the weight is always given when
     * {@code setWeight}), keeps the rest. Returns the tenant as it is now.
     */
    TenantInfo configure(String name, boolean setWeight, boolean setMaxRunning, boolean setRateLimit,
                         TenantSettings settings);
}
