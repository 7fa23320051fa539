import Foundation
import HTTPTypes
import Testing
import WalletOrdersHTTP
import WalletOrdersModel
import WalletOrdersStore
import WalletOrdersTesting

/// `/admin` against the real server: what it shows of the text devices send.
@Suite(.timeLimit(.minutes(5))) struct AdminPageTextTests {
    static let adminKey = "admin-key-for-tests-0123456789"

    @Test(arguments: StoreEngine.allCases)
    func aLogMessageKeepsItsNULAndThePageShowsControlAndBidirectionalCharactersWrittenOut(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
        try await harness.run(adminKey: Self.adminKey) { client in
            // JSON escapes: the NUL and the right-to-left override reach the server as characters.
            let body = #"{"logs": ["before\u0000after", "fetch \u202Efdp.exe failed", "bell\u0007 tab\tok"]}"#
            #expect(try await client.request(.post, "/v1/log", body: Data(body.utf8)).status == .ok)
            let stored = try await client.store.logs(LogFilter(), page: PageRequest(limit: 10)).records.map(\.message)
            #expect(stored.contains("before\u{2400}after"), "\(stored)")
            #expect(stored.contains("fetch \u{202E}fdp.exe failed"), "\(stored)")

            let page = try await client.request(.get, "/admin/activity", headers: [.authorization: "Bearer \(Self.adminKey)"])
            #expect(page.status == .ok)
            let html = String(buffer: page.body)
            #expect(html.contains("before\u{2400}after"))
            #expect(!html.unicodeScalars.contains("\u{202E}"), "the override is never obeyed")
            #expect(html.contains(#"fetch <span class="control" title="U+202E">\u{202E}</span>fdp.exe failed"#))
            #expect(html.contains(#"bell<span class="control" title="U+0007">\u{7}</span> tab"# + "\tok"))
            // Long values wrap: the stylesheet the page links says so.
            let stylesheet = try #require(html.firstMatch(of: /<link rel="stylesheet" href="([^"]+)">/)?.1).description
            let css = try await client.request(.get, stylesheet, headers: [.authorization: "Bearer \(Self.adminKey)"])
            #expect(String(buffer: css.body).contains("overflow-wrap: anywhere"))
        }
    }
}
