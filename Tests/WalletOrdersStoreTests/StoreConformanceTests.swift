import Foundation
import Testing
import WalletOrdersModel
import WalletOrdersStore
import WalletOrdersTesting

/// What every store must do, run against each engine: a real SQLite file and a real PostgreSQL database.
@Suite(.timeLimit(.minutes(5))) struct StoreConformanceTests {
    let type = Writes.type
    let start = Writes.start

    @Test(arguments: StoreEngine.allCases)
    func aNewOrderIsStoredWithItsAssetsPackageAndFirstVersion(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            let created = try await store.createOrder(Writes.order(assets: ["photo.png": Data([1, 2])]))
            #expect(created.version == 1 && created.status == .open)
            let current = try #require(try await store.currentOrder(type: type, id: "A-1001"))
            #expect(current.assets == ["photo.png": Data([1, 2])])
            #expect(current.order.document == Writes.order().document)
            #expect(current.order.changeTag == created.changeTag)
            #expect(try await store.currentPackage() == "v1")
            #expect(try await store.versions(type: type, id: "A-1001").map(\.version) == [1])
            #expect(try await store.orderHead(type: type, id: "A-1001") == created.head)
            #expect(try await store.order(type: type, id: "nope") == nil)
            #expect(try await store.orderForFetch(type: type, id: "nope") == nil)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func creatingATakenIdentifierFailsAndChangesNothing(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            _ = try await store.createOrder(Writes.order(assets: ["a.png": Data([1])]))
            await #expect(throws: StoreError.orderExists) {
                try await store.createOrder(Writes.order(status: "cancelled", package: "other"))
            }
            await #expect(throws: StoreError.orderExists) {
                try await store.createOrder(Writes.order(package: "other", assets: ["b.png": Data([2])]))
            }
            #expect(try await store.order(type: type, id: "A-1001")?.status == .open)
            #expect(try await store.currentPackage() == "v1")
            #expect(try await store.currentOrder(type: type, id: "A-1001")?.assets == ["a.png": Data([1])])
            #expect(try await store.versions(type: type, id: "A-1001").map(\.version) == [1])
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func anUpdateCommitsOnlyOverTheVersionItWasBuiltFrom(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            _ = try await store.createOrder(Writes.order())
            let update = try await store.at(start).updateOrder(
                Writes.order(status: "completed", at: start.addingTimeInterval(60), package: "v2"),
                expectedVersion: 1
            )
            #expect(update.order.version == 2 && update.order.status == .completed)
            // A second write built from version 1 lost the race: nothing of it lands.
            await #expect(throws: StoreError.versionConflict) {
                try await store.at(start).updateOrder(
                    Writes.order(status: "cancelled", package: "stale", assets: ["x.png": Data([9])]),
                    expectedVersion: 1
                )
            }
            await #expect(throws: StoreError.orderNotFound) {
                try await store.at(start).updateOrder(Writes.order("missing"), expectedVersion: 1)
            }
            let current = try #require(try await store.currentOrder(type: type, id: "A-1001"))
            #expect(current.order.version == 2 && current.order.status == .completed && current.assets.isEmpty)
            #expect(try await store.currentPackage() == "v2")
            #expect(try await store.versions(type: type, id: "A-1001").map(\.status) == [.open, .completed])
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func assetsChangeOnlyWhenAnUpdateBringsThem(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            _ = try await store.createOrder(Writes.order(assets: ["a.png": Data([1])]))
            try await store.update(at: start.addingTimeInterval(1))
            #expect(try await store.currentOrder(type: type, id: "A-1001")?.assets == ["a.png": Data([1])])
            try await store.update(at: start.addingTimeInterval(2), assets: ["b.png": Data([2])])
            #expect(try await store.currentOrder(type: type, id: "A-1001")?.assets == ["b.png": Data([2])])
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func everyWriteGetsANewerChangeTag(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            var tags = [try await store.createOrder(Writes.order()).changeTag]
            tags.append(try await store.createOrder(Writes.order("B-2002")).changeTag)
            for second in 1...3 {
                tags.append(try await store.update(at: start.addingTimeInterval(Double(second))).order.changeTag)
            }
            #expect(tags == tags.sorted() && Set(tags).count == tags.count)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func aPackageIsSavedOnlyForTheCurrentVersion(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            _ = try await store.createOrder(Writes.order())
            try await store.update(at: start.addingTimeInterval(1), package: "v2")
            #expect(try await store.savePackage(type: type, id: "A-1001", version: 1, data: Data("late".utf8)) == false)
            #expect(try await store.currentPackage() == "v2")
            #expect(try await store.savePackage(type: type, id: "A-1001", version: 2, data: Data("re-signed".utf8)))
            #expect(try await store.currentPackage() == "re-signed")
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func registeringTwiceKeepsOneRegistrationWithTheNewestPushToken(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            _ = try await store.createOrder(Writes.order())
            #expect(
                try await store.at(start).register(
                    device: "d1",
                    type: type,
                    id: "A-1001",
                    pushToken: "aa",
                    maxDevices: nil,
                    firstDevice: .addedToWallet
                ) == .created
            )
            #expect(
                try await store.at(start).register(
                    device: "d1",
                    type: type,
                    id: "A-1001",
                    pushToken: "bb",
                    maxDevices: nil,
                    firstDevice: .addedToWallet
                ) == .existing
            )
            let registrations = try await store.registrations(RegistrationFilter(type: type, id: "A-1001"), limit: 10)
            #expect(registrations.map(\.pushToken) == ["bb"])
            #expect(try await store.registrationCount(type: type, id: "A-1001") == 1)
            try await store.at(start).unregister(device: "d1", type: type, id: "A-1001", lastDevice: .removedFromWallet)
            try await store.at(start).unregister(device: "d1", type: type, id: "A-1001", lastDevice: .removedFromWallet)
            #expect(try await store.registrationCount(type: type, id: "A-1001") == 0)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func anOrderAtItsDeviceCapRefusesANewDeviceButNotOneAlreadyRegistered(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            _ = try await store.createOrder(Writes.order())
            for device in ["d1", "d2"] {
                #expect(
                    try await store.at(start).register(
                        device: device,
                        type: type,
                        id: "A-1001",
                        pushToken: "aa",
                        maxDevices: 2,
                        firstDevice: .addedToWallet
                    ) == .created
                )
            }
            await #expect(throws: StoreError.tooManyDevices) {
                try await store.at(start).register(
                    device: "d3",
                    type: type,
                    id: "A-1001",
                    pushToken: "aa",
                    maxDevices: 2,
                    firstDevice: .addedToWallet
                )
            }
            #expect(
                try await store.at(start).register(
                    device: "d1",
                    type: type,
                    id: "A-1001",
                    pushToken: "bb",
                    maxDevices: 2,
                    firstDevice: .addedToWallet
                ) == .existing
            )
            #expect(try await store.registrationCount(type: type, id: "A-1001") == 2)
            try await store.at(start).unregister(device: "d2", type: type, id: "A-1001", lastDevice: .removedFromWallet)
            #expect(
                try await store.at(start).register(
                    device: "d3",
                    type: type,
                    id: "A-1001",
                    pushToken: "cc",
                    maxDevices: 2,
                    firstDevice: .addedToWallet
                ) == .created
            )
            // The cap counts one order's devices: another order's first device is welcome.
            _ = try await store.createOrder(Writes.order("A-1002"))
            #expect(
                try await store.at(start).register(
                    device: "d4",
                    type: type,
                    id: "A-1002",
                    pushToken: "dd",
                    maxDevices: 2,
                    firstDevice: .addedToWallet
                ) == .created
            )
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func changedOrdersListsWhatChangedAfterTheTag(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            #expect(try await store.changedOrders(device: "d1", type: type, since: nil) == nil)
            for id in ["A-1", "B-2"] {
                _ = try await store.createOrder(Writes.order(id))
                _ = try await store.at(start).register(
                    device: "d1",
                    type: type,
                    id: id,
                    pushToken: "aa",
                    maxDevices: nil,
                    firstDevice: .addedToWallet
                )
            }
            let all = try #require(try await store.changedOrders(device: "d1", type: type, since: nil))
            #expect(Set(all.orderIdentifiers) == ["A-1", "B-2"])
            // PostgreSQL hands out no tag past the oldest transaction still running anywhere in the cluster (other
            // tests' too), so it may list an order again until that transaction ends: a 304 for the device, never
            // a missed update. SQLite's single writer lists exactly what changed.
            let none = try #require(try await store.changedOrders(device: "d1", type: type, since: all.lastModified))
            #expect(Set(none.orderIdentifiers).isSubset(of: ["A-1", "B-2"]) && none.lastModified >= all.lastModified)
            if engine == .sqlite { #expect(none.orderIdentifiers.isEmpty) }
            try await store.update("B-2", at: start.addingTimeInterval(1))
            let one = try #require(try await store.changedOrders(device: "d1", type: type, since: none.lastModified))
            #expect(one.orderIdentifiers.contains("B-2") && one.lastModified >= none.lastModified)
            if engine == .sqlite { #expect(one.orderIdentifiers == ["B-2"] && one.lastModified > all.lastModified) }
            #expect(try await store.changedOrders(device: "d2", type: type, since: nil) == nil)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func anUpdateQueuesOnePendingPushPerDeviceAndTheyCollapse(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            _ = try await store.createOrder(Writes.order())
            _ = try await store.at(start).register(
                device: "d1",
                type: type,
                id: "A-1001",
                pushToken: "aa",
                maxDevices: nil,
                firstDevice: .addedToWallet
            )
            _ = try await store.at(start).register(
                device: "d2",
                type: type,
                id: "A-1001",
                pushToken: "bb",
                maxDevices: nil,
                firstDevice: .addedToWallet
            )
            for second in 1...3 {
                #expect(try await store.update(at: start.addingTimeInterval(Double(second))).pushesQueued == 2)
            }
            let pending = try await store.pushes(PushFilter(status: .pending), page: PageRequest(limit: 10)).records
            #expect(pending.map(\.deviceIdentifier).sorted() == ["d1", "d2"])
            #expect(try await store.pushCounts().outboxDepth == 2)
            #expect(try await store.nextPushDue(types: [type]) == start.addingTimeInterval(1))
            #expect(try await store.nextPushDue(types: ["order.com.example.other"]) == nil)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func writesAreAnnouncedToSubscribers(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            let events = store.events()
            _ = try await store.createOrder(Writes.order())
            _ = try await store.at(start).register(
                device: "d1",
                type: type,
                id: "A-1001",
                pushToken: "aa",
                maxDevices: nil,
                firstDevice: .addedToWallet
            )
            try await store.update(at: start.addingTimeInterval(1))
            var seen: Set<String> = []
            for await event in events {
                switch event {
                case .orderChanged(_, _, let version): seen.insert("version \(version)")
                case .pushesQueued: seen.insert("pushes")
                case .resync, .interrupted, .merchantsChanged, .webhooksQueued: break
                }
                if seen.isSuperset(of: ["version 1", "version 2", "pushes"]) { break }
            }
            #expect(seen.isSuperset(of: ["version 1", "version 2", "pushes"]))
        }
    }

    // MARK: The outbox

    @Test(arguments: StoreEngine.allCases)
    func twoClaimsNeverTakeTheSamePush(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            _ = try await store.createOrder(Writes.order())
            try await store.importRecords(
                orders: [],
                registrations: (0..<300).map {
                    ImportedRegistration(
                        deviceIdentifier: "d\($0)",
                        orderTypeIdentifier: type,
                        orderIdentifier: "A-1001",
                        pushToken: String(format: "%04x", $0),
                        createdAt: start
                    )
                }
            )
            try await store.update(at: start.addingTimeInterval(1))
            async let first = store.at(start.addingTimeInterval(2)).claimDuePushes(
                types: [type],
                limit: 200,
                claim: OutboxClaim(owner: "one", lease: 28)
            )
            async let second = store.at(start.addingTimeInterval(2)).claimDuePushes(
                types: [type],
                limit: 200,
                claim: OutboxClaim(owner: "two", lease: 28)
            )
            let (a, b) = try await (first, second)
            #expect(a.count + b.count == 300)
            #expect(Set(a.map(\.id)).isDisjoint(with: b.map(\.id)))
            #expect(a.allSatisfy { $0.attempts == 1 })
            #expect(try await store.pushCounts()[.sending] == 300)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func claimsOfADeadInstanceReturnToTheQueueAndALiveOnesAreKept(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            _ = try await store.createOrder(Writes.order())
            _ = try await store.at(start).register(
                device: "d1",
                type: type,
                id: "A-1001",
                pushToken: "aa",
                maxDevices: nil,
                firstDevice: .addedToWallet
            )
            _ = try await store.at(start).register(
                device: "d2",
                type: type,
                id: "A-1001",
                pushToken: "bb",
                maxDevices: nil,
                firstDevice: .addedToWallet
            )
            try await store.update(at: start)
            let dead = try await store.at(start).claimDuePushes(
                types: [type],
                limit: 1,
                claim: OutboxClaim(owner: "dead", lease: 30)
            )
            let live = try await store.at(start).claimDuePushes(
                types: [type],
                limit: 1,
                claim: OutboxClaim(owner: "live", lease: 30)
            )
            #expect(dead.count == 1 && live.count == 1)
            // The live instance renews; the dead one cannot.
            #expect(try await store.renewPushClaims(owner: "live", lease: 60) == 1)
            #expect(try await store.at(start.addingTimeInterval(29)).reclaimExpiredPushClaims() == 0)
            #expect(try await store.at(start.addingTimeInterval(31)).reclaimExpiredPushClaims() == 1)
            let pending = try await store.pushes(PushFilter(status: .pending), page: PageRequest(limit: 10)).records
            #expect(pending.map(\.deviceIdentifier) == [dead[0].deviceIdentifier])
            // The dead instance comes back and reports: its claim is gone, so nothing it says is recorded.
            try await store.at(start.addingTimeInterval(32)).finishPushes([(dead[0], .delivered)], owner: "dead")
            #expect(try await store.pushCounts()[.delivered] == 0)
            try await store.at(start.addingTimeInterval(32)).finishPushes([(live[0], .delivered)], owner: "live")
            #expect(try await store.pushCounts()[.delivered] == 1)
            let again = try await store.at(start.addingTimeInterval(33)).claimDuePushes(
                types: [type],
                limit: 5,
                claim: OutboxClaim(owner: "live", lease: 57)
            )
            #expect(again.map(\.deviceIdentifier) == [dead[0].deviceIdentifier] && again[0].attempts == 2)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func releasedClaimsGoBackAndACoveredOneGoes(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            _ = try await store.createOrder(Writes.order())
            _ = try await store.at(start).register(
                device: "d1",
                type: type,
                id: "A-1001",
                pushToken: "aa",
                maxDevices: nil,
                firstDevice: .addedToWallet
            )
            try await store.update(at: start)
            let claimed = try await store.at(start).claimDuePushes(
                types: [type],
                limit: 5,
                claim: OutboxClaim(owner: "me", lease: 30)
            )
            #expect(claimed.count == 1)
            // A newer update queues a new pending push for the same device while the first is being sent.
            try await store.update(at: start.addingTimeInterval(1))
            #expect(try await store.releasePushClaims(owner: "me") == 1)
            let counts = try await store.pushCounts()
            #expect(counts[.pending] == 1 && counts[.sending] == 0)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func outcomesAreRecordedAndRejectedTokensLoseTheirRegistrations(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            _ = try await store.createOrder(Writes.order())
            for (device, token) in [("d1", "aa"), ("d2", "bb"), ("d3", "cc"), ("d4", "dd")] {
                _ = try await store.at(start).register(
                    device: device,
                    type: type,
                    id: "A-1001",
                    pushToken: token,
                    maxDevices: nil,
                    firstDevice: .addedToWallet
                )
            }
            try await store.update(at: start)
            let jobs = try await store.at(start).claimDuePushes(
                types: [type],
                limit: 10,
                claim: OutboxClaim(owner: "me", lease: 30)
            )
            let byDevice = Dictionary(uniqueKeysWithValues: jobs.map { ($0.deviceIdentifier, $0) })
            try await store.at(start.addingTimeInterval(1)).finishPushes(
                [
                    (byDevice["d1"]!, .delivered),
                    (byDevice["d2"]!, .retry(after: 9, reason: "HTTP 503")),
                    (byDevice["d3"]!, .failed(reason: "PayloadTooLarge", notice: nil)),
                    (byDevice["d4"]!, .tokenRejected(reason: "Unregistered", notice: nil)),
                ],
                owner: "me"
            )
            let pushes = try await store.pushes(PushFilter(), page: PageRequest(limit: 10)).records
            let status = Dictionary(uniqueKeysWithValues: pushes.map { ($0.deviceIdentifier, $0) })
            #expect(status["d1"]?.status == .delivered)
            #expect(
                status["d2"]?.status == .pending && status["d2"]?.lastError == "HTTP 503"
                    && status["d2"]?.nextAttemptAt == start.addingTimeInterval(10) && status["d2"]?.attempts == 1
            )
            #expect(status["d3"]?.status == .failed && status["d3"]?.lastError == "PayloadTooLarge")
            #expect(status["d4"]?.status == .failed)
            let devices = try await store.registrations(RegistrationFilter(type: type, id: "A-1001"), limit: 10)
            #expect(Set(devices.map(\.deviceIdentifier)) == ["d1", "d2", "d3"])
            #expect(try await store.nextPushDue(types: [type]) == start.addingTimeInterval(10))
        }
    }

    // MARK: Admin

    @Test(arguments: StoreEngine.allCases)
    func listingsPageNewestFirstAndSayWhenThereIsMore(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            for index in 1...5 { _ = try await store.createOrder(Writes.order("O-\(index)")) }
            let first = try await store.orders(OrderFilter(), page: PageRequest(limit: 2))
            #expect(first.records.map(\.orderIdentifier) == ["O-5", "O-4"] && first.next != nil)
            let second = try await store.orders(OrderFilter(), page: PageRequest(limit: 2, before: first.next))
            #expect(second.records.map(\.orderIdentifier) == ["O-3", "O-2"])
            let last = try await store.orders(OrderFilter(), page: PageRequest(limit: 2, before: second.next))
            #expect(last.records.map(\.orderIdentifier) == ["O-1"] && last.next == nil)
            let exact = try await store.orders(OrderFilter(), page: PageRequest(limit: 5))
            #expect(exact.records.count == 5 && exact.next == nil)
            try await store.update("O-2", status: "cancelled", at: start.addingTimeInterval(60))
            #expect(
                try await store.orders(OrderFilter(status: .cancelled), page: PageRequest(limit: 10)).records
                    .map(\.orderIdentifier) == ["O-2"]
            )
            #expect(
                try await store.orders(OrderFilter(updatedSince: start.addingTimeInterval(30)), page: PageRequest(limit: 10))
                    .records.map(\.orderIdentifier) == ["O-2"]
            )
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func everyVersionIsRecordedWithItsTimeAndStatus(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            _ = try await store.createOrder(Writes.order())
            try await store.update(status: "completed", at: start.addingTimeInterval(60))
            try await store.update(status: "cancelled", at: start.addingTimeInterval(120))
            let versions = try await store.versions(type: type, id: "A-1001")
            #expect(versions.map(\.version) == [1, 2, 3])
            #expect(versions.map(\.status) == [.open, .completed, .cancelled])
            #expect(versions.map(\.updatedAt) == [start, start.addingTimeInterval(60), start.addingTimeInterval(120)])
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func failedPushesPruneTheirRegistrationsAndStatsCountThem(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            _ = try await store.createOrder(Writes.order())
            for (device, token) in [("d1", "aa01"), ("d2", "bb02")] {
                _ = try await store.at(start).register(
                    device: device,
                    type: type,
                    id: "A-1001",
                    pushToken: token,
                    maxDevices: nil,
                    firstDevice: .addedToWallet
                )
            }
            try await store.update(status: "completed", at: start.addingTimeInterval(60))
            let jobs = try await store.at(start.addingTimeInterval(61)).claimDuePushes(
                types: [type],
                limit: 10,
                claim: OutboxClaim(owner: "me", lease: 29)
            )
            #expect(jobs.count == 2)
            try await store.at(start.addingTimeInterval(62)).finishPushes(
                jobs.map { ($0, $0.deviceIdentifier == "d1" ? .failed(reason: "gave up", notice: nil) : .delivered) },
                owner: "me"
            )
            let stats = try await store.at(start.addingTimeInterval(120)).stats()
            #expect(stats.pushesLastHour == [.delivered: 1, .failed: 1])
            #expect(stats.registrations == 2 && stats.devices == 2 && stats.outboxDepth == 0 && stats.orders == 1)
            #expect(stats.ordersByStatus == [.completed: 1])

            #expect(try await store.pruneFailedRegistrations() == 1)
            #expect(
                try await store.registrations(RegistrationFilter(type: type, id: "A-1001"), limit: 10)
                    .map(\.deviceIdentifier) == ["d2"]
            )
            #expect(try await store.pruneFailedRegistrations() == 0)

            #expect(try await store.at(start.addingTimeInterval(200)).resendPushes(type: type, id: "A-1001") == 1)
            #expect(try await store.at(start).resendPushes(type: type, id: "no-such-order") == nil)
            #expect(try await store.at(start.addingTimeInterval(200)).stats().outboxDepth == 1)
            #expect(try await store.at(start.addingTimeInterval(63)).prunePushes(olderThan: 0) == 2)
            #expect(try await store.pushCounts().byStatus == [.pending: 1])
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func logsAreSearchedPagedAndPrunedByAge(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            _ = try await store.at(start).appendLogs(
                ["old: Request failed", "50% done_"],
                merchants: [:],
                remoteAddress: "10.0.0.1",
                maxBytes: .max
            )
            _ = try await store.at(start.addingTimeInterval(3 * 86_400)).appendLogs(
                ["new: all good"],
                merchants: [:],
                remoteAddress: nil,
                maxBytes: .max
            )
            #expect(
                try await store.logs(LogFilter(containing: "REQUEST"), page: PageRequest(limit: 10)).records
                    .map(\.message) == ["old: Request failed"]
            )
            // A plain substring: no pattern characters.
            #expect(
                try await store.logs(LogFilter(containing: "% done_"), page: PageRequest(limit: 10)).records
                    .map(\.message) == ["50% done_"]
            )
            #expect(try await store.logs(LogFilter(containing: "_"), page: PageRequest(limit: 10)).records.count == 1)
            let recent = try await store.logs(LogFilter(since: start.addingTimeInterval(86_400)), page: PageRequest(limit: 10))
            #expect(recent.records.map(\.message) == ["new: all good"] && recent.records[0].remoteAddress == nil)
            let first = try await store.logs(LogFilter(), page: PageRequest(limit: 2))
            #expect(first.records.count == 2 && first.next != nil)
            #expect(try await store.logs(LogFilter(), page: PageRequest(limit: 2, before: first.next)).records.count == 1)
            #expect(try await store.at(start.addingTimeInterval(86_400)).pruneLogs(olderThan: 0) == 2)
            #expect(try await store.logs(LogFilter(), page: PageRequest(limit: 10)).records.map(\.message) == ["new: all good"])
            #expect(try await store.logBytes() == DeviceLogEntry.storedSize(of: "new: all good"))
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func identicalMessagesFoldIntoOneEntryWithACountAndTheTimeLastSeen(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            let first = try await store.at(start).appendLogs(
                ["Request failed", "Request failed", "other"],
                merchants: [:],
                remoteAddress: "10.0.0.1",
                maxBytes: .max
            )
            #expect(first == DeviceLogAppend(stored: 2, folded: 1, evicted: 0))
            let later = start.addingTimeInterval(90)
            let second = try await store.at(later).appendLogs(
                ["Request failed", "request failed"],
                merchants: [:],
                remoteAddress: "10.0.0.2",
                maxBytes: .max
            )
            // Folding is by the exact text: a different case is another message.
            #expect(second == DeviceLogAppend(stored: 1, folded: 1, evicted: 0))
            let entries = try await store.logs(LogFilter(), page: PageRequest(limit: 10)).records
            #expect(entries.map(\.message) == ["request failed", "other", "Request failed"])
            let folded = try #require(entries.last)
            #expect(folded.count == 3 && folded.receivedAt == start && folded.lastSeenAt == later)
            #expect(folded.remoteAddress == "10.0.0.2")
            #expect(entries[1].count == 1 && entries[1].lastSeenAt == start)
            // Seen since a minute after the start: the folded entry was seen again.
            #expect(
                try await store.logs(LogFilter(since: start.addingTimeInterval(60)), page: PageRequest(limit: 10))
                    .records.map(\.message) == ["request failed", "Request failed"]
            )
            #expect(
                try await store.logBytes()
                    == ["Request failed", "other", "request failed"]
                    .map(DeviceLogEntry.storedSize(of:)).reduce(0, +)
            )
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func theLogStaysWithinItsTotalSizeTheEntriesLastSeenLongestAgoGoingFirst(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            // Four digits each: every entry the same size.
            let message = { (index: Int) in "entry \(1_000 + index) " + String(repeating: "x", count: 100) }
            let size = DeviceLogEntry.storedSize(of: message(10))
            let cap = 10 * size
            for index in 10..<20 {
                let outcome = try await store.at(start.addingTimeInterval(Double(index))).appendLogs(
                    [message(index)],
                    merchants: [:],
                    remoteAddress: nil,
                    maxBytes: cap
                )
                #expect(outcome == DeviceLogAppend(stored: 1, folded: 0, evicted: 0))
            }
            #expect(try await store.logBytes() == cap)
            // Entry 10 seen again: now entry 11 is the one seen longest ago.
            _ = try await store.at(start.addingTimeInterval(30)).appendLogs([message(10)], merchants: [:], remoteAddress: nil, maxBytes: cap)
            let outcome = try await store.at(start.addingTimeInterval(31)).appendLogs(
                [message(20), message(21), message(22)],
                merchants: [:],
                remoteAddress: nil,
                maxBytes: cap
            )
            #expect(outcome == DeviceLogAppend(stored: 3, folded: 0, evicted: 3))
            let kept = try await store.logs(LogFilter(), page: PageRequest(limit: 100)).records.map(\.message)
            #expect(Set(kept) == Set(([10] + Array(14...22)).map(message)))
            #expect(try await store.logBytes() == cap)
            // A batch larger than the whole log keeps only what fits, the newest.
            let flood = (100..<200).map(message)
            let flooded = try await store.at(start.addingTimeInterval(40)).appendLogs(flood, merchants: [:], remoteAddress: nil, maxBytes: cap)
            #expect(flooded.stored == 100 && flooded.evicted == 100)
            #expect(try await store.logBytes() == cap)
            #expect(
                try await store.logs(LogFilter(), page: PageRequest(limit: 100)).records.map(\.message)
                    == (190..<200).reversed().map(message)
            )
            #expect(try await store.at(start.addingTimeInterval(41)).pruneLogs(olderThan: 0) == 10)
            #expect(try await store.logBytes() == 0)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func importedOrdersAndRegistrationsAreListedAndServed(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            let orders = (0..<250).map { index in
                ImportedOrder(
                    orderTypeIdentifier: type,
                    orderIdentifier: "I-\(index)",
                    authenticationToken: "token-\(index)",
                    document: SampleOrder.document(orderIdentifier: "I-\(index)"),
                    createdAt: start,
                    updatedAt: start,
                    package: index.isMultiple(of: 2) ? Data("p\(index)".utf8) : nil
                )
            }
            let registrations = (0..<250).map { index in
                ImportedRegistration(
                    deviceIdentifier: "device-\(index % 50)",
                    orderTypeIdentifier: type,
                    orderIdentifier: "I-\(index)",
                    pushToken: "ab\(index % 50)",
                    createdAt: start
                )
            }
            try await store.importRecords(orders: orders, registrations: registrations)
            let stats = try await store.at(start).stats()
            #expect(stats.orders == 250 && stats.registrations == 250 && stats.devices == 50)
            let listed = try #require(try await store.changedOrders(device: "device-7", type: type, since: nil))
            #expect(Set(listed.orderIdentifiers) == Set(stride(from: 7, to: 250, by: 50).map { "I-\($0)" }))
            #expect(try await store.orderForFetch(type: type, id: "I-4")?.package == Data("p4".utf8))
            #expect(try await store.orderForFetch(type: type, id: "I-5")?.package == nil)
            #expect(try await store.orderHead(type: type, id: "I-5")?.authenticationToken == "token-5")
            let updated = try await store.update("I-5", at: start.addingTimeInterval(1))
            #expect(updated.order.version == 2 && updated.pushesQueued == 1)
            #expect(updated.order.changeTag > listed.lastModified)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func migrationsApplyOnce(engine: StoreEngine) async throws {
        try await TestStore.with(engine) { store in
            #expect(try await store.migrate() == [])
            #expect(try await store.pendingMigrations() == [])
            try await store.checkWritable()
            try await store.optimize()
            #expect(await store.isReachable())
        }
    }
}
