package io.forgeflow.adapter.executor;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;

/**
 * The addresses the SSRF guard refuses: everything that is not a public unicast address, because a job's URL must
 * never be a way into the node's own machine or its private network.
 *
 * <ul>
 *   <li>IPv4: 0.0.0.0/8 ("this network"), 10/8, 172.16/12 and 192.168/16 (RFC 1918), 100.64/10 (carrier-grade
 *       NAT), 127/8 (loopback), 169.254/16 (link-local, including the cloud metadata service 169.254.169.254),
 *       192.0.0/24 (IETF protocol assignments), 198.18/15 (benchmarking), 192.0.2/24, 198.51.100/24 and
 *       203.0.113/24 (documentation), 224/4 (multicast), 240/4 (reserved) and 255.255.255.255;</li>
 *   <li>IPv6: :: and ::1, fe80::/10 (link-local), fec0::/10 (site-local), fc00::/7 (unique local), ff00::/8
 *       (multicast), 64:ff9b:1::/48 (local-use NAT64), 2001::/32 (Teredo), 2001:db8::/32 (documentation), and
 *       every IPv6 form that carries an IPv4 address (IPv4-mapped ::ffff:0:0/96, IPv4-compatible
 *       ::/96, NAT64 64:ff9b::/96, 6to4 2002::/16), judged by the IPv4 address inside.</li>
 * </ul>
 */
final class PrivateAddresses {
    private PrivateAddresses() {
    }

    /** Whether the guard refuses a connection to {@code address}. */
    static boolean isRefused(InetAddress address) {
        if (address == null) {
            return true;
        }
        if (address.isAnyLocalAddress() || address.isLoopbackAddress() || address.isLinkLocalAddress()
                || address.isSiteLocalAddress() || address.isMulticastAddress()) {
            return true;
        }
        byte[] b = address.getAddress();
        if (address instanceof Inet4Address) {
            return isRefusedIpv4(b);
        }
        if (address instanceof Inet6Address) {
            return isRefusedIpv6(b);
        }
        return true;
    }

    private static boolean isRefusedIpv4(byte[] b) {
        int first = b[0] & 0xff;
        int second = b[1] & 0xff;
        return first == 0                                           // 0.0.0.0/8
                || first == 10                                      // 10/8
                || first == 127                                     // 127/8
                || (first == 100 && (second & 0xc0) == 64)          // 100.64/10
                || (first == 169 && second == 254)                  // 169.254/16
                || (first == 172 && (second & 0xf0) == 16)          // 172.16/12
                || (first == 192 && second == 168)                  // 192.168/16
                || (first == 192 && second == 0 && (b[2] & 0xff) == 0) // 192.0.0/24
                || (first == 198 && (second & 0xfe) == 18)          // 198.18/15
                || (first == 192 && second == 0 && (b[2] & 0xff) == 2)     // 192.0.2/24 TEST-NET-1
                || (first == 198 && second == 51 && (b[2] & 0xff) == 100)  // 198.51.100/24 TEST-NET-2
                || (first == 203 && second == 0 && (b[2] & 0xff) == 113)   // 203.0.113/24 TEST-NET-3
                || first >= 224;                                    // multicast, reserved, broadcast
    }

    private static boolean isRefusedIpv6(byte[] b) {
        int first = b[0] & 0xff;
        if ((first & 0xfe) == 0xfc) {                               // fc00::/7 unique local
            return true;
        }
        if (first == 0xfe && ((b[1] & 0xc0) == 0x80 || (b[1] & 0xc0) == 0xc0)) { // fe80::/10, fec0::/10
            return true;
        }
        if (first == 0xff) {                                        // multicast
            return true;
        }
        if (allZero(b, 0, 10) && (b[10] & 0xff) == 0xff && (b[11] & 0xff) == 0xff) { // ::ffff:a.b.c.d
            return isRefusedIpv4(Arrays.copyOfRange(b, 12, 16));
        }
        if (allZero(b, 0, 12)) {                                    // ::a.b.c.d, ::, ::1
            return isRefusedIpv4(Arrays.copyOfRange(b, 12, 16)) || allZero(b, 12, 16);
        }
        if ((b[0] & 0xff) == 0x00 && (b[1] & 0xff) == 0x64 && (b[2] & 0xff) == 0xff && (b[3] & 0xff) == 0x9b
                && allZero(b, 4, 12)) {                             // 64:ff9b::/96 NAT64
            return isRefusedIpv4(Arrays.copyOfRange(b, 12, 16));
        }
        if ((b[0] & 0xff) == 0x00 && (b[1] & 0xff) == 0x64 && (b[2] & 0xff) == 0xff && (b[3] & 0xff) == 0x9b
                && (b[4] & 0xff) == 0x00 && (b[5] & 0xff) == 0x01) {  // 64:ff9b:1::/48 local-use NAT64
            return true;
        }
        if ((b[0] & 0xff) == 0x20 && (b[1] & 0xff) == 0x01 && (b[2] & 0xff) == 0x00 && (b[3] & 0xff) == 0x00) {
            return true;                                            // 2001::/32 Teredo
        }
        if ((b[0] & 0xff) == 0x20 && (b[1] & 0xff) == 0x01 && (b[2] & 0xff) == 0x0d && (b[3] & 0xff) == 0xb8) {
            return true;                                            // 2001:db8::/32 documentation
        }
        if ((b[0] & 0xff) == 0x20 && (b[1] & 0xff) == 0x02) {       // 2002::/16 6to4
            return isRefusedIpv4(Arrays.copyOfRange(b, 2, 6));
        }
        return false;
    }

    private static boolean allZero(byte[] b, int from, int to) {
        for (int i = from; i < to; i++) {
            if (b[i] != 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * The address a URL host names literally (an IPv4 or IPv6 literal, as {@code HttpUrl} canonicalises them), or
     * null for a host name. Never touches DNS.
     */
    static InetAddress literal(String host) {
        boolean ipv6 = host.indexOf(':') >= 0;
        boolean ipv4 = host.matches("[0-9]{1,3}(\\.[0-9]{1,3}){3}");
        if (!ipv6 && !ipv4) {
            return null;
        }
        try {
            return InetAddress.getByName(ipv6 && !host.startsWith("[") ? "[" + host + "]" : host);
        } catch (UnknownHostException e) {
            return null;
        }
    }
}
