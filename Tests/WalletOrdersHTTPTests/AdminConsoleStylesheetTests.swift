import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import WalletOrdersHTTP

/// The console's one stylesheet, `/admin/console.css`: behind the admin key like the pages, linked by its version,
/// kept by browsers under that address, and the only style the Content-Security-Policy lets the pages use.
@Suite(.timeLimit(.minutes(5))) struct AdminConsoleStylesheetTests {
    static let adminKey = "admin-key-for-the-stylesheet-0123456789"
    static let bearer: HTTPFields = [.authorization: "Bearer \(adminKey)"]

    @Test func thePagesLinkTheStylesheetByItsVersionAndAllowNoOtherStyleAndNoScript() async throws {
        try await ServiceHarness().run(adminKey: Self.adminKey) { client in
            for uri in ["/admin", "/admin/activity?days=7"] {
                let page = try await client.request(.get, uri, headers: Self.bearer)
                #expect(page.status == .ok)
                #expect(
                    page.headers[.contentSecurityPolicy]
                        == "default-src 'none'; style-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
                )
                let html = String(buffer: page.body)
                #expect(html.contains(#"<link rel="stylesheet" href="/admin/console.css?v="#), "\(html)")
                #expect(!html.contains("<style") && !html.contains(" style=") && !html.contains("<script"), "\(html)")
            }
        }
    }

    @Test func theStylesheetIsBehindTheAdminKeyAndKeptForGoodUnderItsVersionedAddress() async throws {
        try await ServiceHarness().run(adminKey: Self.adminKey) { client in
            #expect(try await client.request(.get, "/admin/console.css").status == .unauthorized)

            let page = String(buffer: try await client.request(.get, "/admin", headers: Self.bearer).body)
            let href = try #require(page.firstMatch(of: /<link rel="stylesheet" href="([^"]+)">/)?.1).description
            let versioned = try await client.request(.get, href, headers: Self.bearer)
            #expect(versioned.status == .ok)
            #expect(versioned.headers[.contentType] == "text/css; charset=utf-8")
            #expect(versioned.headers[.cacheControl] == "private, max-age=31536000, immutable")
            #expect(versioned.headers[HTTPField.Name("x-content-type-options")!] == "nosniff")
            #expect(String(buffer: versioned.body).contains("overflow-wrap: anywhere"))
            let tag = try #require(versioned.headers[.eTag])
            #expect(href.hasSuffix("?v=\(tag.dropFirst().dropLast())"), "the version is the entity tag: \(href) \(tag)")

            // Under its bare address (or an older page's version) it is checked again before each use.
            let bare = try await client.request(.get, "/admin/console.css", headers: Self.bearer)
            #expect(bare.status == .ok && bare.headers[.cacheControl] == "no-cache")
            #expect(bare.body == versioned.body)
            let old = try await client.request(.get, "/admin/console.css?v=0000000000000000", headers: Self.bearer)
            #expect(old.status == .ok && old.headers[.cacheControl] == "no-cache")

            var conditional = Self.bearer
            conditional[.ifNoneMatch] = "\"0000000000000000\", W/\(tag)"
            let unchanged = try await client.request(.get, "/admin/console.css", headers: conditional)
            #expect(unchanged.status == .notModified && unchanged.body.readableBytes == 0)
            #expect(unchanged.headers[.eTag] == tag)
            conditional[.ifNoneMatch] = "\"0000000000000000\""
            #expect(try await client.request(.get, "/admin/console.css", headers: conditional).status == .ok)
        }
    }

    @Test func withoutAnAdminKeyTheStylesheetIsOffWithTheConsole() async throws {
        try await ServiceHarness().run { client in
            let off = try await client.request(.get, "/admin/console.css")
            #expect(off.status == .notFound && off.json["error"]?.stringValue?.contains("admin console is off") == true)
        }
    }
}
