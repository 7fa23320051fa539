import Foundation
import Testing
import WalletOrdersModel

/// What changed between two documents, as a version's record takes it: listed up to a limit and counted past it,
/// with long paths and values shortened.
@Suite(.timeLimit(.minutes(5))) struct JSONChangesTests {
    @Test func changesPastTheLimitAreCountedAndLongPathsAndValuesShortened() {
        let wide = "w" + String(repeating: "n", count: 30_000)
        var after: [String: JSONValue] = ["status": .string("completed"), "note": .string(String(repeating: "x", count: 5_000))]
        for index in 0..<150 { after["\(index)-\(wide)"] = .string("v") }
        let before: JSONValue = .object(["status": .string("open"), "updatedAt": .string("then")])
        let changes = before.changes(to: .object(after), ignoring: ["updatedAt"], limit: 100, maxPathBytes: 64, maxValueBytes: 100)
        #expect(changes.listed.count == 100 && changes.more == 52, "152 changes, the removal of updatedAt ignored")
        #expect(changes.listed.allSatisfy { $0.path.utf8.count <= 64 })
        #expect(changes.listed.first?.path == "0-" + "w" + String(repeating: "n", count: 58) + "…")
        let all = before.changes(to: .object(after), ignoring: ["updatedAt"], limit: 1_000, maxPathBytes: 64, maxValueBytes: 100)
        #expect(all.more == 0 && all.listed.count == 152)
        #expect(all.listed.contains(JSONChange(path: "note", before: nil, after: .string("(5002 bytes)"))))
        #expect(all.listed.contains(JSONChange(path: "status", before: .string("open"), after: .string("completed"))))
    }

    @Test func aPathIsCutBetweenCharactersNeverInsideOne() {
        #expect(JSONChange.cut("short", maxBytes: 10) == "short")
        #expect(JSONChange.cut("ééééé", maxBytes: 10) == "ééééé", "ten bytes fit")
        // Three bytes for "…" leave seven: three two-byte characters, never half of the fourth.
        #expect(JSONChange.cut("éééééé", maxBytes: 10) == "ééé…")
        #expect(JSONChange.cut("🙂🙂🙂", maxBytes: 8) == "🙂…")
        #expect(JSONChange.cut("🙂🙂🙂", maxBytes: 8).utf8.count <= 8)
    }
}
