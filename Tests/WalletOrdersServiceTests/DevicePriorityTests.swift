import Foundation
import Synchronization
import Testing
import WalletOrdersStore
import WalletOrdersTesting

@testable import WalletOrdersService

/// Merchant writes give way to device requests: fewer at once while devices are answered, in order, never refused.
@Suite(.timeLimit(.minutes(5))) struct DevicePriorityTests {
    /// Something a test holds shut, then opens: whoever waits on it goes on, now or later.
    final class Latch: Sendable {
        private let state = Mutex((open: false, waiting: [CheckedContinuation<Void, Never>]()))

        func wait() async {
            await withCheckedContinuation { continuation in
                let open = state.withLock { state in
                    if !state.open { state.waiting.append(continuation) }
                    return state.open
                }
                if open { continuation.resume() }
            }
        }

        func open() {
            let waiting = state.withLock { state in
                state.open = true
                defer { state.waiting = [] }
                return state.waiting
            }
            for continuation in waiting { continuation.resume() }
        }
    }

    /// The writes that got in, in the order they did, and how many waited first.
    final class Log: Sendable {
        private let state = Mutex((entered: [Int](), waited: 0))
        func enter(_ index: Int) { state.withLock { $0.entered.append(index) } }
        func waited() { state.withLock { $0.waited += 1 } }
        var entered: [Int] { state.withLock { $0.entered } }
        var waitedCount: Int { state.withLock { $0.waited } }
    }

    /// Waits (up to a generous limit) until `condition` holds.
    static func eventually(_ what: Comment, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("never happened: \(what)")
                return
            }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    /// Starts merchant writes `indices` one after the other, each once the previous one is in or waiting; each holds
    /// its place until its latch opens.
    static func startWrites(
        _ indices: Range<Int>,
        gate: DevicePriority,
        latches: [Latch],
        log: Log,
        in group: inout TaskGroup<Void>
    ) async throws {
        for index in indices {
            let before = gate.counts
            group.addTask {
                await gate.merchantWrite(waited: log.waited) {
                    log.enter(index)
                    await latches[index].wait()
                }
            }
            try await eventually("write \(index) is in or waiting") {
                let now = gate.counts
                return now.writes + now.waiting == before.writes + before.waiting + 1
            }
        }
    }

    @Test func withoutDevicesTheIdleLimitRunsAndTheRestWaitTheirTurnInOrder() async throws {
        let gate = DevicePriority(busyLimit: 1, idleLimit: 3, window: .zero)
        let latches = (0..<5).map { _ in Latch() }
        let log = Log()
        await withTaskGroup(of: Void.self) { group in
            do {
                try await Self.startWrites(0..<5, gate: gate, latches: latches, log: log, in: &group)
                #expect(log.entered == [0, 1, 2])
                #expect(gate.counts.writes == 3 && gate.counts.waiting == 2)
                #expect(log.waitedCount == 2)
                latches[1].open()
                try await Self.eventually("the first waiting write gets in") { log.entered.count == 4 }
                #expect(log.entered.last == 3, "first come, first served")
                latches[0].open()
                try await Self.eventually("the second one too") { log.entered.count == 5 }
                #expect(log.entered.last == 4)
            } catch {
                Issue.record(error)
            }
            for latch in latches { latch.open() }
        }
        #expect(gate.counts.writes == 0 && gate.counts.waiting == 0)
    }

    @Test func whileADeviceIsAnsweredOnlyTheBusyLimitRunsAndTheRestGetInWhenItIsDone() async throws {
        let gate = DevicePriority(busyLimit: 1, idleLimit: 3, window: .zero)
        let latches = (0..<3).map { _ in Latch() }
        let device = Latch()
        let log = Log()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await gate.device { await device.wait() } }
            do {
                try await Self.eventually("the device request is in flight") { gate.counts.devices == 1 }
                try await Self.startWrites(0..<3, gate: gate, latches: latches, log: log, in: &group)
                #expect(log.entered == [0], "one write beside the device request")
                #expect(gate.counts.waiting == 2)
                device.open()
                try await Self.eventually("the device is answered and the writes waiting get in") {
                    log.entered.count == 3
                }
                #expect(log.entered == [0, 1, 2])
                #expect(gate.counts.devices == 0)
            } catch {
                Issue.record(error)
            }
            for latch in latches { latch.open() }
        }
    }

    @Test func devicesCountForTheWindowAfterTheirLastRequest() async throws {
        let gate = DevicePriority(busyLimit: 1, idleLimit: 4, window: .seconds(3600))
        let latches = (0..<2).map { _ in Latch() }
        let log = Log()
        #expect(await gate.device { 42 } == 42, "a device request answers what its body does")
        await #expect(throws: CancellationError.self) { try await gate.device { throw CancellationError() } }
        #expect(gate.counts.devices == 0, "a request that threw is done too")
        await withTaskGroup(of: Void.self) { group in
            do {
                try await Self.startWrites(0..<2, gate: gate, latches: latches, log: log, in: &group)
                #expect(log.entered == [0], "within the window the busy limit holds though no device is in flight")
                latches[0].open()
                try await Self.eventually("the next write takes the place") { log.entered == [0, 1] }
                #expect(gate.counts.writes == 1)
            } catch {
                Issue.record(error)
            }
            for latch in latches { latch.open() }
        }
    }

    @Test func aMachinesGateRunsOneWritePerCoreBesideDevicesAndFourPerCoreWithout() {
        let gate = DevicePriority(cores: 2)
        #expect(gate.busyLimit == 2 && gate.idleLimit == 8 && gate.window == .milliseconds(10))
        let single = DevicePriority(busyLimit: 0, idleLimit: 0, window: .zero)
        #expect(single.busyLimit == 1 && single.idleLimit == 1, "at least one write always runs")
    }

    /// The service's merchant writes go through its gate, and its device requests count: an update over the
    /// limit waits, is counted, and lands once a place is free.
    @Test(arguments: StoreEngine.allCases)
    func aMerchantUpdateOverTheLimitWaitsForAPlaceAndThenLands(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            let log = Log()
            let service = try OrderServiceTests.service(
                store,
                counters: OrderService.Counters(merchantWriteWaited: { log.waited() })
            )
            let order = try await OrderServiceTests.create(service)
            let gate = service.priority
            // Each of the device API's requests counts as one, whatever its answer.
            let type = order.orderTypeIdentifier
            let id = order.orderIdentifier
            let token = order.authenticationToken
            let pushToken = String(repeating: "ab", count: 32)
            let requests: [@Sendable () async throws -> Void] = [
                { _ = try await service.register(device: "d", type: type, id: id, token: token, pushToken: pushToken) },
                { _ = try await service.changedOrders(device: "d", type: type, since: nil) },
                { _ = try await service.fetch(type: type, id: id, token: token) },
                { _ = try? await service.fetch(type: type, id: id, token: "wrong") },
                { _ = await service.appendLogs(["a message"], remoteAddress: nil) },
                { try await service.unregister(device: "d", type: type, id: id, token: token) },
            ]
            for (index, request) in requests.enumerated() {
                try await request()
                #expect(gate.counts.answered == index + 1)
            }
            #expect(gate.counts.devices == 0)
            // Every place beside devices taken, by writes the test holds, while a device request is in flight.
            let device = Latch()
            let held = Latch()
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await gate.device { await device.wait() } }
                try await Self.eventually("the device request is in flight") { gate.counts.devices == 1 }
                for _ in 0..<gate.busyLimit {
                    group.addTask { await gate.merchantWrite { await held.wait() } }
                }
                try await Self.eventually("the places are taken") { gate.counts.writes == gate.busyLimit }
                let update = Task {
                    try await service.patch(
                        type: order.orderTypeIdentifier,
                        id: order.orderIdentifier,
                        OrderPatch(changes: ["orderNumber": .string("N-2")])
                    ).order.version
                }
                try await Self.eventually("the update waits") { gate.counts.waiting == 1 }
                #expect(log.waitedCount == 1)
                held.open()
                #expect(try await update.value == 2)
                device.open()
                try await group.waitForAll()
            }
            #expect(gate.counts.writes == 0 && gate.counts.waiting == 0)
        }
    }
}
