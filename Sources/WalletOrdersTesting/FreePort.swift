import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A loopback port nothing listens on now, for a server started next (a test's `serve`, its PostgreSQL).
///
/// Picked at random below the ports Linux hands out for outgoing connections (`ip_local_port_range`), and checked by
/// binding it: the kernel's own pick for port 0 comes from that range, where another test's outgoing connection (the
/// suite opens many to PostgreSQL) could take it before the server binds it, and once did.
public func freePort() throws -> Int {
    let outgoingFrom =
        (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8))?
        .split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } ?? 32_768
    for _ in 0..<100 {
        let port = Int.random(in: 10_000..<max(10_001, outgoingFrom))
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw PortError() }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(socket, address, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        if bound { return port }
    }
    throw PortError()
}

/// No free port was found.
public struct PortError: Error, CustomStringConvertible {
    public var description: String { "no free loopback port was found below the outgoing connections' range" }
}
