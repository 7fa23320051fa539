import Foundation
import WalletOrdersCrypto
import WalletOrdersModel
import WalletOrdersPackage

/// One configured order type, loaded and checked: the package builder that signs for it and its template.
public struct OrderType: Sendable {
    public let identifier: String
    public let builder: PackageBuilder
    public let template: OrderTemplate

    public init(identifier: String, builder: PackageBuilder, template: OrderTemplate) {
        self.identifier = identifier
        self.builder = builder
        self.template = template
    }

    /// Loads the certificate, key, WWDR certificate and template `configuration` names, refusing with one
    /// sentence when any is unusable.
    public init(_ configuration: OrderTypeConfiguration, allowsHTTPWebService: Bool, now: Date = Date()) throws {
        guard let digest = DigestAlgorithm(rawValue: configuration.manifestDigest) else {
            throw ConfigurationError("order type \(configuration.identifier): manifestDigest must be sha256 or sha1, "
                + "not \(configuration.manifestDigest)")
        }
        if let problem = Identifier.problem(with: configuration.identifier) {
            throw ConfigurationError("order type \(configuration.identifier) \(problem)")
        }
        do {
            let identity = try SigningIdentity.load(
                certificateFile: configuration.signingCertificate,
                keyFile: configuration.signingKey,
                password: configuration.signingKeyPassword,
                wwdrFile: configuration.wwdrCertificate,
                orderTypeIdentifier: configuration.identifier,
                now: now)
            let template = try configuration.template.map { try OrderTemplate(directory: URL(fileURLWithPath: $0)) }
            self.init(
                identifier: configuration.identifier,
                builder: PackageBuilder(identity: identity, digest: digest, allowsHTTPWebService: allowsHTTPWebService),
                template: template ?? OrderTemplate())
        } catch let error as PackageError {
            throw ConfigurationError("order type \(configuration.identifier): \(error)")
        }
    }

    /// The signed package of `order` with the template and `assets`, stamped with the order's `updatedAt`.
    public func package(_ order: OrderDocument, assets: [String: Data]) throws -> Data {
        try builder.build(order: order, template: template, assets: assets, signingTime: order.updatedAt ?? Date())
    }
}
