import Foundation
import WalletOrdersCrypto
import WalletOrdersModel
import WalletOrdersPackage
import WalletOrdersTesting

/// The packages the faulty service serves: built and signed by the package builder, then, for a package fault, taken
/// apart and put together with the one mistake (and a manifest and signature made anew where the fault is not theirs).
extension FaultyWebService {
    /// The package of the current version.
    func package() throws -> Data {
        if let built = packages[version] { return built }
        let built = try build()
        packages[version] = built
        return built
    }

    private func build() throws -> Data {
        var order =
            SampleOrder.json(orderTypeIdentifier: orderType, orderIdentifier: orderIdentifier, updatedAt: RFC3339.format(updatedAt))
            .objectValue ?? [:]
        order["webServiceURL"] = .string(base)
        order["authenticationToken"] = .string(token)
        let builder = PackageBuilder(identity: chain.identity, allowsHTTPWebService: true)
        let good = try builder.build(order: OrderDocument(fields: order), template: template, signingTime: Date())
        var entries = try ZipArchive.read(good)
        switch fault {
        case .packageSize:
            var padding = Data([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
            var generator = SystemRandomNumberGenerator()
            padding.append(contentsOf: (0..<5_000_000).map { _ in UInt8.random(in: 0...255, using: &generator) })
            entries.append(ZipArchive.Entry(path: "padding.png", data: padding))
            entries = try resealed(entries)
        case .packageArchive:
            entries.append(ZipArchive.Entry(path: ".DS_Store", data: Data("Bud1".utf8)))
            entries = try resealed(entries)
        case .packageManifest:
            let mug = entries.first { $0.path == "mug.png" }?.data ?? Data()
            entries = entries.map { $0.path == "logo.png" ? ZipArchive.Entry(path: "logo.png", data: mug) : $0 }
        case .packageSignature:
            let manifest = (entries.first { $0.path == "manifest.json" }?.data ?? Data()) + Data(" ".utf8)
            entries = replacing("signature", with: try sign(manifest, by: chain.signer, key: chain.signerKey, chain: [chain.wwdr]), in: entries)
        case .packageSigner:
            entries = try resealed(entries, by: chain.otherSigner, key: chain.otherSignerKey, chain: [chain.wwdr])
        case .packageChain:
            let stranger = DevelopmentKeys.shared.chain
            entries = try resealed(entries, by: stranger.orderTypeCertificate, key: stranger.orderTypeKey, chain: [stranger.wwdr])
        case .packageOrder:
            order.removeValue(forKey: "merchant")
            entries = try resealed(replacing("order.json", with: OrderDocument(fields: order).serialized, in: entries))
        case .packageIdentifiers:
            order["orderIdentifier"] = .string("A-9999")
            entries = try resealed(replacing("order.json", with: OrderDocument(fields: order).serialized, in: entries))
        case .packageWebService:
            order["authenticationToken"] = .string("another-token-of-thirty-two-chars")
            entries = try resealed(replacing("order.json", with: OrderDocument(fields: order).serialized, in: entries))
        default:
            return good
        }
        return try ZipArchive.write(entries, modified: Date())
    }

    private func replacing(_ path: String, with data: Data, in entries: [ZipArchive.Entry]) -> [ZipArchive.Entry] {
        entries.map { $0.path == path ? ZipArchive.Entry(path: path, data: data) : $0 }
    }

    /// `entries` with a manifest of their files and a signature over it made anew, by the service's signer unless
    /// another is given.
    private func resealed(
        _ entries: [ZipArchive.Entry],
        by certificate: Certificate? = nil,
        key: PrivateKey? = nil,
        chain extra: [Certificate]? = nil
    ) throws -> [ZipArchive.Entry] {
        let files = entries.filter { $0.path != "manifest.json" && $0.path != "signature" }
        let manifest = JSONValue.object(
            Dictionary(uniqueKeysWithValues: files.map { ($0.path, JSONValue.string(DigestAlgorithm.sha256.hexDigest($0.data))) })
        ).serialized()
        let signature = try sign(manifest, by: certificate ?? chain.signer, key: key ?? chain.signerKey, chain: extra ?? [chain.wwdr])
        return files + [
            ZipArchive.Entry(path: "manifest.json", data: manifest), ZipArchive.Entry(path: "signature", data: signature),
        ]
    }

    private func sign(_ manifest: Data, by certificate: Certificate, key: PrivateKey, chain: [Certificate]) throws -> Data {
        try CMSSignature.sign(manifest, certificate: certificate, key: key, chain: chain, signingTime: Date())
    }
}
