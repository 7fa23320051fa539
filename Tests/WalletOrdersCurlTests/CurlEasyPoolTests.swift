import Foundation
import Testing
import WalletOrdersCurl
import WalletOrdersTesting

/// Transfers on the pool's threads, one at a time on each, against a real HTTP server.
@Suite(.timeLimit(.minutes(5))) struct CurlEasyPoolTests {
    static func pool(threads: Int = 4) -> CurlEasyPool {
        CurlEasyPool(threads: threads, threadName: "curl-tests") { easy throws(CurlError) in
            try easy.set(.noSignals, .timeout(30))
            easy.receive(keeping: true)
        }
    }

    /// Statuses that may carry a body.
    static let statuses = [200, 201, 202, 400, 500]

    @Test func everyTransferIsAnsweredWithItsOwnResult() async throws {
        let server = try await AnswerServer()
        let pool = Self.pool()
        let results = await withTaskGroup(of: (Int, CurlResult?).self) { group in
            for index in 0..<40 {
                group.addTask {
                    let url = server.url(Self.statuses[index % 5], bytes: index)
                    return (index, await pool.perform { easy throws(CurlError) in try easy.set(.url(url)) })
                }
            }
            var results: [Int: CurlResult?] = [:]
            for await (index, result) in group { results[index] = result }
            return results
        }
        await pool.shutdown()
        for index in 0..<40 {
            let result = try #require(results[index] ?? nil)
            #expect(result.status == Self.statuses[index % 5] && result.body.count == index, "\(result)")
            #expect(result.failure == nil, "\(result)")
        }
    }

    @Test func aTransferWhoseSetupFailsIsAnsweredWithWhyAndTheNextGetsAFreshHandle() async throws {
        let server = try await AnswerServer()
        let pool = Self.pool(threads: 1)
        let refused = await pool.perform { easy throws(CurlError) in try easy.set(.protocols("no-such-scheme")) }
        let next = await pool.perform { easy throws(CurlError) in try easy.set(.url(server.url(202))) }
        await pool.shutdown()
        #expect(refused?.status == nil && refused?.failure?.description.contains("CURLOPT_PROTOCOLS_STR") == true)
        #expect(next?.status == 202, "\(String(describing: next))")
    }

    @Test func aHandleThatCannotBeSetUpAnswersEveryTransferWithWhy() async throws {
        let pool = CurlEasyPool(threads: 1, threadName: "curl-tests") { easy throws(CurlError) in
            try easy.set(.protocols("no-such-scheme"))
        }
        let result = await pool.perform { easy throws(CurlError) in try easy.set(.url("http://127.0.0.1:9/")) }
        await pool.shutdown()
        #expect(result?.status == nil)
        #expect(result?.failure?.description.contains("setting CURLOPT_PROTOCOLS_STR failed") == true)
    }

    @Test func onceShutDownTransfersAreRefusedAndShutdownNeedsNoTransferFirst() async throws {
        await Self.pool().shutdown()

        let server = try await AnswerServer()
        let pool = Self.pool(threads: 1)
        #expect(await pool.perform { easy throws(CurlError) in try easy.set(.url(server.url(201))) }?.status == 201)
        await pool.shutdown()
        #expect(await pool.perform { easy throws(CurlError) in try easy.set(.url(server.url(200))) } == nil)
    }
}
