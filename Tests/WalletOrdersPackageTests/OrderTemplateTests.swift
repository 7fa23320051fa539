import Foundation
import Testing
import WalletOrdersCrypto
import WalletOrdersModel
import WalletOrdersTesting

@testable import WalletOrdersPackage

@Suite(.timeLimit(.minutes(5))) struct OrderTemplateTests {
    let keys = DevelopmentKeys.shared
    let signingTime = Date(timeIntervalSince1970: 1_795_342_530)

    private func template() throws -> OrderTemplate {
        try OrderTemplate(directory: SampleOrder.templateFolder)
    }

    private func entries(_ package: Data) throws -> [String: Data] {
        Dictionary(uniqueKeysWithValues: try ZipArchive.read(package).map { ($0.path, $0.data) })
    }

    private func manifest(_ package: Data) throws -> [String: JSONValue] {
        try JSONValue.parse(try entries(package)["manifest.json"]!).objectValue!
    }

    @Test func filesCompressedAndHashedAtLoadAreWhatCompressingAndHashingAfreshGives() throws {
        let template = try template()
        #expect(Set(template.packaged.keys) == Set(template.files.keys))
        for (path, data) in template.files {
            let file = try #require(template.packaged[path])
            #expect(file.data == data)
            #expect(file.body == ZipWriter.Body(compressing: data, effort: .best), "\(path)")
            for algorithm in DigestAlgorithm.allCases {
                #expect(file.digest(algorithm) == algorithm.hexDigest(data), "\(path) \(algorithm)")
            }
        }
    }

    @Test func aTemplateLoadedTwiceGivesTheSamePackageBytes() throws {
        let builder = PackageBuilder(identity: keys.identity)
        let first = try builder.build(order: SampleOrder.document(), template: template(), signingTime: signingTime)
        let second = try builder.build(order: SampleOrder.document(), template: template(), signingTime: signingTime)
        #expect(first == second)
        let inMemory = try template()
        let third = try builder.build(
            order: SampleOrder.document(),
            template: OrderTemplate(files: inMemory.files, defaults: inMemory.defaults),
            signingTime: signingTime
        )
        #expect(first == third)
    }

    @Test func anAssetWithATemplateFilesNameIsPackagedWithItsOwnBytesAndDigest() throws {
        let template = try template()
        let builder = PackageBuilder(identity: keys.identity)
        let logo = template.files["logo.png"]!
        for changed in [logo + Data([0]), template.files["mug.png"]!, logo] {
            let package = try builder.build(
                order: SampleOrder.document(),
                template: template,
                assets: ["logo.png": changed],
                signingTime: signingTime
            )
            #expect(try entries(package)["logo.png"] == changed)
            #expect(try manifest(package)["logo.png"] == .string(DigestAlgorithm.sha256.hexDigest(changed)))
            let report = PackageVerifier.verify(package, trustedRoots: [keys.chain.root])
            #expect(report.problems == [])
        }
        // The template itself is untouched by what the assets replaced.
        let plain = try builder.build(order: SampleOrder.document(), template: template, signingTime: signingTime)
        #expect(try entries(plain)["logo.png"] == logo)
    }

    @Test func theSignatureInAPackageIsWhatOpenSSLsCMSSignWritesForItsManifest() throws {
        let package = try PackageBuilder(identity: keys.identity)
            .build(order: SampleOrder.document(), template: template(), signingTime: signingTime)
        let files = try entries(package)
        let expected = try CMSSignature.sign(
            files["manifest.json"]!,
            certificate: keys.chain.orderTypeCertificate,
            key: keys.chain.orderTypeKey,
            chain: [keys.chain.wwdr],
            signingTime: signingTime
        )
        #expect(files["signature"] == expected)
    }

    @Test func everyPackageEntryPassesUnzipsTest() async throws {
        let png = try Data(contentsOf: SampleOrder.templateFolder.appendingPathComponent("mug.png"))
        var order = SampleOrder.document()
        order["lineItems"] = .array([.object(["title": .string("Mug"), "quantity": .int(1), "image": .string("custom.png")])])
        let package = try PackageBuilder(identity: keys.identity)
            .build(order: order, template: template(), assets: ["custom.png": png], signingTime: signingTime)
        let folder = try TemporaryDirectory("package")
        let result = try await Command.run("unzip", ["-t", try folder.write("package.order", package)])
        #expect(result.status == 0, "\(result.output) \(result.error)")
        #expect(result.output.contains("No errors detected"))
    }

    @Test func templateFilesThatCollideOnApplesFileSystemsAreRefused() throws {
        let png = Data([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
        let folder = try TemporaryDirectory("template")
        try folder.write("logo.png", png)
        try folder.write("Logo.png", png)
        let error = #expect(throws: PackageError.self) { try OrderTemplate(directory: folder.url) }
        #expect(
            "\(error!)".hasSuffix("logo.png: collides with Logo.png on case-insensitive file systems, such as Apple's"),
            "\(error!)"
        )

        let problems = OrderTemplate.problems(
            files: ["Mug.png": png, "new.png": png, "NEW.png": png],
            defaults: nil,
            over: try template()
        )
        #expect(
            problems == [
                OrderProblem(
                    path: "files.Mug.png",
                    message: "collides with the underlying template's mug.png on case-insensitive file systems, such as Apple's"
                ),
                OrderProblem(path: "files.new.png", message: "collides with NEW.png on case-insensitive file systems, such as Apple's"),
            ]
        )
    }
}
