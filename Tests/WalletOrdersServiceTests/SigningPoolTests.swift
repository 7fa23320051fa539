import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Testing
@testable import WalletOrdersService

/// The threads packages are signed on: never more at once than the pool has, below the priority of device work.
@Suite struct SigningPoolTests {
    struct Refused: Error, Equatable {}

    /// How many jobs run now, and the most that ever ran at once.
    final class Concurrency: Sendable {
        private let state = Mutex((now: 0, most: 0))
        func enter() { state.withLock { $0.now += 1; $0.most = max($0.most, $0.now) } }
        func leave() { state.withLock { $0.now -= 1 } }
        var most: Int { state.withLock { $0.most } }
    }

    @Test func workRunsOnThePoolsOwnLowerPriorityThreadsAndItsErrorsReachTheCaller() async throws {
        let pool = SigningPool(threads: 1)
        let (name, niceness) = try await pool.run { () -> (String, Int32) in
            let name = try String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)
            return (name.trimmingCharacters(in: .newlines), getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0))
        }
        #expect(name == "wo-signing-0")
        #expect(niceness == SigningPool.niceness)
        // The caller's own thread keeps its priority.
        #expect(getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) < SigningPool.niceness)
        await #expect(throws: Refused.self) { try await pool.run { () -> Int in throw Refused() } }
    }

    @Test func manyCallersAtOnceAreServedNoMoreThanThePoolsThreadsAtATime() async throws {
        let pool = SigningPool(threads: 2)
        let running = Concurrency()
        let results = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<200 {
                group.addTask {
                    try await pool.run {
                        running.enter()
                        usleep(200)
                        running.leave()
                        return index
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.sorted() == Array(0..<200))
        #expect(running.most == 2)
    }
}
