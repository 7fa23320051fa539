import Foundation
import Synchronization

/// A device's events in order, and the live watchers each new one goes to.
final class Transcript: Sendable {
    private struct State {
        var events: [DeviceEvent] = []
        var watchers: [UInt64: AsyncStream<DeviceEvent>.Continuation] = [:]
        var nextWatcher: UInt64 = 0
        var finished = false
    }

    private let state = Mutex(State())

    /// Every event so far.
    var events: [DeviceEvent] { state.withLock { $0.events } }

    func append(_ event: DeviceEvent) {
        let watchers = state.withLock { state -> [AsyncStream<DeviceEvent>.Continuation] in
            state.events.append(event)
            return Array(state.watchers.values)
        }
        for watcher in watchers { watcher.yield(event) }
    }

    /// The events from now on; with `replay`, the ones so far first.
    func watch(replay: Bool) -> AsyncStream<DeviceEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: DeviceEvent.self)
        let id = state.withLock { state -> UInt64? in
            guard !state.finished else { return nil }
            if replay { for event in state.events { continuation.yield(event) } }
            let id = state.nextWatcher
            state.nextWatcher += 1
            state.watchers[id] = continuation
            return id
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        // Set outside the lock: a termination handler takes it.
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.watchers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Ends every watcher's stream; later events are still recorded.
    func finish() {
        let watchers = state.withLock { state -> [AsyncStream<DeviceEvent>.Continuation] in
            state.finished = true
            defer { state.watchers.removeAll() }
            return Array(state.watchers.values)
        }
        for watcher in watchers { watcher.finish() }
    }
}
