import Foundation
import WalletOrdersCrypto

/// Writes a `DevelopmentChain` as files, in the layout `keys dev` documents.
public enum DevelopmentKeyFiles {
    public static let defaultOrderType = "order.com.example.dev"
    public static let defaultTeam = "DEVTEAM123"

    /// What was written.
    public struct Written: Sendable {
        public let written: [String]
        public let environmentFile: String
        /// The settings dev.env holds, by variable name.
        public let environment: [String: String]
    }

    /// Makes a fresh chain and writes it to `folder`; refuses to replace existing files unless `replace`.
    public static func write(to folder: URL, orderType: String, team: String, replace: Bool) throws -> Written {
        let chain = try DevelopmentChain(orderTypeIdentifier: orderType, teamIdentifier: team)
        let manager = FileManager.default
        try manager.createDirectory(at: folder, withIntermediateDirectories: true)
        let apnsName = "AuthKey_\(chain.apnsKeyID).p8"
        let path = { (name: String) in folder.appendingPathComponent(name).path }
        var type = OrderTypeConfiguration(
            identifier: orderType,
            signingKey: path("order-type.key"),
            wwdrCertificate: path("wwdr.pem")
        )
        type.teamIdentifier = team
        type.signingCertificate = path("order-type.pem")
        type.apnsKey = path(apnsName)
        type.apnsKeyID = chain.apnsKeyID
        type.apnsTeamID = team
        let variables = type.environment
        let environment =
            "# Development settings made by `wallet-orders keys dev`; not trusted by real devices.\n"
            + variables.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)\n" }.joined()
        let outputs: [(name: String, contents: String, secret: Bool)] = [
            ("root-ca.pem", chain.root.pem, false),
            ("wwdr.pem", chain.wwdr.pem, false),
            ("order-type.pem", chain.orderTypeCertificate.pem, false),
            ("order-type.key", try chain.orderTypeKey.pkcs8PEM(), true),
            (apnsName, try chain.apnsKey.pkcs8PEM(), true),
            ("apns-public.pem", try chain.apnsKey.publicKeyPEM(), false),
            ("dev.env", environment, false),
        ]
        if !replace {
            let existing = ["root-ca.pem", "order-type.key", "dev.env"].filter { manager.fileExists(atPath: path($0)) }
            if !existing.isEmpty {
                throw ConfigurationError("\(folder.path) already holds \(existing.joined(separator: ", ")); pass --force to replace it")
            }
        }
        for output in outputs {
            let url = folder.appendingPathComponent(output.name)
            try Data(output.contents.utf8).write(to: url, options: .atomic)
            if output.secret {
                try manager.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
            }
        }
        return Written(written: outputs.map(\.name), environmentFile: path("dev.env"), environment: variables)
    }
}
