import ArgumentParser
import Foundation
import WalletOrdersCrypto
import WalletOrdersModel
import WalletOrdersPackage

/// `wallet-orders verify`: check a package as Wallet would.
struct Verify: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check an .order package: layout, digests, signature and chain, order.json, localizations, size.",
        discussion: """
            Exits 0 when the package is good and 1 with a list of problems when it is not. Warnings (objects that \
            devices before iOS 17 do not show, deprecated fields, plain-http links) are printed either way.
            """
    )

    @Argument(help: "The .order file to check.")
    var package: String

    @Option(help: "A trusted root certificate (PEM); with it, the signer's chain is checked up to this root.")
    var ca: String?

    @Flag(help: "Accept a plain-http webServiceURL, as a development server without TLS writes one.")
    var allowHTTPWebService = false

    func run() throws {
        var roots: [Certificate]?
        if let ca {
            guard let caData = FileManager.default.contents(atPath: ca) else {
                throw CommandFailure("\(ca): cannot read the file")
            }
            let certificates = Certificate.allPEM(caData)
            guard !certificates.isEmpty else { throw CommandFailure("\(ca): holds no PEM certificate") }
            roots = certificates
        }
        let report: PackageReport
        do {
            report = try PackageVerifier.verify(
                fileAt: package,
                trustedRoots: roots,
                allowHTTPWebService: allowHTTPWebService
            )
        } catch {
            throw CommandFailure("\(package): cannot read the file")
        }
        print("\(package): \(report.files.count) files, \(report.bytes) bytes")
        if let type = report.orderTypeIdentifier, let id = report.orderIdentifier { print("  order: \(type) / \(id)") }
        if let digest = report.digest { print("  manifest: \(digest.rawValue)") }
        if let signer = report.signer { print("  signer: \(signer)") }
        if let time = report.signingTime { print("  signed at: \(RFC3339.format(time))") }
        for warning in report.warnings { print("  warning: \(warning)") }
        if report.isValid {
            print(
                report.chainChecked
                    ? "OK: the package is valid and chains to the trusted root."
                    : "OK: the package is valid (chain not checked: pass --ca ROOT.pem to check it)."
            )
            return
        }
        print("INVALID: \(report.problems.count) problem\(report.problems.count == 1 ? "" : "s"):")
        for problem in report.problems { print("  - \(problem)") }
        throw ExitCode(1)
    }
}
