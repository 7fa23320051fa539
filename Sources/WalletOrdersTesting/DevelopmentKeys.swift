import Foundation
import WalletOrdersCrypto
import WalletOrdersPackage

/// A development chain written to a temporary folder, as `wallet-orders keys dev` writes one.
public final class DevelopmentKeys: Sendable {
    /// The chain.
    public let chain: DevelopmentChain
    /// The folder holding its files.
    public let folder: TemporaryDirectory
    /// The signing identity the chain makes.
    public let identity: SigningIdentity

    /// The order type the shared keys are made for.
    public static let orderType = "order.com.example.dev"
    /// The team the shared keys are made for.
    public static let team = "DEVTEAM123"

    /// One chain per test process: RSA key generation is slow enough to matter across many tests.
    public static let shared: DevelopmentKeys = {
        do {
            return try DevelopmentKeys(orderType: orderType, team: team)
        } catch {
            fatalError("cannot make development keys: \(error)")
        }
    }()

    public init(orderType: String, team: String) throws {
        chain = try DevelopmentChain(orderTypeIdentifier: orderType, teamIdentifier: team)
        folder = try TemporaryDirectory("keys")
        try folder.write("root-ca.pem", Data(chain.root.pem.utf8))
        try folder.write("wwdr.pem", Data(chain.wwdr.pem.utf8))
        try folder.write("order-type.pem", Data(chain.orderTypeCertificate.pem.utf8))
        try folder.write("order-type.key", Data(chain.orderTypeKey.pkcs8PEM().utf8))
        try folder.write("apns.p8", Data(chain.apnsKey.pkcs8PEM().utf8))
        try folder.write("apns-public.pem", Data(chain.apnsKey.publicKeyPEM().utf8))
        identity = try SigningIdentity(
            certificate: chain.orderTypeCertificate,
            key: chain.orderTypeKey,
            wwdr: chain.wwdr,
            orderTypeIdentifier: orderType
        )
    }

    public var rootPath: String { folder.path("root-ca.pem") }
    public var wwdrPath: String { folder.path("wwdr.pem") }
    public var certificatePath: String { folder.path("order-type.pem") }
    public var keyPath: String { folder.path("order-type.key") }
}
