import NIOCore
import Testing

@testable import WalletOrdersHTTP

/// Splitting a body of newline-delimited JSON into lines as its chunks arrive, wherever they are cut.
@Suite(.timeLimit(.minutes(5))) struct NDJSONLinesTests {
    /// The lines of a body that arrives as `chunks`, as text or as "too long", each with its number.
    static func lines(_ chunks: [String], limit: Int = 100) async throws -> [String] {
        let body = AsyncStream<ByteBuffer> { continuation in
            for chunk in chunks { continuation.yield(ByteBuffer(string: chunk)) }
            continuation.finish()
        }
        var lines: [String] = []
        for try await line in NDJSONLines(body, limit: limit) {
            switch line {
            case .text(let number, let bytes): lines.append("\(number): \(String(buffer: bytes))")
            case .tooLong(let number): lines.append("\(number): too long")
            }
        }
        return lines
    }

    @Test func linesCutAcrossChunksComeWholeAndBlankLinesAreSkippedButCounted() async throws {
        let lines = try await Self.lines(["{\"a\"", ":1}\n\n  \r\n{\"b\":2}\r", "\n{\"c\"", ":3}"])
        #expect(lines == ["1: {\"a\":1}", "4: {\"b\":2}\r", "5: {\"c\":3}"])
    }

    @Test func aBodyEndingWithANewlineOrNothingHasNoLineMore() async throws {
        #expect(try await Self.lines(["{}\n"]) == ["1: {}"])
        #expect(try await Self.lines(["{}\n", "\n"]) == ["1: {}"])
        #expect(try await Self.lines([]) == [])
        #expect(try await Self.lines(["\n\n"]) == [])
    }

    @Test func aLineOverTheLimitIsAnsweredTooLongAndTheNextOneIsRead() async throws {
        let long = String(repeating: "x", count: 25)
        // Exactly the limit is allowed; one byte more is not, however it is cut.
        let lines = try await Self.lines(
            [String(repeating: "y", count: 10) + "\n" + long.prefix(5), String(long.dropFirst(5)) + "\n{}\n", long, "\n"],
            limit: 10
        )
        #expect(lines == ["1: yyyyyyyyyy", "2: too long", "3: {}", "4: too long"])
    }
}
