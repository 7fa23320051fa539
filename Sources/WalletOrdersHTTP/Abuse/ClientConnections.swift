import Synchronization

/// How many connections each client has open, shared by all of them, so that one client cannot hold every
/// connection the server allows. A client is counted under its rate limiters' key (the peer's address, an IPv6
/// peer by its /64); an address with no connection left is forgotten, so the table holds only open connections'
/// clients.
final class ClientConnections: Sendable {
    /// The most connections one client may hold at once.
    let limit: Int
    private let open = Mutex<[String: Int]>([:])

    init(limit: Int) {
        self.limit = limit
    }

    /// Counts a new connection of `client`; false, and nothing counted, when it already holds `limit`.
    func opened(_ client: String) -> Bool {
        open.withLock { open in
            let count = open[client, default: 0]
            guard count < limit else { return false }
            open[client] = count + 1
            return true
        }
    }

    /// A connection `opened` counted has closed.
    func closed(_ client: String) {
        open.withLock { open in
            guard let count = open[client] else { return }
            open[client] = count > 1 ? count - 1 : nil
        }
    }

    /// How many connections `client` holds.
    func count(of client: String) -> Int {
        open.withLock { $0[client, default: 0] }
    }

    /// How many clients hold a connection.
    var clients: Int { open.withLock { $0.count } }
}
