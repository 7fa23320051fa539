import Foundation
import Testing
import WalletOrdersModel
import WalletOrdersTracking

@Suite(.timeLimit(.minutes(5))) struct EasyPostWebhookTests {
    /// A secret with a character Unicode writes two ways: `é` precomposed here.
    let secret = "s\u{E9}cret-webhook-key"
    /// The bytes EasyPost keys its signatures with: the secret's NFKD form, `e` and a combining acute accent, written
    /// out by hand.
    let key = Array("se\u{301}cret-webhook-key".utf8)
    let provider = TrackingProvider.easypost

    func events(_ request: ProviderRequest, secret: String? = nil) throws(TrackingWebhookError) -> [TrackingEvent] {
        try provider.events(body: request.body, headers: request.headers, secret: secret ?? self.secret)
    }

    /// The fixture with `change` made to its Tracker, signed.
    func update(_ change: (inout [String: JSONValue]) -> Void) async throws -> ProviderRequest {
        let body = try edited(try ProviderRequest.fixture("easypost-tracker-updated.json")) { $0["result"] = edited($0["result"], change) }
        return try await ProviderRequest.easyPost(body, key: key)
    }

    @Test func aSignedTrackerUpdateBecomesOneEventWithEveryField() async throws {
        let request = try await ProviderRequest.easyPost(try ProviderRequest.fixture("easypost-tracker-updated.json"), key: key)
        let expected = TrackingEvent(
            id: "evt_6c3b9a1e84f24d7b",
            trackingNumber: "9400111206213859482101",
            carrier: "USPS",
            status: .outForDelivery,
            occurredAt: try instant("2026-11-25T12:55:00Z"),
            estimatedDeliveryAt: try instant("2026-11-25T22:00:00Z"),
            description: "Out for Delivery"
        )
        #expect(try events(request) == [expected])
        // Sent again, the same event, so the service takes it once.
        #expect(try events(request) == [expected])
    }

    @Test func theSecretIsKeyedInItsCompatibilityDecomposedFormAsEasyPostsLibrariesDo() async throws {
        let body = try ProviderRequest.fixture("easypost-tracker-updated.json")
        // The secret's bytes as typed (`é` precomposed) are not the key EasyPost signs with.
        let typed = try await ProviderRequest.easyPost(body, key: Array(secret.utf8))
        #expect(throws: TrackingWebhookError.badSignature(.easypost)) { try events(typed) }
        // Whichever way the merchant's secret spells `é`, the signature EasyPost made checks out.
        let signed = try await ProviderRequest.easyPost(body, key: key)
        #expect(try events(signed, secret: "se\u{301}cret-webhook-key").count == 1)
        #expect(try events(signed, secret: secret).count == 1)
    }

    @Test func aWrongSecretIsABadSignature() async throws {
        let request = try await ProviderRequest.easyPost(try ProviderRequest.fixture("easypost-tracker-updated.json"), key: Array("another".utf8))
        #expect(throws: TrackingWebhookError.badSignature(.easypost)) { try events(request) }
    }

    @Test func aRequestWithoutTheHeaderIsABadSignature() async throws {
        // EasyPost sends no signature for a webhook created without a secret.
        var request = try await ProviderRequest.easyPost(try ProviderRequest.fixture("easypost-tracker-updated.json"), key: key)
        request.headers["x-hmac-signature"] = nil
        #expect(throws: TrackingWebhookError.badSignature(.easypost)) { try events(request) }
    }

    @Test func aSignatureWithoutItsSchemeIsABadSignature() async throws {
        var request = try await ProviderRequest.easyPost(try ProviderRequest.fixture("easypost-tracker-updated.json"), key: key)
        request.headers["x-hmac-signature"] = request.headers["x-hmac-signature"]?.replacingOccurrences(of: "hmac-sha256-hex=", with: "")
        #expect(throws: TrackingWebhookError.badSignature(.easypost)) { try events(request) }
    }

    @Test func aSignatureOfAnotherBodyIsABadSignature() async throws {
        let signed = try await ProviderRequest.easyPost(try ProviderRequest.fixture("easypost-tracker-updated.json"), key: key)
        var request = try await update { $0["status"] = .string("delivered") }
        request.headers = signed.headers
        #expect(throws: TrackingWebhookError.badSignature(.easypost)) { try events(request) }
    }

    @Test func anEndpointWithoutASecretTakesNothing() async throws {
        let request = try await ProviderRequest.easyPost(try ProviderRequest.fixture("easypost-tracker-updated.json"), key: key)
        #expect(throws: TrackingWebhookError.noSecret(.easypost)) { try events(request, secret: "") }
    }

    @Test func signedBytesThatAreNotJSONAreUnreadable() async throws {
        let request = try await ProviderRequest.easyPost(Array("tracker.updated".utf8), key: key)
        #expect {
            try events(request)
        } throws: { error in
            guard case .unreadable(let problem) = error as? TrackingWebhookError else { return false }
            return problem.contains("not JSON")
        }
    }

    @Test func aTrackerEventWhoseResultIsNoTrackerIsUnreadable() async throws {
        let request = try await update { $0["object"] = .string("Shipment") }
        #expect(throws: TrackingWebhookError.unreadable("result of a tracker.updated Event must be a Tracker")) { try events(request) }
    }

    @Test func anEventAboutAnythingButATrackerGivesNoEvent() async throws {
        let request = try await ProviderRequest.easyPost(try ProviderRequest.fixture("easypost-batch-updated.json"), key: key)
        #expect(try events(request).isEmpty)
    }

    @Test func aNewTrackerGivesAnEventAsAnUpdatedOneDoes() async throws {
        let body = try edited(try ProviderRequest.fixture("easypost-tracker-updated.json")) { $0["description"] = .string("tracker.created") }
        #expect(try events(try await ProviderRequest.easyPost(body, key: key)).map(\.status) == [.outForDelivery])
    }

    @Test(
        arguments: [
            ("pre_transit", TrackingStatus.infoReceived),
            ("in_transit", .inTransit),
            ("out_for_delivery", .outForDelivery),
            ("available_for_pickup", .availableForPickup),
            ("delivered", .delivered),
            ("return_to_sender", .returnedToSender),
            ("failure", .exception),
            ("cancelled", .cancelled),
        ]
    )
    func eachStatusMapsOntoTheStatusItsDocumentationDescribes(word: String, status: TrackingStatus) async throws {
        let request = try await update { $0["status"] = .string(word) }
        #expect(try events(request).map(\.status) == [status])
    }

    @Test(arguments: ["unknown", "error", "teleported"])
    func aStatusThatSaysNothingOfWhereTheParcelIsGivesNoEvent(word: String) async throws {
        let request = try await update { $0["status"] = .string(word) }
        #expect(try events(request).isEmpty)
    }

    @Test func aDetailTimeWithoutAnOffsetIsUTCAsEasyPostDocumentsIt() async throws {
        let request = try await update {
            $0["tracking_details"] = .array([.object(["datetime": .string("2026-11-25T12:55:00"), "message": .string("Out for Delivery")])])
        }
        #expect(try events(request).map(\.occurredAt) == [try instant("2026-11-25T12:55:00Z")])
    }

    @Test func aTrackerWithoutDetailsTakesItsUpdateTime() async throws {
        let request = try await update { $0["tracking_details"] = .array([]) }
        let event = try #require(try events(request).first)
        #expect(event.occurredAt == (try instant("2026-11-25T13:02:03Z")))
        #expect(event.description == nil)
    }

    @Test func anEstimateOfADayAtMidnightUTCIsPlacedAtNoonSoEveryZoneSeesThatDay() async throws {
        let request = try await update { $0["est_delivery_date"] = .string("2026-11-27T00:00:00Z") }
        #expect(try events(request).map(\.estimatedDeliveryAt) == [try instant("2026-11-27T12:00:00Z")])
    }

    @Test func aCarrierTooLongToBeANameIsUnreadable() async throws {
        let request = try await update { $0["carrier"] = .string(String(repeating: "U", count: TrackingEvent.maxIdentifierLength + 1)) }
        #expect(throws: TrackingWebhookError.self) { try events(request) }
    }
}
