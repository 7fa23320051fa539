import Testing
import WalletOrdersWebhookModel

/// The rules a webhook URL follows, with the host looked up by what the caller gives: address literals alone, or a
/// lookup that answers what a test says.
@Suite(.timeLimit(.minutes(5))) struct WebhookURLTests {
    /// A lookup that knows one name, and answers every literal as itself.
    static let lookup = WebhookHostLookup { host throws(AddressError) in
        if host == "hooks.example.com" { return [[93, 184, 216, 34]] }
        if host == "inside.example.com" { return [[93, 184, 216, 34], [10, 0, 0, 7]] }
        return try await WebhookHostLookup.literalsOnly.addresses(of: host)
    }

    @Test func aURLMustBeHTTPSWithNoUserAndLeadOnlyToPublicAddresses() async {
        let refused = [
            "https://127.0.0.1/hook": "not a public address",
            "https://[::1]/hook": "not a public address",
            "https://[::ffff:10.0.0.1]/hook": "not a public address",
            "https://inside.example.com/hook": "inside.example.com resolves to 10.0.0.7, which is not a public address",
            "http://93.184.216.34/hook": "must be https",
            "https://user:secret@93.184.216.34/hook": "user or password",
            "ftp://93.184.216.34/": "must be https",
            "/relative": "not an absolute URL",
            "https://93.184.216.34/" + String(repeating: "a", count: 2_048): "longer than 2048 bytes",
        ]
        for (url, reason) in refused {
            let problem = await WebhookURL.problem(with: url, allowPrivate: false, lookup: Self.lookup)
            #expect(problem?.contains(reason) == true, "\(url): \(problem ?? "accepted")")
        }
        #expect(await WebhookURL.problem(with: "https://hooks.example.com/hook", allowPrivate: false, lookup: Self.lookup) == nil)
        #expect(await WebhookURL.problem(with: "https://93.184.216.34/hook", allowPrivate: false, lookup: Self.lookup) == nil)
    }

    @Test func privateAddressesAllowedAnyHostOverHTTPOrHTTPSIsTakenWithoutALookup() async {
        let never = WebhookHostLookup { host throws(AddressError) in throw AddressError.unresolved(host) }
        #expect(await WebhookURL.problem(with: "http://127.0.0.1:9/hook", allowPrivate: true, lookup: never) == nil)
        #expect(await WebhookURL.problem(with: "https://anything.internal/hook", allowPrivate: true, lookup: never) == nil)
        #expect(await WebhookURL.problem(with: "ftp://127.0.0.1/", allowPrivate: true, lookup: never)?.contains("http or https") == true)
    }

    @Test func withoutAResolverANameIsRefusedAsNotLookedUp() async {
        let problem = await WebhookURL.problem(with: "https://hooks.example.com/hook", allowPrivate: false, lookup: .literalsOnly)
        #expect(problem == "hooks.example.com is a name, and names are not looked up here: use an address")
        #expect(await WebhookURL.problem(with: "https://93.184.216.34/hook", allowPrivate: false, lookup: .literalsOnly) == nil)
    }
}
