import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import WalletOrdersHTTP
import WalletOrdersModel
import WalletOrdersPackage
import WalletOrdersStore
import WalletOrdersTesting

/// Download links over HTTP against the real server: made by a merchant, downloaded by anyone holding the URL,
/// within Apple's rules (unguessable, used up or expiring, private), and every dead link answered alike.
@Suite(.timeLimit(.minutes(5))) struct OrderLinkTests {
    static let webServiceURL = "https://orders.example.com/wallet"

    /// The path the service answers a link's URL at (the harness serves `webServiceURL` at its root).
    static func path(of url: String?) throws -> String {
        let url = try #require(url)
        #expect(url.hasPrefix(webServiceURL + "/links/"), "\(url)")
        return String(url.dropFirst(webServiceURL.count))
    }

    @Test(arguments: StoreEngine.allCases)
    func aButtonsLinkServesTheCurrentPackageOnceWithPrivateHeadersAndThenAnswersLikeNoLink(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
        try await harness.run { client in
            let order = try await client.createOrder()
            let made = try await client.merchant(.post, "/api/v1/orders/\(order.type)/\(order.id)/links")
            #expect(made.status == .created, "\(String(buffer: made.body))")
            #expect(made.headers[.cacheControl] == "no-store")
            #expect(made.json["id"]?.stringValue?.hasPrefix("lnk_") == true)
            #expect(made.json["reusable"] == .bool(false))
            #expect(made.json["expiresAt"] == .string(RFC3339.format(harness.clock.now.addingTimeInterval(600))))
            let path = try Self.path(of: made.json["url"]?.stringValue)
            let reference = try #require(path.split(separator: "/").last)
            #expect(reference.count == 64 && reference.allSatisfy(\.isHexDigit), "256 random bits")

            let downloaded = try await client.request(.get, path)
            #expect(downloaded.status == .ok)
            #expect(downloaded.headers[.contentType] == "application/vnd.apple.finance.order")
            #expect(downloaded.headers[.contentDisposition] == "attachment; filename=\"A-1001.order\"")
            #expect(downloaded.headers[.cacheControl] == "private, no-store")
            #expect(downloaded.headers[HTTPField.Name("referrer-policy")!] == "no-referrer")
            let report = PackageVerifier.verify(Data(buffer: downloaded.body), trustedRoots: [DevelopmentKeys.shared.chain.root])
            #expect(report.problems == [] && report.orderIdentifier == order.id)

            // The same client's retry within the grace is served; after it, the link is used up.
            #expect(try await client.request(.get, path).status == .ok)
            harness.clock.advance(31)
            let usedUp = try await client.request(.get, path)
            let madeUp = try await client.request(.get, "/links/" + String(repeating: "ab", count: 32))
            let garbage = try await client.request(.get, "/links/not-a-reference")
            for answer in [usedUp, madeUp, garbage] {
                #expect(answer.status == .notFound)
                #expect(String(buffer: answer.body) == #"{"error":"no such link"}"#)
            }
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func aHeadRequestForAOneTimeLinkAnswersAsAGetWouldAndLeavesItUsable(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
        try await harness.run { client in
            let order = try await client.createOrder()
            let made = try await client.merchant(.post, "/api/v1/orders/\(order.type)/\(order.id)/links")
            let path = try Self.path(of: made.json["url"]?.stringValue)

            // A mail scanner's and a link preview's HEAD, well apart: neither is the download.
            let head = try await client.request(.head, path)
            harness.clock.advance(31)
            #expect(try await client.request(.head, path).status == .ok)
            harness.clock.advance(31)

            let downloaded = try await client.request(.get, path)
            #expect(head.status == .ok && downloaded.status == .ok)
            #expect(head.body.readableBytes == 0)
            for name in [HTTPField.Name.contentType, .contentDisposition, .cacheControl, .contentLength] {
                #expect(head.headers[name] == downloaded.headers[name], "\(name)")
            }
            #expect(head.headers[.contentLength] == "\(downloaded.body.readableBytes)")
            // The download used the link up as a GET always did; a HEAD then answers the same 404 as a GET.
            harness.clock.advance(31)
            #expect(try await client.request(.get, path).status == .notFound)
            #expect(try await client.request(.head, path).status == .notFound)
            #expect(try await client.request(.head, "/links/" + String(repeating: "ab", count: 32)).status == .notFound)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func anEmailsLinkServesEachNewVersionToAnyoneUntilRevokedOrExpired(engine: StoreEngine) async throws {
        let harness = try ServiceHarness(engine)
        try await harness.run { client in
            let order = try await client.createOrder()
            let links = "/api/v1/orders/\(order.type)/\(order.id)/links"
            let email = try await client.merchant(.post, links, json: .object(["expiresIn": .int(86_400), "reusable": .bool(true)]))
            #expect(email.status == .created && email.json["reusable"] == .bool(true))
            let path = try Self.path(of: email.json["url"]?.stringValue)

            let before = try await client.request(.get, path)
            harness.clock.advance(5)
            #expect(try await client.patch(order, .object(["statusDescription": .string("Shipped")])).status == .ok)
            harness.clock.advance(5)
            // Downloaded again after the update, long after the first: the new version.
            let after = try await client.request(.get, path)
            #expect(before.status == .ok && after.status == .ok)
            #expect(Data(buffer: before.body) != Data(buffer: after.body))
            #expect(after.headers[.lastModified] != before.headers[.lastModified])
            #expect(PackageVerifier.verify(Data(buffer: after.body), trustedRoots: [DevelopmentKeys.shared.chain.root]).problems == [])

            // Revoked: gone for everyone, and the same answer as a link that never was.
            let id = try #require(email.json["id"]?.stringValue)
            #expect(try await client.merchant(.delete, "\(links)/\(id)").status == .noContent)
            #expect(try await client.merchant(.delete, "\(links)/\(id)").status == .notFound)
            #expect(String(buffer: try await client.request(.get, path).body) == #"{"error":"no such link"}"#)

            // Expired: the same.
            let short = try await client.merchant(.post, links, json: .object(["expiresIn": .int(60), "reusable": .bool(true)]))
            let shortPath = try Self.path(of: short.json["url"]?.stringValue)
            #expect(try await client.request(.get, shortPath).status == .ok)
            harness.clock.advance(61)
            let expired = try await client.request(.get, shortPath)
            #expect(expired.status == .notFound && String(buffer: expired.body) == #"{"error":"no such link"}"#)
        }
    }

    @Test func whatALinkMayBeIsCheckedAndAnOrderHoldsAtMostAHundredLiveOnes() async throws {
        try await ServiceHarness().run { client in
            let order = try await client.createOrder()
            let links = "/api/v1/orders/\(order.type)/\(order.id)/links"
            for (body, path) in [
                (JSONValue.object(["expiresIn": .int(10)]), "expiresIn"),
                (.object(["expiresIn": .int(31 * 86_400)]), "expiresIn"),
                (.object(["expiresIn": .string("600")]), "expiresIn"),
                (.object(["reusable": .string("yes")]), "reusable"),
                (.object(["forever": .bool(true)]), "forever"),
            ] {
                let answer = try await client.merchant(.post, links, json: body)
                #expect(answer.status == .badRequest, "\(body)")
                #expect(answer.json["problems"]?.arrayValue?.first?["path"] == .string(path), "\(String(buffer: answer.body))")
            }
            let notJSON = try await client.request(
                .post,
                links,
                headers: [.authorization: "Bearer \(ServiceHarness.merchantKey)"],
                body: Data("{reusable".utf8)
            )
            #expect(notJSON.status == .badRequest)
            #expect(try await client.merchant(.post, "/api/v1/orders/\(order.type)/no-such-order/links").status == .notFound)

            for _ in 0..<100 { #expect(try await client.merchant(.post, links).status == .created) }
            let over = try await client.merchant(.post, links)
            #expect(over.status == .conflict && over.json["error"]?.stringValue?.contains("100") == true)
        }
    }

    @Test(arguments: StoreEngine.allCases)
    func anotherMerchantCannotRevokeALinkAndDownloadsAreLimitedPerAddress(engine: StoreEngine) async throws {
        var limits = ClientLimits()
        limits.links = RateLimit(burst: 4, per: .seconds(3_600))
        let harness = try ServiceHarness(engine)
        try await harness.run(limits: limits) { client in
            let acme = try await client.addMerchant("acme")
            let globex = try await client.addMerchant("globex")
            let order = try await client.createOrder(id: "1001", key: acme)
            let made = try await client.merchant(
                .post,
                "/api/v1/orders/\(order.type)/1001/links",
                json: .object(["reusable": .bool(true)]),
                key: acme
            )
            let id = try #require(made.json["id"]?.stringValue)
            let path = try Self.path(of: made.json["url"]?.stringValue)

            // globex names acme's order and link: its own namespace holds neither, as for a link that never was.
            let foreign = try await client.merchant(.delete, "/api/v1/orders/\(order.type)/acme:1001/links/\(id)", key: globex)
            let unknown = try await client.merchant(.delete, "/api/v1/orders/\(order.type)/1001/links/lnk_0000000000000000", key: acme)
            #expect(foreign.status == .notFound && Data(buffer: foreign.body) == Data(buffer: unknown.body))
            #expect(try await client.request(.get, path).status == .ok, "the link still serves")

            // Four downloads from this address, found or not, then 429.
            _ = try await client.request(.get, "/links/made-up")
            _ = try await client.request(.get, path)
            _ = try await client.request(.get, path)
            let limited = try await client.request(.get, path)
            #expect(limited.status == .tooManyRequests && limited.headers[.retryAfter] != nil)
        }
    }
}
