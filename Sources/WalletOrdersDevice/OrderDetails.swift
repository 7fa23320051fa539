import Foundation
import WalletOrdersModel

/// What Apple Pay hands Wallet for an order at checkout (`PKPaymentOrderDetails`): where the order's web service is
/// and the token that opens it.
public struct OrderDetails: Codable, Sendable, Equatable, CustomStringConvertible {
    public var orderTypeIdentifier: String
    public var orderIdentifier: String
    /// The web service's base URL; the device API is under `{webServiceURL}/v1/`.
    public var webServiceURL: String
    /// The secret sent as `Authorization: AppleOrder {token}`; never shown in a transcript or a description.
    public var authenticationToken: String

    public init(
        orderTypeIdentifier: String,
        orderIdentifier: String,
        webServiceURL: String,
        authenticationToken: String
    ) {
        self.orderTypeIdentifier = orderTypeIdentifier
        self.orderIdentifier = orderIdentifier
        self.webServiceURL = webServiceURL
        self.authenticationToken = authenticationToken
    }

    /// Reads orderDetails JSON: the object itself, or the merchant API's answer to creating an order, which holds
    /// it under `orderDetails`.
    public init(json data: Data) throws {
        let json = try JSONValue.parse(data)
        let object = json["orderDetails"] ?? json
        func field(_ name: String) throws -> String {
            guard let value = object[name]?.stringValue, !value.isEmpty else {
                throw DeviceError.badOrderDetails("orderDetails has no \(name)")
            }
            return value
        }
        self.init(
            orderTypeIdentifier: try field("orderTypeIdentifier"),
            orderIdentifier: try field("orderIdentifier"),
            webServiceURL: try field("webServiceURL"),
            authenticationToken: try field("authenticationToken")
        )
    }

    /// The order's type, identifier and web service, without the token.
    public var description: String { "\(orderTypeIdentifier) / \(orderIdentifier) at \(webServiceURL)" }
}
