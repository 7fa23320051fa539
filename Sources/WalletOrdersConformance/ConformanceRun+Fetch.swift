import Foundation
import WalletOrdersCrypto
import WalletOrdersDevice
import WalletOrdersModel
import WalletOrdersPackage

/// The fetch of the order and the package it serves, as Wallet checks it before showing the order.
extension ConformanceRun {
    func checkFetch() async {
        let answer = await send("GET", orderURL, headers: [Self.authorization(details.authenticationToken)])
        await judge(.fetchStatus) {
            answer.status == 200 ? .pass("\(answer.method) \(answer.target) → 200, \(answer.response?.body.count ?? 0) bytes") : .fail(answer.summary)
        }
        guard answer.status == 200, let package = answer.response?.body else { return }
        firstFetch = answer
        await judge(.fetchContentType) {
            guard let type = answer.header("Content-Type") else { return .fail("the answer has no Content-Type header") }
            let media = type.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            return media == PackageBuilder.contentType ? .pass("Content-Type: \(type)") : .fail("Content-Type: \(type)")
        }
        await checkPackage(package)
    }

    /// The package rules, on the package of the first fetch.
    private func checkPackage(_ package: Data) async {
        let report = PackageVerifier.verify(package, trustedRoots: configuration.trustedRoots, allowHTTPWebService: true)
        let entries = try? ZipArchive.read(package)
        let document = Self.orderDocument(in: entries)
        firstOrder = document
        signatureCertificates = Self.signature(of: entries)?.certificates ?? []
        let unreadable = entries == nil ? "the package cannot be read as a zip archive" : nil

        await judge(.packageSize) {
            package.count < PackageBuilder.maxPackageBytes
                ? .pass("\(package.count) bytes")
                : .fail("\(package.count) bytes; Wallet takes packages below \(PackageBuilder.maxPackageBytes) bytes")
        }
        await judge(.packageArchive) {
            let problems = report.problems(.archive)
            return problems.isEmpty ? .pass("\(report.files.count) files: \(report.files.joined(separator: ", "))") : .fail(Self.list(problems))
        }
        await judge(.packageManifest) {
            let problems = report.problems(.manifest)
            if !problems.isEmpty { return .fail(Self.list(problems)) }
            if let unreadable { return .skip(unreadable) }
            guard let digest = report.digest else { return .skip("manifest.json was not checked") }
            return .pass("every file is listed with its \(digest.rawValue) digest")
        }
        await judge(.packageSignature) {
            let problems = report.problems(.signature)
            if !problems.isEmpty { return .fail(Self.list(problems)) }
            guard let signer = report.signer else { return .skip(unreadable ?? "the signature was not checked") }
            let time = report.signingTime.map { " at \(RFC3339.format($0))" } ?? ""
            return .pass("signed by \(signer)\(time), with the certificate that issued it")
        }
        await judge(.packageSigner) {
            let problems = report.problems(.signer)
            if !problems.isEmpty { return .fail(Self.list(problems)) }
            guard let uid = Self.signer(of: entries)?.subjectUserID else {
                return .fail("the signing certificate has no UID naming an order type")
            }
            guard uid == details.orderTypeIdentifier else {
                return .fail("the signing certificate is for \(uid), but orderDetails names \(details.orderTypeIdentifier)")
            }
            return .pass("the signing certificate's UID is \(uid)")
        }
        await judge(.packageChain) {
            let problems = report.problems(.chain)
            if !problems.isEmpty {
                let roots = configuration.trustedRoots.map(\.subjectDescription).joined(separator: "; ")
                return .fail(Self.list(problems) + " (trusted: \(roots); give a development root with --ca)")
            }
            return report.chainChecked ? .pass("the signer chains to the trusted root") : .skip("the chain was not checked")
        }
        await judge(.packageOrder) {
            let problems = report.problems(.order)
            if !problems.isEmpty { return .fail(Self.list(problems)) }
            guard document != nil else { return .fail(unreadable ?? "order.json cannot be read") }
            return .pass(report.warnings.isEmpty ? "valid" : "valid, with warnings: \(Self.list(report.warnings))")
        }
        await judge(.packageIdentifiers) {
            guard let document else { return .fail(unreadable ?? "order.json cannot be read") }
            let found = "\(document.orderTypeIdentifier ?? "no orderTypeIdentifier") / \(document.orderIdentifier ?? "no orderIdentifier")"
            return document.orderTypeIdentifier == details.orderTypeIdentifier && document.orderIdentifier == details.orderIdentifier
                ? .pass(found)
                : .fail("order.json holds \(found); orderDetails names \(details.orderTypeIdentifier) / \(details.orderIdentifier)")
        }
        await judge(.packageWebService) {
            guard let document else { return .fail(unreadable ?? "order.json cannot be read") }
            return webServiceProblem(document).map(Outcome.fail)
                ?? .pass("webServiceURL \(document.webServiceURL ?? "") and the token are orderDetails'")
        }
        await judge(.packageHTTPS) {
            if configuration.allowsHTTP { return .skip("--allow-http: a development server") }
            let urls = [("orderDetails", details.webServiceURL)] + (document?.webServiceURL.map { [("order.json", $0)] } ?? [])
            let plain = urls.filter { !$0.1.lowercased().hasPrefix("https://") }
            return plain.isEmpty
                ? .pass("webServiceURL is https")
                : .fail(plain.map { "\($0.0)'s webServiceURL is \($0.1)" }.joined(separator: "; "))
        }
    }

    /// What is wrong with order.json's webServiceURL and authenticationToken against orderDetails', never quoting a token.
    private func webServiceProblem(_ document: OrderDocument) -> String? {
        var problems: [String] = []
        switch document.webServiceURL {
        case nil: problems.append("order.json has no webServiceURL")
        case let url? where WebServicePath.base(url) != WebServicePath.base(details.webServiceURL):
            problems.append("order.json's webServiceURL is \(url), orderDetails' \(details.webServiceURL)")
        default: break
        }
        switch document.authenticationToken {
        case nil: problems.append("order.json has no authenticationToken")
        case let token? where token != details.authenticationToken:
            problems.append(
                "order.json's authenticationToken (\(token.count) characters) is not orderDetails' "
                    + "(\(details.authenticationToken.count) characters)"
            )
        default: break
        }
        return problems.isEmpty ? nil : problems.joined(separator: "; ")
    }

    static func orderDocument(in entries: [ZipArchive.Entry]?) -> OrderDocument? {
        guard let data = entries?.first(where: { $0.path == "order.json" })?.data else { return nil }
        return try? OrderDocument(data: data)
    }

    /// The signer's certificate, when the signature verifies over the manifest (its chain not checked).
    private static func signer(of entries: [ZipArchive.Entry]?) -> Certificate? {
        signature(of: entries)?.signers.first
    }

    /// What the signature says of itself, when it verifies over the manifest (its chain not checked).
    private static func signature(of entries: [ZipArchive.Entry]?) -> CMSSignedInfo? {
        guard let signature = entries?.first(where: { $0.path == "signature" })?.data,
            let manifest = entries?.first(where: { $0.path == "manifest.json" })?.data
        else { return nil }
        return try? CMSSignature.verify(signature, content: manifest, trustedRoots: nil)
    }

    /// Problems as one line.
    static func list(_ problems: [String]) -> String { problems.joined(separator: "; ") }
}
