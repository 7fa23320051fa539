import Foundation
import Testing
import WalletOrdersWebhooks

#if canImport(Glibc)
import Glibc
#endif

/// Webhook URLs are a server-side request forgery risk: what the policy lets through, and what it refuses.
@Suite(.timeLimit(.minutes(5))) struct AddressPolicyTests {
    static func bytes(_ text: String) -> [UInt8] {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: v4) { Array($0) } }
        var v6 = in6_addr()
        #expect(inet_pton(AF_INET6, text, &v6) == 1, "\(text) is an address")
        return withUnsafeBytes(of: v6) { Array($0) }
    }

    @Test(arguments: [
        "127.0.0.1", "127.255.0.9", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254",
        "100.64.0.1", "0.0.0.0", "255.255.255.255", "224.0.0.1", "198.18.0.1", "::1", "::", "fe80::1", "fc00::1",
        "fd00:ec2::254", "ff02::1", "::ffff:127.0.0.1", "::ffff:169.254.169.254", "::ffff:10.0.0.1", "64:ff9b::7f00:1",
        "2002:7f00:1::", "2001:db8::1", "::127.0.0.1",
    ])
    func refusesAddressesThatAreNotPublic(_ address: String) {
        #expect(!AddressPolicy.isPublic(Self.bytes(address)), "\(address) is refused")
    }

    @Test(arguments: ["93.184.216.34", "8.8.8.8", "172.32.0.1", "100.128.0.1", "2606:2800:220:1::1", "::ffff:8.8.8.8"])
    func letsPublicAddressesThrough(_ address: String) {
        #expect(AddressPolicy.isPublic(Self.bytes(address)), "\(address) is public")
    }

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
            let problem = await WebhookURL.problem(with: url, allowPrivate: false)
            #expect(problem?.contains(reason) == true, "\(url): \(problem ?? "accepted")")
        }
        #expect(await WebhookURL.problem(with: "https://93.184.216.34/hook", allowPrivate: false) == nil)
        #expect(await WebhookURL.problem(with: "http://127.0.0.1:9/hook", allowPrivate: true) == nil)
        #expect(await WebhookURL.problem(with: "ftp://127.0.0.1/", allowPrivate: true)?.contains("http or https") == true)
    }

    /// The example of the Standard Webhooks specification, signed as it says.
    @Test func signsAsTheStandardWebhooksSpecificationSays() {
        let header = WebhookSignature.header(
            id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
            timestamp: 1_614_265_330,
            body: Data(#"{"test": 2432232314}"#.utf8),
            secrets: ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"]
        )
        #expect(header == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
        let secret = WebhookSignature.newSecret()
        #expect(secret.hasPrefix("whsec_") && Data(base64Encoded: String(secret.dropFirst(6)))?.count == 32)
        #expect(secret != WebhookSignature.newSecret())
    }
}
