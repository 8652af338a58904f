package io.forgeflow.admin.runs;

import io.forgeflow.admin.cluster.RunTrace;
import io.forgeflow.admin.support.LinkOpener;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Objects;

/**
 * Where a run's trace can be seen. The node's link comes first: a run's {@code trace_url}, which the node fills in
 * from its {@code FORGEFLOW_TRACE_URL_TEMPLATE}. When the node sends none, the desktop's own template (a setting on
 * the connect screen, such as {@code http://jaeger:16686/trace/{trace_id}}) is used. Without either the trace id is
 * shown as text only.
 */
public final class TraceViewer {
    public static final String PLACEHOLDER = "{trace_id}";

    private volatile String template;
    private volatile LinkOpener opener;

    /** The desktop's template; null or blank: none. Check it with {@link #checkTemplate(String)} first. */
    public void setTemplate(String template) {
        this.template = template == null || template.isBlank() ? null : template.strip();
    }

    /** How links are opened (the browser); null: they cannot be, and the operator is told to copy the link. */
    public void setOpener(LinkOpener opener) {
        this.opener = opener;
    }

    /** The link for a run's trace, or null when the run has no trace id or no viewer is known. */
    public String urlFor(RunTrace trace) {
        if (trace == null || trace.traceId() == null) {
            return null;
        }
        if (trace.traceUrl() != null) {
            return trace.traceUrl();
        }
        String t = template;
        return t == null ? null : t.replace(PLACEHOLDER, trace.traceId());
    }

    /** Opens url; false when no browser is available. */
    boolean open(String url) {
        LinkOpener o = opener;
        if (o == null) {
            return false;
        }
        o.open(Objects.requireNonNull(url, "url"));
        return true;
    }

    /** What is wrong with a template an operator typed, or null when it is usable (blank is: no template). */
    public static String checkTemplate(String template) {
        if (template == null || template.isBlank()) {
            return null;
        }
        String t = template.strip();
        if (!t.contains(PLACEHOLDER)) {
            return "The trace URL template must contain " + PLACEHOLDER + " where the trace id goes, e.g. "
                    + "http://jaeger:16686/trace/" + PLACEHOLDER + ".";
        }
        try {
            URI uri = new URI(t.replace(PLACEHOLDER, "0af7651916cd43dd8448eb211c80319c"));
            if (uri.getHost() == null || !("http".equalsIgnoreCase(uri.getScheme())
                    || "https".equalsIgnoreCase(uri.getScheme()))) {
                return "The trace URL template must be an http:// or https:// URL with a host.";
            }
        } catch (URISyntaxException e) {
            return "The trace URL template is not a URL: " + e.getReason() + ".";
        }
        return null;
    }
}
