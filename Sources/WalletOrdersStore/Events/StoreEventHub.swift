import Foundation
import Synchronization

/// Hands each store event to every current subscriber, in process. Subscribers that fall behind lose the
/// oldest events first, and then receive `resync` (or `interrupted`, when not listening) after what they lost:
/// an event only says "look again", so the newest ones are what matters, as long as a loss is never silent.
public final class StoreEventHub: Sendable {
    private let state: Mutex<State>
    static let buffer = 1_024

    private struct State {
        var subscribers: [UUID: AsyncStream<StoreEvent>.Continuation] = [:]
        var closed = false
        var complete: Bool
    }

    /// A hub whose events are `complete` from the start (one process holds the data), or not until `resume()`
    /// (other instances' events arrive through a connection not yet listening).
    public init(complete: Bool) {
        state = Mutex(State(complete: complete))
    }

    /// A new subscription, ended by `close()`; it starts with `resync` when the events are complete now.
    public func subscribe() -> AsyncStream<StoreEvent> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: StoreEvent.self,
            bufferingPolicy: .bufferingNewest(Self.buffer)
        )
        let id = UUID()
        let accepted = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.subscribers[id] = continuation
            if state.complete { continuation.yield(.resync) }
            return true
        }
        guard accepted else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Tells every subscriber.
    public func publish(_ event: StoreEvent) {
        // Under the lock, so `resume` and `interrupt` are never overtaken by an event published before them.
        state.withLock { state in
            for continuation in state.subscribers.values {
                if case .dropped = continuation.yield(event) {
                    // The newest is kept, so this lands after whatever was lost.
                    continuation.yield(state.complete ? .resync : .interrupted)
                }
            }
        }
    }

    /// Events are complete again from now on (the store listens): every subscriber receives `resync`.
    public func resume() {
        state.withLock { $0.complete = true }
        publish(.resync)
    }

    /// Events of other instances may be lost from now on: every subscriber receives `interrupted`.
    public func interrupt() {
        state.withLock { $0.complete = false }
        publish(.interrupted)
    }

    /// Ends every subscription, now and later.
    public func close() {
        let continuations = state.withLock { state -> [AsyncStream<StoreEvent>.Continuation] in
            state.closed = true
            defer { state.subscribers.removeAll() }
            return Array(state.subscribers.values)
        }
        for continuation in continuations { continuation.finish() }
    }
}
