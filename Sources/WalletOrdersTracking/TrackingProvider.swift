import Foundation
import WalletOrdersCrypto
import WalletOrdersModel

/// A carrier aggregator whose webhook this service takes: its requests are checked with the secret the merchant
/// configured, exactly as the provider signs them, and their payloads turned into tracking events.
///
/// The raw value names the provider in URLs and configuration. AfterShipWebhook.swift and EasyPostWebhook.swift
/// say how each provider's statuses map onto `TrackingStatus`.
public enum TrackingProvider: String, CaseIterable, Sendable {
    /// AfterShip Tracking (not AfterShip Returns, Warranty or Shipping, which sign differently).
    case aftership
    case easypost

    /// The provider's name, for people.
    public var name: String {
        switch self {
        case .aftership: "AfterShip"
        case .easypost: "EasyPost"
        }
    }

    /// The request header, lowercased, that carries the provider's signature of the body.
    public var signatureHeader: String {
        switch self {
        case .aftership: AfterShipWebhook.signatureHeader
        case .easypost: EasyPostWebhook.signatureHeader
        }
    }

    /// The tracking events a webhook request reports: `body` as received, `headers` with lowercased names, `secret` the
    /// one the merchant configured for this provider. The signature is checked before anything of the body is read.
    /// None when the request says nothing about where a parcel is (an event about something else, a status that
    /// names no place); answer it as taken, so that the provider does not send it again.
    public func events(body: [UInt8], headers: [String: String], secret: String) throws(TrackingWebhookError) -> [TrackingEvent] {
        // An empty key is one anybody can sign with.
        guard !secret.isEmpty else { throw .noSecret(self) }
        guard let signature = header(signatureHeader, in: headers), isSignature(signature, of: body, secret: secret) else {
            throw .badSignature(self)
        }
        let payload: JSONValue
        do {
            payload = try JSONValue.parse(Data(body))
        } catch {
            throw .unreadable("the body is not JSON: \(error)")
        }
        switch self {
        case .aftership: return try AfterShipWebhook.events(in: payload)
        case .easypost: return try EasyPostWebhook.events(in: payload)
        }
    }

    /// What the provider sends in its signature header for `body` signed with `secret`: for tools and fuzz targets that
    /// stand in for the provider.
    public func signature(of body: [UInt8], secret: String) -> String {
        switch self {
        case .aftership: AfterShipWebhook.signature(of: body, secret: secret)
        case .easypost: EasyPostWebhook.signature(of: body, secret: secret)
        }
    }

    /// Whether `signature`, as the request carries it, is the provider's signature of `body` under `secret`.
    private func isSignature(_ signature: String, of body: [UInt8], secret: String) -> Bool {
        let given = signature.trimmingCharacters(in: .whitespaces)
        switch self {
        case .aftership:
            return ConstantTime.equals(given, AfterShipWebhook.signature(of: body, secret: secret))
        case .easypost:
            // Hex is hex in either case; EasyPost's own libraries compare the lowercase form it sends.
            return ConstantTime.equals(given.lowercased(), EasyPostWebhook.signature(of: body, secret: secret))
        }
    }
}

/// The value of header `name` (lowercase), whatever case `headers` spells it in.
private func header(_ name: String, in headers: [String: String]) -> String? {
    headers[name] ?? headers.first { $0.key.lowercased() == name }?.value
}
