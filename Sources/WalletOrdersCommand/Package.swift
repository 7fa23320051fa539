import ArgumentParser
import Foundation
import WalletOrdersApplication
import WalletOrdersCrypto
import WalletOrdersModel
import WalletOrdersPackage

/// `wallet-orders package`: build and sign one `.order` offline.
struct Package: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Build and sign an .order package from an order.json and a template folder.",
        discussion: """
            The signing settings are read as serve reads them: --config's JSON file with WALLET_ORDERS_* variables \
            over it (signingCert, signingKey, wwdrCert, template, manifestDigest; WALLET_ORDERS_SIGNING_CERT and so \
            on); the options below override them. The key's password, if any, is read from signingKeyPassword \
            (WALLET_ORDERS_SIGNING_KEY_PASSWORD), never from the command line.
            """
    )

    @Argument(help: "The order.json to package.")
    var order: String

    @Option(help: "The order type's template folder (images, .lproj folders, template.json).")
    var template: String?

    @Option(help: "Where to write the package.")
    var out: String

    @Option(help: "A JSON configuration file; WALLET_ORDERS_* environment variables override it.")
    var config: String?

    @Option(help: "The Order Type ID certificate (PEM or DER); optional when --key is a .p12 holding it.")
    var cert: String?

    @Option(help: "The certificate's private key: PEM, or a PKCS #12 (.p12) file.")
    var key: String?

    @Option(help: "The WWDR intermediate certificate that issued --cert.")
    var wwdr: String?

    @Option(help: "The manifest digest: sha256 (Apple's documented choice) or sha1.")
    var digest: String?

    func run() async throws {
        let settings: SigningSettings
        do {
            settings = try await ServiceConfiguration.signing(file: config, environment: ProcessInfo.processInfo.environment)
        } catch let error as ConfigurationError {
            throw CommandFailure("\(error)")
        }
        guard let keyFile = key ?? settings.key else {
            throw ValidationError("name the signing key with --key or WALLET_ORDERS_SIGNING_KEY")
        }
        guard let wwdrFile = wwdr ?? settings.wwdrCertificate else {
            throw ValidationError("name the WWDR certificate with --wwdr or WALLET_ORDERS_WWDR_CERT")
        }
        var algorithm = settings.manifestDigest
        if let digest {
            do {
                algorithm = try DigestAlgorithm.named(digest)
            } catch {
                throw ValidationError(error.description)
            }
        }
        let templateFolder = template ?? settings.template
        do {
            let identity = try SigningIdentity.load(
                certificateFile: cert ?? settings.certificate,
                keyFile: keyFile,
                password: settings.keyPassword,
                wwdrFile: wwdrFile
            )
            var document = try OrderDocument(data: Data(contentsOf: URL(fileURLWithPath: order)))
            if document.orderTypeIdentifier == nil, let type = identity.orderTypeIdentifier {
                document["orderTypeIdentifier"] = .string(type)
            }
            let orderTemplate =
                try templateFolder.map { try OrderTemplate(directory: URL(fileURLWithPath: $0)) }
                ?? OrderTemplate()
            // The order's own updatedAt stamps the package, so one version of an order always gives the same bytes.
            let signingTime = document.withDefaults(orderTemplate.defaults ?? .object([:])).updatedAt ?? Date()
            let builder = PackageBuilder(identity: identity, digest: algorithm)
            let package = try builder.build(order: document, template: orderTemplate, signingTime: signingTime)
            try package.write(to: URL(fileURLWithPath: out), options: .atomic)
            print("Wrote \(out) (\(package.count) bytes), signed by \(identity.certificate.subjectDescription)")
            for warning in try builder.validate(order: document, template: orderTemplate).warnings {
                print("warning: \(warning)")
            }
        } catch let error as PackageError {
            throw CommandFailure("\(error)")
        } catch let error as JSONValue.ParseError {
            throw CommandFailure("\(order): \(error)")
        } catch let error as CocoaError where error.code == .fileReadNoSuchFile {
            throw CommandFailure("\(order): no such file")
        }
    }
}

/// A failure the command reports in one message, exiting non-zero without a usage text.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
