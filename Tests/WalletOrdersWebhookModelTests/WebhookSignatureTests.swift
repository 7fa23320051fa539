import Foundation
import Testing
import WalletOrdersWebhookModel

/// Signatures and secrets as the Standard Webhooks specification defines them.
@Suite(.timeLimit(.minutes(5))) struct WebhookSignatureTests {
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
