import Foundation
import Synchronization
import Testing

@testable import WalletOrdersService

#if canImport(Glibc)
import Glibc
#endif

/// The threads merchant writes run on: never more at once than the pool has, below the priority of device work.
@Suite(.timeLimit(.minutes(5))) struct WritePoolTests {
    struct Refused: Error, Equatable {}

    /// How many jobs run now, and the most that ever ran at once.
    final class Concurrency: Sendable {
        private let state = Mutex((now: 0, most: 0))
        func enter() {
            state.withLock {
                $0.now += 1
                $0.most = max($0.most, $0.now)
            }
        }
        func leave() { state.withLock { $0.now -= 1 } }
        var most: Int { state.withLock { $0.most } }
    }

    @Test func workRunsOnThePoolsOwnLowerPriorityThreadsAndItsErrorsReachTheCaller() async throws {
        let pool = WritePool(threads: 1)
        let (name, niceness) = try await pool.run { () -> (String, Int32) in
            (Self.threadName(), getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0))
        }
        #expect(name == "wo-write-0")
        #expect(niceness == WritePool.niceness)
        // The caller's own thread keeps its priority.
        #expect(getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) < WritePool.niceness)
        await #expect(throws: Refused.self) { try await pool.run { () -> Int in throw Refused() } }
    }

    static func threadName() -> String {
        let name = try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)
        return (name ?? "").trimmingCharacters(in: .newlines)
    }

    /// A nonisolated async function, as the store's are: it runs where its caller's task prefers.
    static func threadNameAfterSuspending() async throws -> String {
        try await Task.sleep(for: .milliseconds(1))
        return threadName()
    }

    @Test func aWriteStaysOnThePoolAcrossItsAwaits() async throws {
        let pool = WritePool(threads: 1)
        let names = try await pool.run { () async throws -> [String] in
            var names = [Self.threadName()]
            try await Task.sleep(for: .milliseconds(1))
            names.append(Self.threadName())
            names.append(try await Self.threadNameAfterSuspending())
            return names
        }
        #expect(names == ["wo-write-0", "wo-write-0", "wo-write-0"])
        // Outside `run`, the caller is back on its own threads.
        #expect(Self.threadName() != "wo-write-0")
    }

    @Test func manyCallersAtOnceAreServedNoMoreThanThePoolsThreadsAtATime() async throws {
        let pool = WritePool(threads: 2)
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
