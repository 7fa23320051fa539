import Foundation
import Testing
import WalletOrdersModel
import WalletOrdersTracking

@Suite(.timeLimit(.minutes(5))) struct AfterShipWebhookTests {
    let secret = "4f1c8e0a9b2d47c6a3e5f7081b2c3d4e"
    let provider = TrackingProvider.aftership

    func events(_ request: ProviderRequest, secret: String? = nil) throws(TrackingWebhookError) -> [TrackingEvent] {
        try provider.events(body: request.body, headers: request.headers, secret: secret ?? self.secret)
    }

    /// The fixture with `change` made to its `msg`, signed.
    func update(_ change: (inout [String: JSONValue]) -> Void) async throws -> ProviderRequest {
        let body = try edited(try ProviderRequest.fixture("aftership-tracking-update.json")) { $0["msg"] = edited($0["msg"], change) }
        return try await ProviderRequest.afterShip(body, secret: secret)
    }

    @Test func aSignedTrackingUpdateBecomesOneEventWithEveryField() async throws {
        let request = try await ProviderRequest.afterShip(try ProviderRequest.fixture("aftership-tracking-update.json"), secret: secret)
        let expected = TrackingEvent(
            id: "5b0e4f3c-2a5d-4f7e-9a44-0c1d7e8b9f21",
            trackingNumber: "00340434161094042557",
            carrier: "dhl",
            status: .outForDelivery,
            occurredAt: try instant("2026-11-25T07:12:00Z"),
            estimatedDeliveryAt: try instant("2026-11-25T12:00:00Z"),
            estimatedDeliveryWindowDuration: "PT2H",
            description: "The shipment has been loaded onto the delivery vehicle"
        )
        #expect(try events(request) == [expected])
        // Sent again, the same event, so the service takes it once.
        #expect(try events(request) == [expected])
    }

    @Test func aWrongSecretIsABadSignature() async throws {
        let request = try await ProviderRequest.afterShip(try ProviderRequest.fixture("aftership-tracking-update.json"), secret: "another secret")
        #expect(throws: TrackingWebhookError.badSignature(.aftership)) { try events(request) }
    }

    @Test func aRequestWithoutTheHeaderIsABadSignature() async throws {
        var request = try await ProviderRequest.afterShip(try ProviderRequest.fixture("aftership-tracking-update.json"), secret: secret)
        request.headers["aftership-hmac-sha256"] = nil
        #expect(throws: TrackingWebhookError.badSignature(.aftership)) { try events(request) }
    }

    @Test func aSignatureOfAnotherBodyIsABadSignature() async throws {
        let signed = try await ProviderRequest.afterShip(try ProviderRequest.fixture("aftership-tracking-update.json"), secret: secret)
        var request = try await update { $0["tag"] = .string("Delivered") }
        request.headers = signed.headers
        #expect(throws: TrackingWebhookError.badSignature(.aftership)) { try events(request) }
    }

    @Test func anEndpointWithoutASecretTakesNothing() async throws {
        let request = try await ProviderRequest.afterShip(try ProviderRequest.fixture("aftership-tracking-update.json"), secret: secret)
        #expect(throws: TrackingWebhookError.noSecret(.aftership)) { try events(request, secret: "") }
    }

    @Test func signedBytesThatAreNotJSONAreUnreadable() async throws {
        let request = try await ProviderRequest.afterShip(Array(#"{"event": "tracking_update", "msg": {"#.utf8), secret: secret)
        #expect {
            try events(request)
        } throws: { error in
            guard case .unreadable(let problem) = error as? TrackingWebhookError else { return false }
            return problem.contains("not JSON")
        }
    }

    @Test func aTrackingWithoutATrackingNumberIsUnreadable() async throws {
        let request = try await update { $0["tracking_number"] = nil }
        #expect(throws: TrackingWebhookError.unreadable("msg.tracking_number is missing")) { try events(request) }
    }

    @Test func aTrackingWithoutATagIsUnreadableNotIgnored() async throws {
        let request = try await update { $0["tag"] = nil }
        #expect(throws: TrackingWebhookError.unreadable("msg.tag is missing")) { try events(request) }
    }

    @Test func aTrackingNumberTooLongToBeOneIsUnreadableNotCut() async throws {
        let request = try await update { $0["tracking_number"] = .string(String(repeating: "9", count: TrackingEvent.maxIdentifierLength + 1)) }
        #expect(throws: TrackingWebhookError.self) { try events(request) }
    }

    @Test(
        arguments: [
            ("InfoReceived", "InfoReceived_001", TrackingStatus.infoReceived),
            ("InTransit", "InTransit_007", .inTransit),
            ("OutForDelivery", "OutForDelivery_003", .outForDelivery),
            ("AvailableForPickup", "AvailableForPickup_001", .availableForPickup),
            ("AttemptFail", "AttemptFail_001", .failedAttempt),
            ("Delivered", "Delivered_001", .delivered),
            ("Delivered", "Delivered_003", .delivered),
            ("Delivered", "Delivered_002", .pickedUp),
            ("Exception", "Exception_004", .exception),
            ("Exception", "Exception_010", .returnedToSender),
            ("Exception", "Exception_011", .returnedToSender),
            ("Exception", "Exception_020", .cancelled),
        ]
    )
    func eachTagMapsOntoTheStatusItsDocumentationDescribes(tag: String, subtag: String, status: TrackingStatus) async throws {
        let request = try await update {
            $0["tag"] = .string(tag)
            $0["subtag"] = .string(subtag)
        }
        #expect(try events(request).map(\.status) == [status])
    }

    @Test(arguments: ["Pending", "Expired", "Teleported"])
    func aTagThatSaysNothingOfWhereTheParcelIsGivesNoEvent(tag: String) async throws {
        let request = try await update { $0["tag"] = .string(tag) }
        #expect(try events(request).isEmpty)
    }

    @Test func aPendingTimeAlertGivesNoEventButAnEstimateRevisionDoes() async throws {
        let fixture = try ProviderRequest.fixture("aftership-tracking-update.json")
        let alert = try await ProviderRequest.afterShip(try edited(fixture) { $0["event"] = .string("tracking_pending_time") }, secret: secret)
        #expect(try events(alert).isEmpty)
        let revision = try await ProviderRequest.afterShip(try edited(fixture) { $0["event"] = .string("edd_revise") }, secret: secret)
        #expect(try events(revision).map(\.estimatedDeliveryAt) == [try instant("2026-11-25T12:00:00Z")])
    }

    @Test func aCheckpointTimeWithoutItsZoneGivesWayToWhenAfterShipRecordedIt() async throws {
        let request = try await update { tracking in
            tracking["checkpoints"] = .array([
                edited(.object([:])) {
                    // The documentation's own example writes checkpoint times this way.
                    $0["checkpoint_time"] = .string("2026-11-25T08:12:00")
                    $0["created_at"] = .string("2026-11-25T07:14:38Z")
                    $0["message"] = .string("Out for delivery")
                }
            ])
        }
        #expect(try events(request).map(\.occurredAt) == [try instant("2026-11-25T07:14:38Z")])
    }

    @Test func aTrackingWithoutCheckpointsTakesItsUpdateTimeAndItsOwnWords() async throws {
        let request = try await update { $0["checkpoints"] = .array([]) }
        let event = try #require(try events(request).first)
        #expect(event.occurredAt == (try instant("2026-11-25T07:14:40Z")))
        #expect(event.description == "Out for Delivery")
    }

    @Test func anEstimatedDayWithoutATimeIsPlacedAtNoonUTCSoEveryZoneSeesThatDay() async throws {
        let request = try await update {
            $0["latest_estimated_delivery"] = .object(["datetime": .string("2026-11-27")])
        }
        let event = try #require(try events(request).first)
        #expect(event.estimatedDeliveryAt == (try instant("2026-11-27T12:00:00Z")))
        #expect(event.estimatedDeliveryWindowDuration == nil)
    }

    @Test func theCarriersEstimateStandsInWhenAfterShipHasNoLatestOne() async throws {
        let request = try await update { $0["latest_estimated_delivery"] = nil }
        #expect(try events(request).map(\.estimatedDeliveryAt) == [try instant("2026-11-25T12:00:00Z")])
    }

    @Test func aLongMessyCarrierMessageIsTidiedAndCut() async throws {
        let message = "Delivered\tto the\nneighbour  at No. 12 " + String(repeating: "and more ", count: 100)
        let request = try await update {
            $0["checkpoints"] = .array([.object(["message": .string(message), "created_at": .string("2026-11-25T07:14:38Z")])])
        }
        let description = try #require(try events(request).first?.description)
        #expect(description.hasPrefix("Delivered to the neighbour at No. 12 and more"))
        #expect(description.count == TrackingEvent.maxDescriptionLength)
    }
}
