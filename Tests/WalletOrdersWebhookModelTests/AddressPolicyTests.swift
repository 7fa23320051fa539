import Foundation
import Testing
import WalletOrdersWebhookModel

#if canImport(Glibc)
import Glibc
#endif

/// Webhook URLs are a server-side request forgery risk: what the policy lets through, and what it refuses.
@Suite(.timeLimit(.minutes(5))) struct AddressPolicyTests {
    static func bytes(_ text: String) -> [UInt8] {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: v4) { Array($0) } }
        var v6 = in6_addr()
        #expect(inet_pton(AF_INET6, text, &v6) == 1, "\(text) is an address")
        return withUnsafeBytes(of: v6) { Array($0) }
    }

    @Test(arguments: [
        "127.0.0.1", "127.255.0.9", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254",
        "100.64.0.1", "0.0.0.0", "255.255.255.255", "224.0.0.1", "198.18.0.1", "::1", "::", "fe80::1", "fc00::1",
        "fd00:ec2::254", "ff02::1", "::ffff:127.0.0.1", "::ffff:169.254.169.254", "::ffff:10.0.0.1", "64:ff9b::7f00:1",
        "2002:7f00:1::", "2001:db8::1", "::127.0.0.1",
    ])
    func refusesAddressesThatAreNotPublic(_ address: String) {
        #expect(!AddressPolicy.isPublic(Self.bytes(address)), "\(address) is refused")
    }

    /// An address in each entry of IANA's special-purpose address registries (IPv4 and IPv6) that is not globally
    /// reachable, and in the other ranges that are not unicast or not assigned: none is a place a webhook may go.
    static let notGlobal: [(address: String, entry: String)] = [
        ("0.1.2.3", "0.0.0.0/8, this network"), ("10.1.2.3", "10.0.0.0/8, private"),
        ("100.64.0.1", "100.64.0.0/10, shared address space"), ("100.127.255.254", "100.64.0.0/10, shared address space"),
        ("127.0.0.2", "127.0.0.0/8, loopback"), ("169.254.0.1", "169.254.0.0/16, link-local"),
        ("172.20.1.1", "172.16.0.0/12, private"), ("192.0.0.8", "192.0.0.0/24, IETF protocol assignments"),
        ("192.0.0.170", "192.0.0.170/32, NAT64 discovery"), ("192.0.2.1", "192.0.2.0/24, documentation (TEST-NET-1)"),
        ("192.0.2.255", "192.0.2.0/24, documentation (TEST-NET-1)"), ("192.88.99.1", "192.88.99.0/24, 6to4 relay anycast"),
        ("192.168.10.1", "192.168.0.0/16, private"), ("198.18.0.1", "198.18.0.0/15, benchmarking"),
        ("198.19.255.254", "198.18.0.0/15, benchmarking"), ("198.51.100.7", "198.51.100.0/24, documentation (TEST-NET-2)"),
        ("203.0.113.9", "203.0.113.0/24, documentation (TEST-NET-3)"), ("224.0.0.251", "224.0.0.0/4, multicast"),
        ("240.0.0.1", "240.0.0.0/4, reserved"), ("255.255.255.255", "255.255.255.255/32, limited broadcast"),
        ("::", "::/128, unspecified"), ("::1", "::1/128, loopback"),
        ("::ffff:192.0.2.1", "::ffff:0:0/96, IPv4-mapped: documentation"),
        ("::ffff:198.51.100.7", "::ffff:0:0/96, IPv4-mapped: documentation"),
        ("::ffff:100.64.0.1", "::ffff:0:0/96, IPv4-mapped: shared address space"),
        ("64:ff9b::a00:1", "64:ff9b::/96, IPv4/IPv6 translation of a private address"),
        ("64:ff9b::c000:201", "64:ff9b::/96, IPv4/IPv6 translation of a documentation address"),
        ("64:ff9b:1::808:808", "64:ff9b:1::/48, local-use IPv4/IPv6 translation"),
        ("100::1", "100::/64, discard-only"), ("100:0:0:1::1", "100:0:0:1::/64, dummy prefix"),
        ("2001::1", "2001::/32, Teredo"), ("2001:0:4136:e378:8000:63bf:3fff:fdd2", "2001::/32, Teredo"),
        ("2001:2::1", "2001:2::/48, benchmarking"), ("2001:10::1", "2001:10::/28, ORCHID"),
        ("2001:1ff::1", "2001::/23, IETF protocol assignments"), ("2001:db8::1", "2001:db8::/32, documentation"),
        ("2002:c000:201::1", "2002::/16, 6to4 of a documentation address"), ("2002:a00:1::1", "2002::/16, 6to4 of a private address"),
        ("3fff::1", "3fff::/20, documentation"), ("3fff:fff::1", "3fff::/20, documentation"),
        ("5f00::1", "5f00::/16, segment routing (SRv6) SIDs"), ("fc00::1", "fc00::/7, unique local"),
        ("fd12:3456::1", "fc00::/7, unique local"), ("fe80::1", "fe80::/10, link-local"),
        ("fec0::1", "fec0::/10, site-local (deprecated)"), ("ff02::1", "ff00::/8, multicast"),
        ("4000::1", "outside 2000::/3, the only global unicast space assigned"),
    ]

    @Test(arguments: notGlobal)
    func refusesEveryAddressTheSpecialPurposeRegistriesSayIsNotGlobal(_ address: String, _ entry: String) {
        #expect(!AddressPolicy.isPublic(Self.bytes(address)), "\(address) is in \(entry)")
    }

    @Test(arguments: [
        "93.184.216.34", "8.8.8.8", "172.32.0.1", "100.128.0.1", "2606:2800:220:1::1", "::ffff:8.8.8.8", "192.0.1.1",
        "192.0.3.1", "192.88.98.1", "192.88.100.1", "198.51.99.1", "198.51.101.1", "203.0.112.1", "203.0.114.1",
        "223.255.255.1", "64:ff9b::808:808", "2001:200::1", "2001:4860:4860::8888", "2001:db9::1", "2a00:1450:4001::1",
        "3fff:1000::1", "2002:808:808::1",
    ])
    func letsPublicAddressesThrough(_ address: String) {
        #expect(AddressPolicy.isPublic(Self.bytes(address)), "\(address) is public")
    }

    @Test func anAddressLiteralIsItsOwnAddressAndANameIsNone() {
        #expect(AddressPolicy.literal("93.184.216.34") == [93, 184, 216, 34])
        #expect(AddressPolicy.literal("::1") == Self.bytes("::1"))
        #expect(AddressPolicy.literal("localhost") == nil)
        #expect(AddressPolicy.text(Self.bytes("2001:db8::1")) == "2001:db8::1")
    }
}
