import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Who a request comes from: the socket's peer, or behind a reverse proxy the address that proxy puts in a
/// header it is configured to set. The header is believed only when configured: otherwise any client could
/// claim any address.
enum ClientAddress {
    /// The client's address: the last address in `trustedHeader` when one is configured and the request has it
    /// (a proxy appends the peer it saw to `X-Forwarded-For`, so the last one is the one our proxy added), the
    /// peer's address otherwise. Nil when neither is an IP address.
    static func resolve(headers: HTTPFields, peer: SocketAddress?, trustedHeader: HTTPField.Name?) -> String? {
        if let trustedHeader, let value = headers[values: trustedHeader].last,
            let last = value.split(separator: ",").last.map({ String($0).trimmingCharacters(in: .whitespaces) }),
            let address = try? SocketAddress(ipAddress: last, port: 0)
        {
            return address.ipAddress
        }
        return peer?.ipAddress
    }

    /// The key limits are counted under: the address itself for IPv4, its /64 network for IPv6, since one
    /// machine usually holds a whole /64 and could otherwise take a fresh allowance with each address.
    static func limiterKey(_ address: String) -> String {
        // IPv4 (no colon) is its own key: spare parsing it on every request.
        guard address.utf8.contains(UInt8(ascii: ":")),
            let socket = try? SocketAddress(ipAddress: address, port: 0), case .v6(let v6) = socket
        else {
            return address
        }
        var raw = v6.address.sin6_addr
        let bytes = withUnsafeBytes(of: &raw) { Array($0) }
        // An IPv4 address mapped into IPv6 (::ffff:a.b.c.d) is that IPv4 address.
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff {
            return bytes[12...].map(String.init).joined(separator: ".")
        }
        return bytes[0..<8].map { String($0, radix: 16) }.joined(separator: ":") + "::/64"
    }
}
