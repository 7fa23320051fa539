import Foundation
import Synchronization
import Testing
import WalletOrdersAPNS
import WalletOrdersCrypto
import WalletOrdersTesting

@Suite(.timeLimit(.minutes(5))) struct APNSVocabularyTests {
    @Test func everyDocumentedReasonReadsBackAsItself() {
        #expect(APNSReason.documented.count == 32)
        for reason in APNSReason.documented {
            #expect(APNSReason(rawValue: reason.rawValue) == reason)
            #expect(reason.rawValue.first?.isUppercase == true)
        }
        #expect(Set(APNSReason.documented.map(\.rawValue)).count == APNSReason.documented.count)
        #expect(APNSReason(rawValue: "SomethingNew") == .unknown("SomethingNew"))
        #expect(APNSReason(rawValue: "BadDeviceToken") == .badDeviceToken)
    }

    @Test func onlyDeadTokenReasonsRejectTheDeviceToken() {
        let rejecting = APNSReason.documented.filter(\.rejectsDeviceToken)
        #expect(rejecting == [.badDeviceToken, .deviceTokenNotForTopic, .expiredToken, .unregistered])
    }

    @Test func onlyRefusalsOfTheProvidersTokenOrCertificateRefuseCredentials() {
        let refusing = APNSReason.documented.filter(\.refusesCredentials)
        #expect(
            refusing == [
                .badCertificate, .badCertificateEnvironment, .expiredProviderToken, .invalidProviderToken,
                .missingProviderToken, .unrelatedKeyIdInToken, .badEnvironmentKeyInToken,
            ]
        )
        #expect(!APNSReason.forbidden.refusesCredentials && !APNSReason.tooManyProviderTokenUpdates.refusesCredentials)
    }

    @Test func aResponseSaysWhyInWords() {
        #expect(APNSResponse.answered(status: 410, reason: .unregistered).description == "Unregistered")
        #expect(APNSResponse.answered(status: 502, reason: nil).description == "HTTP 502")
        #expect(APNSResponse.notAnswered("Couldn't connect to server").description == "Couldn't connect to server")
        #expect(APNSResponse.notAnswered("x").status == nil)
        #expect(APNSResponse.delivered.status == 200)
    }

    @Test func aProviderTokenVerifiesWithItsKeyOnlyAndCarriesItsClaims() throws {
        let keys = DevelopmentKeys.shared
        let issued = Date(timeIntervalSince1970: 1_795_342_530.7)
        let token = try ProviderToken(
            key: keys.chain.apnsKey,
            keyID: keys.chain.apnsKeyID,
            teamID: "TEAM123456",
            now: { issued }
        ).current()
        let publicKey = try PublicKey(pem: Data(try keys.chain.apnsKey.publicKeyPEM().utf8))
        let claims = try #require(ProviderTokenClaims(verifying: token, publicKeys: [keys.chain.apnsKeyID: publicKey]))
        #expect(
            claims
                == ProviderTokenClaims(
                    keyID: keys.chain.apnsKeyID,
                    teamID: "TEAM123456",
                    issuedAt: Date(timeIntervalSince1970: 1_795_342_530)
                )
        )
        #expect(ProviderTokenClaims(verifying: token, publicKeys: ["OTHERKEY00": publicKey]) == nil)
        #expect(ProviderTokenClaims(verifying: token + "A", publicKeys: [keys.chain.apnsKeyID: publicKey]) == nil)
    }

    @Test func aProviderTokenIsReusedUntilItsRenewalAgeAndRenewedOnlyWhenOldEnough() throws {
        let keys = DevelopmentKeys.shared
        let clock = Clock()
        let provider = try ProviderToken(key: keys.chain.apnsKey, keyID: keys.chain.apnsKeyID, teamID: "T", now: clock.now)
        let first = try provider.current()
        clock.advance(ProviderToken.renewalAge - 1)
        #expect(try provider.current() == first)
        #expect(try provider.renew(afterRejecting: first) == true, "older than 20 minutes: renewed")
        let second = try provider.current()
        #expect(second != first)
        clock.advance(60)
        #expect(try provider.renew(afterRejecting: second) == false, "a minute old: kept")
        #expect(try provider.current() == second)
    }

    @Test func aProviderTokenOutlivesAStepBackOfTheClock() throws {
        let keys = DevelopmentKeys.shared
        let clock = Clock()
        let provider = try ProviderToken(key: keys.chain.apnsKey, keyID: keys.chain.apnsKeyID, teamID: "T", now: clock.now)
        let first = try provider.current()
        clock.advance(-3_600)
        // Before, a token issued "in the future" was replaced at once, and a renewal refused as too young.
        #expect(try provider.current() == first, "a fresh token is not thrown away")
        #expect(try provider.renew(afterRejecting: first) == false, "nor made old enough to renew")
        clock.advance(3_600 + ProviderToken.renewalAge)
        #expect(try provider.current() != first, "renewed once the clock says it is 50 minutes old")
    }

    final class Clock: Sendable {
        private let time = Mutex(Date(timeIntervalSince1970: 1_795_342_530))
        var now: @Sendable () -> Date { { self.time.withLock { $0 } } }
        func advance(_ seconds: TimeInterval) { time.withLock { $0 += seconds } }
    }
}
