import Foundation

/// Runs blocking work (a program to wait for, a file to sync, a server to start) on a thread of its own and
/// answers what it answered, so that no thread of Swift's cooperative pool waits for it.
///
/// That pool has one thread per core: on a 2-core machine two tests waiting for `psql` at once would stop every
/// other test's tasks (their servers' handlers included) until the programs end.
public func onOwnThread<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}
