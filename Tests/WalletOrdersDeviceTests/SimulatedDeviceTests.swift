import Foundation
import Testing
import WalletOrdersCrypto
import WalletOrdersDevice
import WalletOrdersModel
import WalletOrdersPackage
import WalletOrdersTesting

@Suite(.timeLimit(.minutes(5))) struct SimulatedDeviceTests {
    let keys = DevelopmentKeys.shared

    private func package() throws -> Data {
        try PackageBuilder(identity: keys.identity).build(
            order: SampleOrder.document(),
            template: OrderTemplate(directory: SampleOrder.templateFolder),
            signingTime: Date(timeIntervalSince1970: 1_795_342_530)
        )
    }

    @Test func aPackageChainingToTheTrustedRootIsAddedAndOneFromAnotherChainIsRefused() async throws {
        let trusting = try SimulatedDevice(trustedRoots: [keys.chain.root])
        let added = try await trusting.add(package: try package())
        #expect(added.orderIdentifier == "A-1001")
        #expect(!added.isRegistered, "an order without a web service registers nowhere")
        #expect(trusting.transcript.map(\.kind) == [.verified, .added])

        let other = try DevelopmentChain(orderTypeIdentifier: DevelopmentKeys.orderType, teamIdentifier: DevelopmentKeys.team)
        let stranger = try SimulatedDevice(trustedRoots: [other.root])
        await #expect(throws: DeviceError.self) { try await stranger.add(package: try package()) }
        #expect(await stranger.orders.isEmpty)
        #expect(stranger.transcript.map(\.kind) == [.refused])
        #expect(stranger.transcript.first?.detail?.hasPrefix("signature") == true, "\(stranger.transcript)")
    }

    @Test func eventsEncodeToTheStableJSONShapeWithoutEmptyMembers() throws {
        let time = Date(timeIntervalSince1970: 1_795_342_530.25)
        let request = DeviceEvent(
            kind: .fetch,
            time: time,
            method: "GET",
            url: "http://127.0.0.1:8080/v1/orders/t/1",
            status: 304,
            milliseconds: 2.5,
            detail: "not modified"
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        #expect(
            String(decoding: try encoder.encode(request), as: UTF8.self) == #"{"detail":"not modified","kind":"fetch","#
                + #""method":"GET","milliseconds":2.5,"status":304,"time":"2026-11-22T10:15:30.250Z","#
                + #""url":"http://127.0.0.1:8080/v1/orders/t/1"}"#
        )
        #expect(try JSONDecoder().decode(DeviceEvent.self, from: encoder.encode(request)) == request)
        let push = DeviceEvent(kind: .push, time: time, detail: "topic order.com.example.dev")
        #expect(
            String(decoding: try encoder.encode(push), as: UTF8.self)
                == #"{"detail":"topic order.com.example.dev","kind":"push","time":"2026-11-22T10:15:30.250Z"}"#
        )
        #expect(request.description == "fetch GET http://127.0.0.1:8080/v1/orders/t/1 → 304 in 2.5 ms: not modified")
    }

    @Test func orderDetailsAreReadAloneOrFromTheMerchantAnswerAndNeverShowTheToken() throws {
        let alone =
            #"{"orderTypeIdentifier": "order.com.example.dev", "orderIdentifier": "A-1", "#
            + #""webServiceURL": "https://orders.example.com", "authenticationToken": "secret-token-0123456789"}"#
        let details = try OrderDetails(json: Data(alone.utf8))
        #expect(try OrderDetails(json: Data(#"{"orderDetails": \#(alone), "order": {}}"#.utf8)) == details)
        #expect(details.authenticationToken == "secret-token-0123456789")
        #expect(!details.description.contains("secret"))
        #expect(throws: DeviceError.badOrderDetails("orderDetails has no webServiceURL")) {
            try OrderDetails(json: Data(#"{"orderTypeIdentifier": "t", "orderIdentifier": "1", "authenticationToken": "x"}"#.utf8))
        }
    }

    @Test func aDeviceHasAHexPushTokenOfThirtyTwoBytesAndAnIdentifierOfItsOwn() throws {
        let first = try SimulatedDevice(trustedRoots: [keys.chain.root])
        let second = try SimulatedDevice(trustedRoots: [keys.chain.root])
        #expect(first.pushToken.count == 64 && first.pushToken.allSatisfy(\.isHexDigit))
        #expect(first.pushToken != second.pushToken && first.identifier != second.identifier)
    }
}
