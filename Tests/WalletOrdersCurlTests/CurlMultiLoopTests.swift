import Foundation
import Testing
import WalletOrdersCurl
import WalletOrdersTesting

/// Many transfers at once on the multi loop's thread, against a real HTTP server.
@Suite(.timeLimit(.minutes(5))) struct CurlMultiLoopTests {
    static func loop() throws -> CurlMultiLoop {
        try CurlMultiLoop(label: "the test loop", threadName: "curl-tests", connections: 2, streamsPerConnection: 10) { easy throws(CurlError) in
            try easy.set(.noSignals, .timeout(30))
            easy.receive(keeping: true)
        }
    }

    /// Sets a handle up for `url`.
    static func get(_ url: String) -> CurlEasy.Setup {
        { easy throws(CurlError) in try easy.set(.url(url)) }
    }

    @Test func everyTransferIsAnsweredInTheOrderGivenEvenPastTheLoopsCapacity() async throws {
        let server = try await AnswerServer()
        let loop = try Self.loop()
        // 100 transfers on a loop that hands libcurl 20 at a time (statuses that may carry a body).
        let statuses = (0..<100).map { [200, 201, 202, 203, 400, 404, 500][$0 % 7] }
        let results = try #require(await loop.perform(statuses.enumerated().map { Self.get(server.url($1, bytes: $0)) }))
        await loop.shutdown()
        #expect(results.map(\.status) == statuses)
        #expect(results.map(\.body.count) == Array(0..<100))
        #expect(results.allSatisfy { $0.failure == nil })
    }

    @Test func aSetupThatFailsAnswersThatTransferAloneWithWhy() async throws {
        let server = try await AnswerServer()
        let loop = try Self.loop()
        let refused: CurlEasy.Setup = { easy throws(CurlError) in try easy.set(.protocols("no-such-scheme")) }
        let results = try #require(await loop.perform([Self.get(server.url(200)), refused, Self.get(server.url(202))]))
        // The next transfers get handles whose options no failed call touched.
        let next = try #require(await loop.perform((0..<3).map { _ in Self.get(server.url(201)) }))
        await loop.shutdown()
        #expect(results.map(\.status) == [200, nil, 202])
        #expect(next.map(\.status) == [201, 201, 201])
        #expect(results[1].failure?.description.contains("setting CURLOPT_PROTOCOLS_STR failed") == true, "\(results[1])")
    }

    @Test func onceShutDownTransfersAreRefusedAndShutdownNeedsNoTransferFirst() async throws {
        let idle = try Self.loop()
        await idle.shutdown()
        #expect(await idle.perform([Self.get("http://127.0.0.1:9/")]) == nil)

        let server = try await AnswerServer()
        let used = try Self.loop()
        #expect(try #require(await used.perform([Self.get(server.url(200))])).map(\.status) == [200])
        await used.shutdown()
        #expect(await used.perform([Self.get(server.url(200))]) == nil)
    }
}
