import Foundation
import WalletOrdersCrypto
import WalletOrdersModel
import WalletOrdersPackage

/// One configured order type, loaded and checked: the package builder that signs for it and its template (under
/// which a merchant's own template is laid, see `MerchantDirectory`).
public struct OrderType: Sendable {
    public let identifier: String
    public let builder: PackageBuilder
    public let template: OrderTemplate

    public init(identifier: String, builder: PackageBuilder, template: OrderTemplate) {
        self.identifier = identifier
        self.builder = builder
        self.template = template
    }

    /// The signed package of `order` with `template` (the order type's own by default) and `assets`, stamped with
    /// the order's `updatedAt`, and the warnings its order drew.
    public func package(
        _ order: OrderDocument,
        assets: [String: Data],
        template: OrderTemplate? = nil
    ) throws
        -> BuiltPackage
    {
        try builder.package(
            order: order,
            template: template ?? self.template,
            assets: assets,
            signingTime: order.updatedAt ?? Date()
        )
    }

    /// The package `package` made of `order` and `assets` with `seal`, assembled again without signing; nil when
    /// the seal does not fit them, the template or the certificates.
    public func package(
        _ order: OrderDocument,
        assets: [String: Data],
        template: OrderTemplate? = nil,
        seal: PackageSeal
    )
        throws -> Data?
    {
        try builder.package(order: order, template: template ?? self.template, assets: assets, seal: seal)
    }
}
