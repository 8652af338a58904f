package io.forgeflow.domain.tenant;

import java.util.Objects;

/**
 * A tenant as operators see it.
 *
 * @param name           the tenant's name
 * @param settings       its weight and limits ({@link TenantSettings#DEFAULT} when nobody set them)
 * @param pending        its runs waiting (due now or later)
 * @param running        its runs running now
 * @param startsInWindow for a rate-limited tenant, starts counted in the current window; else 0
 */
public record TenantInfo(String name, TenantSettings settings, long pending, long running, long startsInWindow) {
    public TenantInfo {
        Objects.requireNonNull(name, "name");
        settings = settings == null ? TenantSettings.DEFAULT : settings;
    }
}
