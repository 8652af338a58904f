package io.forgeflow.admin.cluster;

import io.forgeflow.client.ForgeFlowApiException;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Tenants (issue 42) as the console sees them: tenant names, and the server's 403 {@code tenant_forbidden}, which a
 * tenant-bound token gets on the cluster-wide routes (stats, nodes, tenants, events) and when it names another tenant.
 */
public final class Tenancy {
    /** The tenant of everything made without naming one. */
    public static final String DEFAULT = "default";
    static final String FORBIDDEN = "tenant_forbidden";
    private static final Pattern NAME = Pattern.compile("[a-z0-9_.-]{1,63}");
    // the server's wording for both refusals: "this token acts in tenant 'acme' only ..."
    private static final Pattern BOUND = Pattern.compile("acts in tenant '([^']+)' only");

    private Tenancy() {
    }

    /** Whether name is a tenant name the server accepts (1 to 63 of a-z, 0-9, '_', '.', '-'). */
    public static boolean isValidName(String name) {
        return name != null && NAME.matcher(name).matches();
    }

    /** Whether a job's or run's tenant is one other than the default (null: a server without tenants). */
    public static boolean outsideDefault(String tenant) {
        return tenant != null && !DEFAULT.equals(tenant);
    }

    /** Whether failure is the server's 403 {@code tenant_forbidden}. */
    public static boolean isForbidden(Throwable failure) {
        return failure instanceof ForgeFlowApiException api && api.status() == 403 && FORBIDDEN.equals(api.code());
    }

    /** The tenant the token is bound to, as a 403 {@code tenant_forbidden} names it; null for any other failure. */
    public static String boundTenant(Throwable failure) {
        if (!isForbidden(failure)) {
            return null;
        }
        Matcher m = BOUND.matcher(((ForgeFlowApiException) failure).error());
        return m.find() ? m.group(1) : null;
    }

    /** What the cluster views say to a tenant-bound token. */
    public static String clusterViewsRefused(String boundTenant) {
        return "This token is bound to tenant " + (boundTenant == null ? "(unnamed)" : boundTenant)
                + "; cluster views need a cluster-wide token.";
    }
}
