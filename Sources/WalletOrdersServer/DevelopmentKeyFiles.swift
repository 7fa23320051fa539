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
        let environment = """
        # Development settings made by `wallet-orders keys dev`; not trusted by real devices.
        WALLET_ORDERS_ORDER_TYPE=\(orderType)
        WALLET_ORDERS_TEAM_ID=\(team)
        WALLET_ORDERS_SIGNING_CERT=\(path("order-type.pem"))
        WALLET_ORDERS_SIGNING_KEY=\(path("order-type.key"))
        WALLET_ORDERS_WWDR_CERT=\(path("wwdr.pem"))
        WALLET_ORDERS_APNS_KEY=\(path(apnsName))
        WALLET_ORDERS_APNS_KEY_ID=\(chain.apnsKeyID)
        WALLET_ORDERS_APNS_TEAM_ID=\(team)

        """
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
        return Written(written: outputs.map(\.name), environmentFile: path("dev.env"),
                       environment: readEnvironmentFile(path("dev.env")))
    }

    /// The `NAME=value` lines of an environment file, comments skipped.
    public static func readEnvironmentFile(_ path: String) -> [String: String] {
        var settings: [String: String] = [:]
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { settings[String(parts[0])] = String(parts[1]) }
        }
        return settings
    }
}
