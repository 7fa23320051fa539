import Foundation
import Testing
import WalletOrdersCrypto
import WalletOrdersModel
import WalletOrdersPackage
import WalletOrdersTesting

@Suite(.timeLimit(.minutes(5))) struct PackageVerifierTests {
    let keys = DevelopmentKeys.shared

    private func package() throws -> Data {
        try PackageBuilder(identity: keys.identity).build(
            order: SampleOrder.document(),
            template: OrderTemplate(directory: SampleOrder.templateFolder),
            signingTime: Date(timeIntervalSince1970: 1_795_342_530)
        )
    }

    /// The package with one entry's bytes replaced, re-zipped so the archive itself stays well-formed.
    private func tampered(_ path: String, _ change: (Data) -> Data) throws -> Data {
        let entries = try ZipArchive.read(try package()).map { entry in
            entry.path == path ? ZipArchive.Entry(path: path, data: change(entry.data)) : entry
        }
        return try ZipArchive.write(entries, modified: Date(timeIntervalSince1970: 1_795_342_530))
    }

    @Test func aChangedFileNoLongerMatchesTheManifest() throws {
        let report = PackageVerifier.verify(try tampered("logo.png") { $0 + Data([0]) }, trustedRoots: [keys.chain.root])
        #expect(report.problems == ["logo.png does not match its digest in manifest.json"])
    }

    @Test func aChangedManifestBreaksTheSignature() throws {
        // Point the manifest at a changed logo: the digests agree again, but the signature no longer does.
        let logo = try ZipArchive.read(try package()).first { $0.path == "logo.png" }!.data + Data([0])
        var entries = try ZipArchive.read(try tampered("logo.png") { _ in logo })
        let index = entries.firstIndex { $0.path == "manifest.json" }!
        var manifest = try JSONValue.parse(entries[index].data).objectValue!
        manifest["logo.png"] = .string(DigestAlgorithm.sha256.hexDigest(logo))
        entries[index] = ZipArchive.Entry(path: "manifest.json", data: JSONValue.object(manifest).serialized(pretty: true))
        let report = PackageVerifier.verify(try ZipArchive.write(entries, modified: Date()), trustedRoots: [keys.chain.root])
        #expect(report.problems.count == 1)
        #expect(report.problems.first?.hasPrefix("signature: checking the signature: it does not match") == true)
    }

    @Test func aMalformedManifestDigestIsNamed() throws {
        let package = try tampered("manifest.json") { data in
            Data(String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\"mug.png\": \"", with: "\"mug.png\": \"0").utf8)
        }
        let report = PackageVerifier.verify(package)
        #expect(report.digest == .sha256)
        #expect(report.problems.contains("mug.png has a digest in manifest.json that is not SHA-256 or SHA-1 hex"))
        #expect(report.problems.contains { $0.hasPrefix("signature: checking the signature: it does not match") })
    }

    @Test func aChangedSignatureFails() throws {
        let package = try tampered("signature") { data in
            var bytes = [UInt8](data)
            bytes[bytes.count - 10] ^= 0xff
            return Data(bytes)
        }
        let report = PackageVerifier.verify(package, trustedRoots: nil)
        #expect(report.problems.count == 1)
        #expect(report.problems.first?.hasPrefix("signature:") == true)
    }

    @Test func aSignerFromAnotherRootFailsTheChainCheck() throws {
        let stranger = try DevelopmentChain(orderTypeIdentifier: "order.com.example.other", teamIdentifier: "OTHER12345")
        let report = PackageVerifier.verify(try package(), trustedRoots: [stranger.root])
        #expect(report.problems.count == 1)
        #expect(report.problems.first?.contains("does not chain to the trusted root") == true)
    }

    @Test func addedAndMissingFilesAreReported() throws {
        var entries = try ZipArchive.read(try package())
        entries.removeAll { $0.path == "mug.png" }
        entries.append(ZipArchive.Entry(path: ".DS_Store", data: Data("x".utf8)))
        let package = try ZipArchive.write(entries, modified: Date())
        let report = PackageVerifier.verify(package)
        #expect(
            Set(report.problems) == [
                ".DS_Store: hidden files (starting with .) are not allowed",
                "order.json lineItems[0].image: names mug.png, which is not in the package",
                ".DS_Store is not listed in manifest.json",
                "manifest.json lists mug.png, which is not in the package",
            ]
        )
    }

    @Test func localizationsThatDisagreeAreReportedWithFileAndKey() throws {
        let package = try tampered("fr.lproj/order.strings") { data in
            Data(
                String(decoding: data, as: UTF8.self).split(separator: "\n")
                    .filter { !$0.contains("ITEM_MUG") }.joined(separator: "\n").utf8
            )
        }
        let report = PackageVerifier.verify(package, trustedRoots: [keys.chain.root])
        #expect(
            report.problems == [
                "fr.lproj/order.strings: lacks the key \"ITEM_MUG\", which en.lproj/order.strings has",
                "fr.lproj/order.strings does not match its digest in manifest.json",
            ]
        )
    }

    @Test func objectsNewerThanIOS16AreWarningsNotProblems() throws {
        var order = SampleOrder.document()
        order["orderProvider"] = .object([
            "displayName": .string("Platform"), "url": .string("https://platform.example.com"),
            "trackingLogoNameLightColorScheme": .string("logo"), "trackingLogoNameDarkColorScheme": .string("logo@2x.png"),
        ])
        let package = try PackageBuilder(identity: keys.identity).build(
            order: order,
            template: OrderTemplate(directory: SampleOrder.templateFolder),
            signingTime: Date(timeIntervalSince1970: 1_795_342_530)
        )
        let report = PackageVerifier.verify(package, trustedRoots: [keys.chain.root])
        #expect(report.isValid)
        #expect(
            report.warnings == [
                "order.json orderProvider: OrderProvider needs iOS 17.4 or macOS 14.4; Wallet on older devices shows the "
                    + "order without it"
            ]
        )
    }

    @Test func somethingThatIsNotAZipIsReported() {
        let report = PackageVerifier.verify(Data("not a zip".utf8))
        #expect(
            report.problems == [
                "not a zip archive: it has no end-of-central-directory record (a truncated file, or not a zip at all)"
            ]
        )
    }
}
