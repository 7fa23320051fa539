import Foundation
import Testing
import WalletOrdersTracking

@Suite(.timeLimit(.minutes(5))) struct TrackingProviderTests {
    @Test func eachProviderIsNamedInURLsAndReadsTheHeaderItSignsIn() {
        #expect(TrackingProvider.allCases.map(\.rawValue) == ["aftership", "easypost"])
        #expect(TrackingProvider.aftership.signatureHeader == "aftership-hmac-sha256")
        #expect(TrackingProvider.easypost.signatureHeader == "x-hmac-signature")
    }

    @Test func theSignatureHeaderIsFoundWhateverCaseTheRequestSpellsItIn() async throws {
        let secret = "4f1c8e0a9b2d47c6a3e5f7081b2c3d4e"
        let request = try await ProviderRequest.afterShip(try ProviderRequest.fixture("aftership-tracking-update.json"), secret: secret)
        let headers = ["Aftership-Hmac-Sha256": try #require(request.headers["aftership-hmac-sha256"])]
        #expect(try TrackingProvider.aftership.events(body: request.body, headers: headers, secret: secret).count == 1)
    }

    @Test func aRefusalTellsTheMerchantWhichHeaderAndWhereTheSecretComesFrom() {
        let refusal = TrackingWebhookError.badSignature(.easypost).description
        #expect(refusal.contains("x-hmac-signature"))
        #expect(refusal.contains("webhook_secret"))
        #expect(TrackingWebhookError.noSecret(.aftership).description.contains("Settings, Webhooks"))
    }
}
