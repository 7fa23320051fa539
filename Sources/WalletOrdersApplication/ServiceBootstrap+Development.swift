import Foundation
import WalletOrdersAPNS

/// With no order type configured: development keys in the data folder, and the order type they describe.
extension ServiceBootstrap {
    /// Where the development keys live: `dev-keys/` in the data folder.
    public static func developmentKeysFolder(_ configuration: ServiceConfiguration) -> URL {
        configuration.dataFolder.appendingPathComponent("dev-keys")
    }

    /// Makes the development keys when there are none yet; answers what to tell the user (nothing when they exist).
    public static func makeDevelopmentKeys(_ configuration: ServiceConfiguration) throws -> [String] {
        let folder = developmentKeysFolder(configuration)
        guard !FileManager.default.fileExists(atPath: folder.appendingPathComponent("dev.env").path) else { return [] }
        _ = try DevelopmentKeyFiles.write(
            to: folder,
            orderType: DevelopmentKeyFiles.defaultOrderType,
            team: DevelopmentKeyFiles.defaultTeam,
            replace: false
        )
        return ["No order type configured: made development keys in \(folder.path) (not trusted by real devices)."]
    }

    /// With no order type configured: the development order type from `dev-keys/` in the data folder, made
    /// there first when `create` is set (nil when it is not and there are none), and what to tell the user.
    public static func developmentOrderType(
        _ configuration: ServiceConfiguration,
        create: Bool
    ) async throws
        -> (type: OrderTypeConfiguration, notes: [String])?
    {
        var notes: [String] = []
        let folder = developmentKeysFolder(configuration)
        let environmentFile = folder.appendingPathComponent("dev.env").path
        if !FileManager.default.fileExists(atPath: environmentFile) {
            guard create else { return nil }
            notes += try makeDevelopmentKeys(configuration)
        }
        guard var type = try await ServiceConfiguration.orderType(environmentFile: environmentFile) else {
            throw ConfigurationError("\(environmentFile) is incomplete: remove \(folder.path) to make new development keys")
        }
        let sample = URL(fileURLWithPath: "OrderTemplates/sample")
        if let template = configuration.developmentTemplate {
            type.template = template
            notes.append("Template: \(template).")
        } else if type.template == nil, FileManager.default.fileExists(atPath: sample.path) {
            type.template = sample.path
        }
        if let apns = configuration.developmentAPNS {
            type.apnsEnvironment = .custom(url: apns.url)
            type.apnsCA = apns.caFile
            notes.append("Pushes go to the local APNs at \(apns.url) with the development APNs key.")
        } else {
            // Without a local APNs to push to, the development pushes wait in the outbox.
            type.apnsKey = nil
            type.apnsCertificate = nil
        }
        return (type, notes)
    }
}
