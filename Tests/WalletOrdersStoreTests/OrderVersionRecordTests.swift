import Foundation
import Testing
import WalletOrdersModel
import WalletOrdersStore

/// The record a version's history row keeps of its changes, decided once for both engines (issue 39, L1).
@Suite(.timeLimit(.minutes(5))) struct OrderVersionRecordTests {
    @Test func aRecordKeepsWithinItsBoundsAndCountsWhatItLeftOut() throws {
        // As large as anything can make them: long paths, values of control characters (six bytes each in JSON).
        let changes = (0..<300).map { index in
            JSONChange(
                path: "\(index)-" + String(repeating: "p", count: 30_000),
                before: .string(String(repeating: "\u{1}", count: 170)),
                after: .object(["big": .string(String(repeating: "v", count: 50_000))])
            )
        }
        let record = OrderVersion.record(changes, more: 7)
        #expect(record.utf8.count <= OrderVersion.maxRecordBytes)
        let read = try #require(OrderVersion.changes(record: record))
        #expect(read.listed.count + read.more == 307, "every change listed or counted")
        #expect(read.listed.count > 0 && read.listed.count <= OrderVersion.maxChanges)
        #expect(read.listed.allSatisfy { $0.path.utf8.count <= OrderVersion.maxPathBytes && $0.path.hasSuffix("…") })
        #expect(read.listed[0].after == .string("(50010 bytes)"))
        #expect(read.listed[0].before == .string(String(repeating: "\u{1}", count: 170)), "1,022 bytes in JSON: kept")
    }

    @Test func aSmallRecordIsKeptWholeAndAnEmptyOneSaysNothingChanged() throws {
        let status = JSONChange(path: "status", before: .string("open"), after: .string("completed"))
        let record = OrderVersion.record([status])
        #expect(record == #"[{"after":"completed","before":"open","path":"status"}]"#)
        #expect(OrderVersion.changes(record: record)?.listed == [status])
        #expect(OrderVersion.changes(record: record)?.more == 0)
        #expect(OrderVersion.record([]) == "[]" && OrderVersion.changes(record: "[]")?.listed == [])
        #expect(OrderVersion.changes(record: nil) == nil && OrderVersion.changes(record: "not json") == nil)
    }

    @Test func aRecordKeptBeforeRecordsWereBoundedIsBoundedOnTheWayOut() throws {
        // 150 paths of 30 KB, as versions written before this kept them.
        let old = JSONValue.array(
            (0..<150).map { index in
                .object(["path": .string("x\(index)-" + String(repeating: "n", count: 30_000)), "after": .string("v")])
            }
        )
        let text = String(decoding: old.serialized(), as: UTF8.self)
        #expect(text.utf8.count > 4_000_000)
        let read = try #require(OrderVersion.changes(record: text))
        #expect(read.listed.count + read.more == 150 && read.more > 0)
        #expect(read.listed.allSatisfy { $0.path.utf8.count <= OrderVersion.maxPathBytes })
        let version = OrderVersion(version: 2, status: .open, updatedAt: Date(), author: nil, record: text)
        #expect(version.changes == read.listed && version.changesLeftOut == read.more)
    }
}
