import Testing
import WalletOrdersWebhookModel
import WalletOrdersWebhooks

/// The system's lookup of a webhook host, as a server checks a URL a merchant names.
@Suite(.timeLimit(.minutes(5))) struct WebhookHostLookupTests {
    @Test func aURLMustBeHTTPSAndPublicUnlessPrivateAddressesAreAllowed() async {
        let refused = [
            "https://127.0.0.1/hook": "not a public address",
            "https://localhost:8443/hook": "not a public address",
            "https://[::1]/hook": "not a public address",
            "https://169.254.169.254/latest/meta-data": "not a public address",
            "https://[::ffff:10.0.0.1]/hook": "not a public address",
            "http://93.184.216.34/hook": "must be https",
            "https://user:secret@93.184.216.34/hook": "user or password",
            "ftp://93.184.216.34/": "must be https",
            "/relative": "not an absolute URL",
            "https://no-such-host.invalid/hook": "does not resolve",
        ]
        for (url, reason) in refused {
            let problem = await WebhookURL.problem(with: url, allowPrivate: false, lookup: .system)
            #expect(problem?.contains(reason) == true, "\(url): \(problem ?? "accepted")")
        }
        #expect(await WebhookURL.problem(with: "https://93.184.216.34/hook", allowPrivate: false, lookup: .system) == nil)
        #expect(await WebhookURL.problem(with: "http://127.0.0.1:9/hook", allowPrivate: true, lookup: .system) == nil)
        #expect(await WebhookURL.problem(with: "ftp://127.0.0.1/", allowPrivate: true, lookup: .system)?.contains("http or https") == true)
    }

    @Test func localhostResolvesToLoopbackOnly() async throws {
        let addresses = try await WebhookHostLookup.system.addresses(of: "localhost")
        #expect(!addresses.isEmpty && addresses.allSatisfy { !AddressPolicy.isPublic($0) }, "\(addresses)")
    }
}
