package io.forgeflow.adapter.executor;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.net.InetAddress;

import static org.assertj.core.api.Assertions.assertThat;

/** Which addresses the SSRF guard refuses: a table, checked without any network traffic. */
class PrivateAddressesTest {

    @ParameterizedTest(name = "{0} refused: {1}")
    @CsvSource({
            // loopback, unspecified, "this network"
            "127.0.0.1,        true",
            "127.255.255.254,  true",
            "0.0.0.0,          true",
            "0.1.2.3,          true",
            "::1,              true",
            "::,               true",
            // RFC 1918 and carrier-grade NAT
            "10.0.0.1,         true",
            "10.255.255.255,   true",
            "172.16.0.1,       true",
            "172.31.255.255,   true",
            "172.32.0.1,       false",
            "172.15.255.255,   false",
            "192.168.1.1,      true",
            "192.169.0.1,      false",
            "100.64.0.1,       true",
            "100.127.255.255,  true",
            "100.128.0.1,      false",
            // link-local, including the cloud metadata service
            "169.254.169.254,  true",
            "169.254.0.1,      true",
            "fe80::1,          true",
            "febf::1,          true",
            // IPv6 site-local, unique local, multicast
            "fec0::1,          true",
            "fc00::1,          true",
            "fd12:3456::1,     true",
            "ff02::1,          true",
            // IPv4 multicast, reserved, broadcast, special ranges
            "224.0.0.1,        true",
            "239.255.255.250,  true",
            "240.0.0.1,        true",
            "255.255.255.255,  true",
            "192.0.0.8,        true",
            "198.18.0.1,       true",
            "198.19.255.255,   true",
            "198.20.0.1,       false",
            // IPv4 inside IPv6
            "::ffff:127.0.0.1, true",
            "::ffff:10.1.2.3,  true",
            "::ffff:8.8.8.8,   false",
            "::127.0.0.1,      true",
            "::10.0.0.1,       true",
            "64:ff9b::a9fe:a9fe, true",
            "64:ff9b::808:808, false",
            // documentation, local-use NAT64 and Teredo ranges the guard used to miss
            "192.0.2.1,        true",
            "192.0.2.255,      true",
            "192.0.3.1,        false",
            "198.51.100.7,     true",
            "198.51.99.1,      false",
            "198.51.101.1,     false",
            "203.0.113.9,      true",
            "203.0.112.1,      false",
            "203.0.114.1,      false",
            "64:ff9b:1::1,     true",
            "64:ff9b:1:ffff::808:808, true",
            "64:ff9b:2::1,     false",
            "2001::1,          true",
            "2001:0:ffff::1,   true",
            "2001:1::1,        false",
            "2001:db8::1,      true",
            "2001:db8:ffff::1, true",
            "2001:db9::1,      false",
            "2001:4860:4860::8888, false",
            "2002:7f00:1::1,   true",
            "2002:c0a8:101::1, true",
            "2002:808:808::1,  false",
            // public unicast
            "8.8.8.8,          false",
            "1.1.1.1,          false",
            "93.184.215.14,    false",
            "2001:4860:4860::8888, false",
            "2606:4700::1111,  false"})
    void refusesEveryAddressThatIsNotPublicUnicast(String address, boolean refused) throws Exception {
        assertThat(PrivateAddresses.isRefused(InetAddress.getByName(address))).isEqualTo(refused);
    }

    @ParameterizedTest(name = "{0} is a literal: {1}")
    @CsvSource({
            "127.0.0.1,    true",
            "::1,          true",
            "[::1],        true",
            "example.com,  false",
            "localhost,    false",
            "1.2.3,        false",
            "999.1.1.1,    false"})
    void literalsAreParsedWithoutDns(String host, boolean literal) {
        assertThat(PrivateAddresses.literal(host) != null).isEqualTo(literal);
    }
}
