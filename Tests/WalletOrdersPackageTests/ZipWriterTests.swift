import Foundation
import Testing
import WalletOrdersTesting

@testable import WalletOrdersPackage

@Suite(.timeLimit(.minutes(5))) struct ZipWriterTests {
    let modified = Date(timeIntervalSince1970: 1_795_342_530)

    /// Tests an archive with the `unzip` command, not our own reader, and returns what it lists.
    private func unzipTest(_ archive: Data) async throws -> String {
        let folder = try TemporaryDirectory("zip")
        let path = try folder.write("archive.zip", archive)
        let result = try await Command.run("unzip", ["-t", path])
        #expect(result.status == 0, "\(result.output) \(result.error)")
        return result.output
    }

    @Test func storedAndDeflatedEntriesReadBackWithUnzipAndLibzip() async throws {
        let text = Data(String(repeating: "{\"key\": \"value\"}\n", count: 200).utf8)
        var generator = SystemRandomNumberGenerator()
        let noise = Data((0..<3_000).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let members = [
            ZipWriter.Member(path: "text.json", body: .init(compressing: text, effort: .perPackage)),
            ZipWriter.Member(path: "noise.png", body: .init(compressing: noise, effort: .best)),
            ZipWriter.Member(path: "empty.strings", body: .init(compressing: Data(), effort: .perPackage)),
            ZipWriter.Member(path: "fr.lproj/élan.png", body: .init(compressing: text, effort: .best)),
        ]
        #expect(members[0].body.method == 8)
        #expect(members[1].body.method == 0, "random bytes do not deflate, so they are stored")
        let archive = try ZipWriter.write(members, modified: modified)
        let listing = try await unzipTest(archive)
        #expect(listing.contains("No errors detected"))
        let entries = try ZipArchive.read(archive)
        #expect(entries.map(\.path) == ["text.json", "noise.png", "empty.strings", "fr.lproj/élan.png"])
        #expect(entries.map(\.data) == [text, noise, Data(), text])
    }

    @Test func theSameEntriesAndTimeGiveTheSameBytes() async throws {
        let write = {
            try ZipWriter.write(
                [
                    ZipWriter.Member(path: "a.json", body: .init(compressing: Data("{}".utf8), effort: .perPackage))
                ],
                modified: modified
            )
        }
        #expect(try write() == write())
        let later = try ZipWriter.write(
            [
                ZipWriter.Member(path: "a.json", body: .init(compressing: Data("{}".utf8), effort: .perPackage))
            ],
            modified: modified.addingTimeInterval(2)
        )
        #expect(try write() != later)
    }

    @Test func blocksCompressedAheadJoinStoredBlocksInOneEntry() async throws {
        let head = [UInt8]("head: changes every time ".utf8)
        let middle = [UInt8](String(repeating: "the same certificates every time ", count: 100).utf8)
        let tail = [UInt8](" tail: changes too".utf8)
        let blocks = middle.withUnsafeBytes { Deflate.compress($0, effort: .best, final: false) }
        let body = ZipWriter.Body(runs: [(head, nil), (middle, blocks), (tail, nil)])
        #expect(body.method == 8)
        #expect(body.size == head.count + middle.count + tail.count)
        #expect(body.bytes.count < middle.count / 4)
        let archive = try ZipWriter.write([ZipWriter.Member(path: "signature", body: body)], modified: modified)
        _ = try await unzipTest(archive)
        #expect(try ZipArchive.read(archive).first?.data == Data(head + middle + tail))
    }

    @Test func largeStoredRunsAreSplitIntoBlocksOf65535Bytes() async throws {
        var generator = SystemRandomNumberGenerator()
        let big = (0..<150_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let small = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000)
        let blocks = small.withUnsafeBytes { Deflate.compress($0, effort: .best, final: false) }
        let body = ZipWriter.Body(runs: [(small, blocks), (big, nil)])
        #expect(body.method == 8)
        let archive = try ZipWriter.write([ZipWriter.Member(path: "big.png", body: body)], modified: modified)
        _ = try await unzipTest(archive)
        #expect(try ZipArchive.read(archive).first?.data == Data(small + big))
    }
}
