import Foundation
import Testing
import WalletOrdersCurl
import WalletOrdersTesting

/// One easy handle against a real HTTP server: what a transfer answers, how a body is cut, how an address is refused
/// and how a refused option says which it was.
@Suite(.timeLimit(.minutes(5))) struct CurlEasyTests {
    static func handle() throws -> CurlEasy {
        let easy = try CurlEasy()
        try easy.set(.noSignals, .timeout(30))
        return easy
    }

    @Test func aTransferAnswersItsStatusAndTheBodyKept() async throws {
        let server = try await AnswerServer()
        let easy = try Self.handle()
        try easy.set(.url(server.url(201, bytes: 5)), .headers(CurlHeaderList(["content-type: application/json"])))
        try easy.set(.postBody(Data("{}".utf8)))
        let result = easy.perform()
        #expect(result.status == 201)
        #expect(result.failure == nil)
        #expect(result.body == Data("xxxxx".utf8))

        // The same handle, for the next transfer: the body is that transfer's alone.
        try easy.set(.url(server.url(404, bytes: 2)))
        let next = easy.perform()
        #expect(next.status == 404 && next.failure == nil && next.body == Data("xx".utf8))
    }

    @Test func aBodyPastTheLimitCutsTheTransferButItsStatusIsKnown() async throws {
        let server = try await AnswerServer()
        let easy = try Self.handle()
        easy.receive(keeping: false, limit: 64 * 1_024)
        try easy.set(.url(server.url(200, bytes: 1 << 20)))
        let result = easy.perform()
        #expect(result.status == 200)
        #expect(result.failure != nil, "a body of 1 MiB past a limit of 64 KiB fails the transfer")
        #expect(result.body.isEmpty, "a body counted, not kept")
    }

    @Test func anAddressTheCheckRefusesIsNotConnectedToAndItsReasonIsTheFailure() async throws {
        let server = try await AnswerServer()
        let easy = try Self.handle()
        try easy.checkAddresses { address in address == [127, 0, 0, 1] ? "refused 127.0.0.1" : nil }
        try easy.set(.url(server.url(200)))
        let refused = easy.perform()
        #expect(refused.status == nil)
        #expect(refused.failure?.description == "refused 127.0.0.1")

        // The check taken away, the same handle connects.
        try easy.checkAddresses(nil)
        #expect(easy.perform().status == 200)
    }

    @Test func nothingListeningIsAFailureInLibcurlsWords() throws {
        let easy = try Self.handle()
        try easy.set(.url("http://127.0.0.1:\(try freePort())/"))
        let result = easy.perform()
        #expect(result.status == nil)
        #expect(result.failure?.description == "Couldn't connect to server")
    }

    @Test func anOptionLibcurlRefusesSaysWhichOptionItWas() throws {
        let easy = try Self.handle()
        let error = #expect(throws: CurlError.self) { try easy.set(.protocols("no-such-scheme")) }
        #expect(error?.description.hasPrefix("libcurl: setting CURLOPT_PROTOCOLS_STR failed: ") == true, "\(String(describing: error))")
    }

    @Test func theLibcurlHereSpeaksHTTP2OverTLS() throws {
        try CurlLibrary.initialize()
        let version = try CurlLibrary.version()
        #expect(version.http2 && version.tls, "libcurl \(version.number)")
    }
}
