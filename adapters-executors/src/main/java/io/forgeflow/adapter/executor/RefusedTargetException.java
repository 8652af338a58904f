package io.forgeflow.adapter.executor;

import java.net.UnknownHostException;

/**
 * The SSRF guard refused a target: its host resolved to (or is) a loopback, private or link-local address. An
 * {@link UnknownHostException} because that is what OkHttp's {@code Dns} may throw; the guarded socket throws it too,
 * so that OkHttp treats both as an unreachable route rather than a bug.
 */
final class RefusedTargetException extends UnknownHostException {
    private final String host;

    RefusedTargetException(String host) {
        super(host + " is a loopback, private or link-local address, which this node refuses (SSRF guard)");
        this.host = host;
    }

    String host() {
        return host;
    }
}
