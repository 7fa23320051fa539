#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which addresses a webhook may be delivered to. A merchant names the URL, so a delivery is a request this server
/// makes on someone else's say: without this check a merchant could reach the server's own loopback services, the
/// private network behind it, or a cloud metadata service. Every address is checked after the name is resolved (when
/// the URL is named) and again on every connection (a name may resolve differently the second time). Pure: the
/// resolving and the connecting are the transport's (`WalletOrdersWebhooks`).
public enum AddressPolicy {
    /// Whether a delivery may connect to `address` (4 or 16 bytes): a public unicast address.
    public static func isPublic(_ address: [UInt8]) -> Bool {
        switch address.count {
        case 4: isPublicIPv4(address)
        case 16: isPublicIPv6(address)
        default: false
        }
    }

    /// IANA's IPv4 special-purpose registry, without the entries it says are globally reachable (and with a few of
    /// those too: the anycast ones inside 192.0.0.0/24 are no place for a webhook).
    private static func isPublicIPv4(_ a: [UInt8]) -> Bool {
        switch (a[0], a[1], a[2]) {
        case (0, _, _), (10, _, _), (127, _, _): false  // "this network", private, loopback
        case (100, 64...127, _): false  // shared address space (carrier-grade NAT)
        case (169, 254, _): false  // link-local, where cloud metadata services answer
        case (172, 16...31, _), (192, 168, _): false  // private
        case (192, 0, 0): false  // IETF protocol assignments (NAT64 discovery, DS-Lite, …)
        case (192, 0, 2), (198, 51, 100), (203, 0, 113): false  // documentation (TEST-NET-1, -2, -3)
        case (192, 88, 99): false  // 6to4 relay anycast, deprecated
        case (198, 18...19, _): false  // benchmarking
        case (224...255, _, _): false  // multicast, reserved (240.0.0.0/4), broadcast
        default: true
        }
    }

    /// IANA's IPv6 special-purpose registry the same way, inside the only space assigned for global unicast
    /// (2000::/3); the forms that carry an IPv4 address are judged by it.
    private static func isPublicIPv6(_ a: [UInt8]) -> Bool {
        let zeros = a.prefix(10).allSatisfy { $0 == 0 }
        // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible, which covers :: and ::1): the IPv4 address decides,
        // and `::`/`::1` are neither public.
        if zeros, a[10] == 0xff, a[11] == 0xff { return isPublicIPv4(Array(a.suffix(4))) }
        if zeros, a[10] == 0, a[11] == 0 {
            return a[12] == 0 && a[13] == 0 && a[14] == 0 && a[15] <= 1 ? false : isPublicIPv4(Array(a.suffix(4)))
        }
        // 64:ff9b::/96, NAT64: the IPv4 address behind it decides. (64:ff9b:1::/48, for local use, is outside
        // 2000::/3 and refused below.)
        if a.prefix(12) == [0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0] { return isPublicIPv4(Array(a.suffix(4))) }
        // Outside 2000::/3: unique local fc00::/7 (fd00:ec2::254 is a metadata service), link-local fe80::/10,
        // site-local fec0::/10, multicast ff00::/8, discard-only 100::/64, SRv6 SIDs 5f00::/16, and unassigned space.
        guard a[0] & 0xe0 == 0x20 else { return false }
        // 2001::/23, IETF protocol assignments: Teredo 2001::/32 (the IPv4 address it carries is obscured),
        // benchmarking 2001:2::/48, ORCHID; its few anycast entries are no place for a webhook either.
        if a[0] == 0x20, a[1] == 0x01, a[2] < 0x02 { return false }
        // 2001:db8::/32 and 3fff::/20, documentation.
        if a[0] == 0x20, a[1] == 0x01, a[2] == 0x0d, a[3] == 0xb8 { return false }
        if a[0] == 0x3f, a[1] == 0xff, a[2] < 0x10 { return false }
        // 2002::/16 (6to4) carries an IPv4 address that decides.
        if a[0] == 0x20, a[1] == 0x02 { return isPublicIPv4(Array(a[2..<6])) }
        return true
    }

    /// The address `text` writes, when it is an IPv4 or IPv6 literal ("93.184.216.34", "::1"); nil for a name.
    public static func literal(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: v6) { Array($0) } }
        return nil
    }

    /// An address as people write it.
    public static func text(_ address: [UInt8]) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = address.count == 4 ? AF_INET : AF_INET6
        guard inet_ntop(family, address, &buffer, socklen_t(buffer.count)) != nil else { return "?" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
