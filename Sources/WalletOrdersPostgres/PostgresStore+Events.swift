import Foundation
import Logging
import PostgresNIO
import Synchronization
import WalletOrdersStore

/// Instances tell each other about queued pushes and new order versions through `NOTIFY`: a notification is
/// sent when its transaction commits, and every instance `LISTEN`ing hears it.
extension PostgresStore {
    /// Sends `event` to every listening instance when the transaction on `connection` commits.
    func notify(_ connection: PostgresConnection, _ event: StoreEvent) async throws {
        try await connection.query("SELECT pg_notify(\(Self.channel), \(Self.payload(event)))", logger: logger)
    }

    /// `p` for queued pushes; `o <version> <type> <id>` for a new version (identifiers hold no spaces).
    static func payload(_ event: StoreEvent) -> String {
        switch event {
        case .pushesQueued: "p"
        case .webhooksQueued: "w"
        case .orderChanged(let type, let id, let version): "o \(version) \(type) \(id)"
        case .merchantsChanged: "m"
        // Said by each instance's own listener, never sent.
        case .resync: "r"
        case .interrupted: "i"
        }
    }

    static func event(_ payload: String) -> StoreEvent? {
        let parts = payload.split(separator: " ")
        switch parts.first {
        case "p": return .pushesQueued
        case "w": return .webhooksQueued
        case "m": return .merchantsChanged
        case "o" where parts.count == 4:
            guard let version = Int(parts[1]) else { return nil }
            return .orderChanged(type: String(parts[2]), id: String(parts[3]), version: version)
        default: return nil
        }
    }

    /// Listens on one connection until cancelled, reconnecting after a failure. Once `LISTEN` holds, the hub
    /// says `resync` (notifications sent while no one listened are gone); when the connection fails, it says
    /// `interrupted` first, so caches stop trusting the events until the next `resync`.
    static func listen(client: PooledClient, hub: StoreEventHub, logger: Logger) async {
        var delay = Duration.milliseconds(100)
        while !Task.isCancelled {
            let listened = Listened()
            var failure: (any Error)?
            do {
                try await client.withConnection { connection in
                    try await connection.listen(on: channel) { notifications in
                        hub.resume()
                        listened.flag.store(true, ordering: .relaxed)
                        for try await notification in notifications {
                            if let event = event(notification.payload) { hub.publish(event) }
                        }
                    }
                }
            } catch {
                failure = error
            }
            hub.interrupt()
            if Task.isCancelled { return }
            if listened.flag.load(ordering: .relaxed) { delay = .milliseconds(100) }
            if let failure {
                logger.warning(
                    "listening for other instances failed; trying again",
                    metadata: ["error": "\(String(reflecting: failure))", "retry": "\(delay)"]
                )
            }
            try? await Task.sleep(for: delay)
            delay = min(delay * 2, .seconds(5))
        }
    }
}

/// Whether `LISTEN` held on a connection of the listener's: the next failure is then retried after the shortest delay.
private final class Listened: Sendable {
    let flag = Atomic(false)
}
