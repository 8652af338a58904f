package io.forgeflow.adapter.executor;

import io.forgeflow.domain.error.ValidationException;
import okhttp3.Dns;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;

import javax.net.SocketFactory;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Proxy;
import java.net.Socket;
import java.net.SocketAddress;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;

/**
 * The http executor's SSRF guard: no call may reach a loopback, private or link-local address
 * ({@link PrivateAddresses}). It checks three times, so that neither DNS nor a redirect can slip past it:
 *
 * <ol>
 *   <li>at submission, a URL whose host is a literal refused address, or {@code localhost}, is a 422 on
 *       {@code payload.url};</li>
 *   <li>at execution, a {@link Dns} wrapper resolves each host name (of the URL and of every redirect) and refuses it
 *       when <em>any</em> of its addresses is refused. OkHttp connects only to the addresses this lookup returned, so
 *       the check applies to the address actually connected (a second, different DNS answer cannot sneak in);</li>
 *   <li>every socket checks the address it is about to connect to, which covers what OkHttp does not resolve
 *       through {@code Dns}: literal IP hosts, in the URL or in a redirect's {@code Location}.</li>
 * </ol>
 *
 * A guarded client ignores the JVM's proxy settings ({@code Proxy.NO_PROXY}): behind a proxy the proxy, not this
 * node, would resolve and connect, and the guard could check nothing.
 */
final class AddressGuard {
    private final Predicate<InetAddress> refused;
    private final Dns resolver;

    /** The standard guard: {@link PrivateAddresses#isRefused}, over the system's resolver. */
    static AddressGuard standard() {
        return new AddressGuard(PrivateAddresses::isRefused, Dns.SYSTEM);
    }

    /** For tests: another notion of refused, another resolver. */
    AddressGuard(Predicate<InetAddress> refused, Dns resolver) {
        this.refused = refused;
        this.resolver = resolver;
    }

    /** The submission-time check: literal addresses and {@code localhost} names; no DNS. */
    void checkAtSubmission(HttpUrl url) {
        String host = url.host().toLowerCase(Locale.ROOT);
        InetAddress literal = PrivateAddresses.literal(host);
        boolean localName = host.equals("localhost") || host.endsWith(".localhost");
        if (localName || (literal != null && refused.test(literal))) {
            throw new ValidationException(PayloadReader.field(HttpPayload.URL), "payload.url targets " + host
                    + ", a loopback, private or link-local address, which this node refuses (SSRF guard): use a "
                    + "public address, or set FORGEFLOW_HTTP_ALLOW_PRIVATE=true on the nodes to allow private targets");
        }
    }

    /** The builder, with this guard's DNS, sockets and no proxy. */
    OkHttpClient.Builder applyTo(OkHttpClient.Builder builder) {
        return builder.dns(this::lookup).socketFactory(new GuardedSocketFactory()).proxy(Proxy.NO_PROXY);
    }

    List<InetAddress> lookup(String host) throws java.net.UnknownHostException {
        List<InetAddress> addresses = resolver.lookup(host);
        for (InetAddress address : addresses) {
            if (refused.test(address)) {
                throw new RefusedTargetException(host);
            }
        }
        return addresses;
    }

    private void checkConnect(SocketAddress endpoint) throws RefusedTargetException {
        if (!(endpoint instanceof InetSocketAddress)) {
            throw new RefusedTargetException(String.valueOf(endpoint));
        }
        InetSocketAddress target = (InetSocketAddress) endpoint;
        if (target.getAddress() == null || refused.test(target.getAddress())) {
            throw new RefusedTargetException(target.getHostString());
        }
    }

    /** Sockets that refuse to connect to a refused address. */
    private final class GuardedSocketFactory extends SocketFactory {
        @Override
        public Socket createSocket() {
            return new GuardedSocket();
        }

        @Override
        public Socket createSocket(String host, int port) throws IOException {
            Socket socket = new GuardedSocket();
            socket.connect(new InetSocketAddress(host, port));
            return socket;
        }

        @Override
        public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
            Socket socket = new GuardedSocket();
            socket.bind(new InetSocketAddress(localHost, localPort));
            socket.connect(new InetSocketAddress(host, port));
            return socket;
        }

        @Override
        public Socket createSocket(InetAddress host, int port) throws IOException {
            Socket socket = new GuardedSocket();
            socket.connect(new InetSocketAddress(host, port));
            return socket;
        }

        @Override
        public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
                throws IOException {
            Socket socket = new GuardedSocket();
            socket.bind(new InetSocketAddress(localAddress, localPort));
            socket.connect(new InetSocketAddress(address, port));
            return socket;
        }
    }

    private final class GuardedSocket extends Socket {
        @Override
        public void connect(SocketAddress endpoint, int timeout) throws IOException {
            checkConnect(endpoint);
            super.connect(endpoint, timeout);
        }
    }
}
