import Foundation
import Testing
import WalletOrdersModel
import WalletOrdersTesting

/// `/playground`'s page, stylesheet and scripts as a browser gets them from a development `serve`: files of the
/// playground module served as they are, linked by their versions, and a page whose Content-Security-Policy allows
/// nothing written inline.
@Suite(.timeLimit(.minutes(5))) struct PlaygroundAssetsTests {
    static let page = DevelopmentServer.repository.appendingPathComponent("Sources/WalletOrdersPlayground/Page")

    @Test func thePageLinksItsStylesheetAndScriptsByVersionAndAllowsNothingInline() async throws {
        let folder = try TemporaryDirectory("playground-assets")
        let server = try await DevelopmentServer.start(in: folder)
        let head = try await server.curl(["-D", "-", "-o", folder.path("page.html"), "\(server.base)/playground"]).lowercased()
        #expect(head.hasPrefix("http/1.1 200"), "\(head)")
        #expect(
            head.contains(
                "content-security-policy: default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; "
                    + "img-src data:; frame-ancestors 'none'; form-action 'none'; base-uri 'none'\r\n"
            ),
            "\(head)"
        )
        #expect(head.contains("cache-control: no-store\r\n"), "the page holds the playground's key: \(head)")
        let page = try String(contentsOfFile: folder.path("page.html"), encoding: .utf8)
        #expect(!page.contains("<style") && !page.contains(" style="), "\(page)")
        let scripts = page.matches(of: /<script[^>]*>/).map { String($0.0) }
        #expect(scripts.count == 2 && scripts.allSatisfy { $0.contains(" src=\"/playground/") }, "\(scripts)")

        // The editor starts with Examples/order.json, escaped.
        let sample = try #require(page.firstMatch(of: /<textarea[^>]*>([^<]*)<\/textarea>/)?.1)
        let example = try Data(contentsOf: DevelopmentServer.repository.appendingPathComponent("Examples/order.json"))
        #expect(try JSONValue.parse(Data(sample.replacing("&quot;", with: "\"").replacing("&amp;", with: "&").utf8)) == JSONValue.parse(example))

        let linked = page.matches(of: /(?:href|src)="(\/playground\/([a-z]+\.(css|js))\?v=[0-9a-f]{16})"/)
            .map { (href: String($0.1), file: String($0.2), type: $0.3 == "css" ? "text/css" : "text/javascript") }
        #expect(linked.map(\.file).sorted() == ["playground.css", "playground.js", "source.js"], "\(page)")
        for asset in linked {
            let saved = folder.path(asset.file)
            let headers = try await server.curl(["-D", "-", "-o", saved, server.base + asset.href]).lowercased()
            #expect(headers.hasPrefix("http/1.1 200"), "\(asset.href): \(headers)")
            #expect(headers.contains("content-type: \(asset.type); charset=utf-8\r\n"), "\(headers)")
            #expect(headers.contains("cache-control: private, max-age=31536000, immutable\r\n"), "\(headers)")
            #expect(headers.contains("x-content-type-options: nosniff\r\n"), "\(headers)")
            let served = try Data(contentsOf: URL(fileURLWithPath: saved))
            #expect(served == (try Data(contentsOf: Self.page.appendingPathComponent(asset.file))), "\(asset.file) is served as it is")
        }
        #expect(await server.command.stopped())
    }
}
