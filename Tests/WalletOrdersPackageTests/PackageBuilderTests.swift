import Foundation
import Testing
import WalletOrdersCrypto
import WalletOrdersModel
import WalletOrdersPackage
import WalletOrdersTesting

@Suite(.timeLimit(.minutes(5))) struct PackageBuilderTests {
    let keys = DevelopmentKeys.shared
    let signingTime = Date(timeIntervalSince1970: 1_795_342_530)

    private func template() throws -> OrderTemplate {
        try OrderTemplate(directory: SampleOrder.templateFolder)
    }

    private func build(
        _ order: OrderDocument = SampleOrder.document(),
        digest: DigestAlgorithm = .sha256,
        assets: [String: Data] = [:]
    ) throws -> Data {
        try PackageBuilder(identity: keys.identity, digest: digest)
            .build(order: order, template: template(), assets: assets, signingTime: signingTime)
    }

    /// Unzips with the `unzip` command, not our own reader.
    private func unzip(_ package: Data) async throws -> TemporaryDirectory {
        let folder = try TemporaryDirectory("unzipped")
        let path = try folder.write("package.order", package)
        let result = try await Command.run("unzip", ["-q", path, "-d", folder.path("files")])
        #expect(result.status == 0, "\(result.error)")
        return folder
    }

    @Test func sampleTemplatePackageVerifiesWithOpenSSLAndItsDigests() async throws {
        let folder = try await unzip(try build())
        let files = folder.path("files")
        let listed = try await Command.run("unzip", ["-Z1", folder.path("package.order")]).output
            .split(separator: "\n").map(String.init)
        #expect(
            listed == [
                "order.json", "en.lproj/order.strings", "fr.lproj/order.strings", "logo.png", "logo@2x.png", "logo@3x.png",
                "mug.png", "manifest.json", "signature",
            ]
        )

        let verified = try await Command.run(
            "openssl",
            [
                "cms", "-verify", "-binary", "-inform", "DER", "-in", "\(files)/signature", "-content",
                "\(files)/manifest.json", "-CAfile", keys.rootPath, "-purpose", "any", "-out", "/dev/null",
            ]
        )
        #expect(verified.status == 0, "\(verified.error)")

        let manifest = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: "\(files)/manifest.json"))).objectValue!
        #expect(Set(manifest.keys) == Set(listed).subtracting(["manifest.json", "signature"]))
        for (path, digest) in manifest {
            let sum = try await Command.run("sha256sum", ["\(files)/\(path)"]).output.prefix(64)
            #expect(digest.stringValue == String(sum), "\(path)")
        }
    }

    @Test func orderJSONCarriesTemplateDefaultsAndOrderFields() async throws {
        let folder = try await unzip(try build())
        let order = try OrderDocument(data: Data(contentsOf: URL(fileURLWithPath: folder.path("files/order.json"))))
        #expect(order["merchant"]?["merchantIdentifier"] == .string("merchant.com.example.shop"))
        #expect(order["orderIdentifier"] == .string("A-1001"))
        #expect(order.problems(files: ["logo.png", "mug.png"]) == [])
    }

    @Test func sha1ManifestsCanBeChosen() async throws {
        let package = try build(digest: .sha1)
        let report = PackageVerifier.verify(package, trustedRoots: [keys.chain.root])
        #expect(report.problems == [])
        #expect(report.digest == .sha1)
        let folder = try await unzip(package)
        let manifest = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: folder.path("files/manifest.json"))))
        let sum = try await Command.run("sha1sum", [folder.path("files/logo.png")]).output.prefix(40)
        #expect(manifest["logo.png"] == .string(String(sum)))
    }

    @Test func sameOrderAndTimeGiveTheSameBytes() throws {
        #expect(try build() == build())
        let later = try PackageBuilder(identity: keys.identity).build(
            order: SampleOrder.document(),
            template: template(),
            signingTime: signingTime.addingTimeInterval(2)
        )
        #expect(try build() != later)
    }

    @Test func aSealAssemblesThePackageAgainUntilSomethingItSignedChanges() throws {
        let png = try Data(contentsOf: SampleOrder.templateFolder.appendingPathComponent("mug.png"))
        var order = SampleOrder.document()
        order["lineItems"] = .array([.object(["title": .string("Mug"), "quantity": .int(1), "image": .string("custom.png")])])
        let assets = ["custom.png": png]
        let template = try template()
        let builder = PackageBuilder(identity: keys.identity)
        let built = try builder.package(order: order, template: template, assets: assets, signingTime: signingTime)
        let seal = try #require(built.seal)
        #expect(built.stored == seal.encoded)
        // 77 bytes and the RSA-2048 signature value, whatever the size of the template's and the order's files.
        #expect(built.stored.count == 77 + 256)
        #expect(PackageSeal(encoded: built.stored) == seal)
        #expect(PackageSeal(encoded: built.data) == nil, "a whole package is no seal")
        #expect(PackageSeal(encoded: built.stored.prefix(77)) == nil, "a seal without its value")
        #expect(try builder.package(order: order, template: template, assets: assets, seal: seal) == built.data)

        var renumbered = order
        renumbered["orderNumber"] = .string("N-2")
        #expect(try builder.package(order: renumbered, template: template, assets: assets, seal: seal) == nil)
        #expect(try builder.package(order: order, template: template, assets: ["custom.png": png + [0]], seal: seal) == nil)
        var files = template.files
        files["en.lproj/order.strings"] = Data(#""MERCHANT_NAME" = "Another Shop";"#.utf8)
        files["fr.lproj/order.strings"] = Data(#""MERCHANT_NAME" = "Une autre boutique";"#.utf8)
        let retemplated = OrderTemplate(files: files, defaults: template.defaults)
        #expect(try builder.package(order: order, template: retemplated, assets: assets, seal: seal) == nil)
        let renewed = try DevelopmentKeys(orderType: DevelopmentKeys.orderType, team: "RENEWED01")
        #expect(
            try PackageBuilder(identity: renewed.identity)
                .package(order: order, template: template, assets: assets, seal: seal) == nil
        )
    }

    @Test func verifierAcceptsWhatTheBuilderMakes() throws {
        let report = PackageVerifier.verify(try build(), trustedRoots: [keys.chain.root])
        #expect(report.problems == [])
        #expect(report.chainChecked)
        #expect(report.signingTime == signingTime)
        #expect(report.orderIdentifier == "A-1001")
        #expect(report.signer?.contains("UID=\(DevelopmentKeys.orderType)") == true)
    }

    @Test func invalidOrdersAreRefusedWithEveryProblem() throws {
        var order = SampleOrder.document()
        order["status"] = .string("lost")
        order["lineItems"] = .array([.object(["title": .string("Mug"), "quantity": .int(1), "image": .string("cup.png")])])
        order["createdAt"] = nil
        let error = #expect(throws: PackageError.self) { try build(order) }
        guard case .invalidOrder(let problems) = error else {
            Issue.record("expected invalidOrder, got \(String(describing: error))")
            return
        }
        #expect(Set(problems.map(\.path)) == ["status", "lineItems[0].image", "createdAt"])
        #expect(problems.contains(OrderProblem(path: "lineItems[0].image", message: "names cup.png, which is not in the package")))
    }

    @Test func anOrderOfAnotherTypeThanTheCertificateIsRefused() throws {
        let error = #expect(throws: PackageError.self) {
            try build(SampleOrder.document(orderTypeIdentifier: "order.com.example.other"))
        }
        #expect(
            error
                == .invalidOrder([
                    OrderProblem(
                        path: "orderTypeIdentifier",
                        message: "\"order.com.example.other\" does not match the signing certificate, which is for order.com.example.dev"
                    )
                ])
        )
    }

    @Test func perOrderAssetsAreAddedAndOverrideTheTemplate() throws {
        let png = try Data(contentsOf: SampleOrder.templateFolder.appendingPathComponent("mug.png"))
        var order = SampleOrder.document()
        order["lineItems"] = .array([.object(["title": .string("Mug"), "quantity": .int(1), "image": .string("custom.png")])])
        let package = try build(order, assets: ["custom.png": png, "logo.png": png])
        let report = PackageVerifier.verify(package, trustedRoots: [keys.chain.root])
        #expect(report.problems == [])
        #expect(report.files.contains("custom.png"))
        let logo = try ZipArchive.read(package).first { $0.path == "logo.png" }
        #expect(logo?.data == png)
    }

    @Test func assetPathsAndTypesAreChecked() throws {
        let png = Data([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0])
        for path in ["../escape.png", "/etc/passwd.png", "en.lproj/../../x.png", ".DS_Store", "run.sh", "order.json"] {
            let error = #expect(throws: PackageError.self, "\(path)") { try build(assets: [path: png]) }
            guard case .invalidAsset(let named, _) = error else {
                Issue.record("expected invalidAsset for \(path), got \(String(describing: error))")
                continue
            }
            #expect(named == path)
        }
        let notPNG = #expect(throws: PackageError.self) { try build(assets: ["fake.png": Data("GIF89a".utf8)]) }
        #expect(notPNG == .invalidAsset(path: "fake.png", problem: "is not a PNG image"))
    }

    // Apple's file systems tell neither letter case nor Unicode normalization apart: A.png beside a.png unpacks
    // to one file, and which one Wallet reads is anyone's guess.
    @Test func assetsThatCollideOnApplesFileSystemsAreRefusedNamingTheOtherFile() throws {
        let png = try Data(contentsOf: SampleOrder.templateFolder.appendingPathComponent("mug.png"))
        func refusal(_ assets: [String: Data], template other: OrderTemplate? = nil) throws -> PackageError? {
            let builder = PackageBuilder(identity: keys.identity)
            let template = try other ?? self.template()
            let validated = #expect(throws: PackageError.self) {
                try builder.validate(order: SampleOrder.document(), template: template, assets: assets)
            }
            let built = #expect(throws: PackageError.self) {
                try builder.build(order: SampleOrder.document(), template: template, assets: assets, signingTime: signingTime)
            }
            #expect(validated == built)
            return built
        }
        #expect(
            try refusal(["A.png": png, "a.png": png])
                == .invalidAsset(path: "a.png", problem: "collides with A.png on case-insensitive file systems, such as Apple's")
        )
        #expect(
            try refusal(["Logo.png": png])
                == .invalidAsset(
                    path: "Logo.png",
                    problem: "collides with the template's logo.png on case-insensitive file systems, such as Apple's"
                )
        )
        #expect(
            try refusal(["EN.lproj/order.strings": Data(#""MERCHANT_NAME" = "Shop";"#.utf8)])
                == .invalidAsset(
                    path: "EN.lproj/order.strings",
                    problem: "collides with the template's en.lproj/order.strings on case-insensitive file systems, such as Apple's"
                )
        )
        // A template holding é.png as one scalar (NFC), an asset spelling it e and an accent (NFD).
        let template = OrderTemplate(files: ["logo.png": png, "caf\u{E9}.png": png], defaults: try self.template().defaults)
        #expect(
            try refusal(["cafe\u{301}.png": png], template: template)
                == .invalidAsset(
                    path: "cafe\u{301}.png",
                    problem: "collides with the template's café.png, the same name in another Unicode normalization form "
                        + "(NFC, NFD), which Apple's file systems do not tell apart"
                )
        )
        // The same path exactly replaces the template's file, as before.
        let replaced = try build(assets: ["logo.png": png])
        #expect(try ZipArchive.read(replaced).first { $0.path == "logo.png" }?.data == png)
    }

    @Test func packagesOfFiveMegabytesOrMoreAreRefused() throws {
        // Random bytes do not compress, so the package grows with the asset.
        var big = Data([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
        var generator = SystemRandomNumberGenerator()
        big.append(contentsOf: (0..<5_100_000).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let error = #expect(throws: PackageError.self) { try build(assets: ["huge.png": big]) }
        guard case .tooLarge(let bytes, let limit)? = error else {
            Issue.record("expected tooLarge, got \(String(describing: error))")
            return
        }
        #expect(bytes > limit)
        #expect(limit == 5_000_000)
    }

    /// `count` small PNG files, `f0.png` and on.
    private func pngs(_ count: Int) -> [String: Data] {
        let png = Data([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0])
        return Dictionary(uniqueKeysWithValues: (0..<count).map { ("f\($0).png", png + [UInt8($0 % 256)]) })
    }

    // The merchant API signed packages of 3,009 files that `verify` refuses: the builder keeps its limits.
    @Test func anOrderWithMoreFilesThanVerifyReadsIsRefusedBeforeAnythingIsCompressed() throws {
        let builder = PackageBuilder(identity: keys.identity)
        let template = try template()
        let expected = OrderProblem(
            path: "assets",
            message: "would make a package of 1010 files (order.json, manifest.json, signature and the template's 6 "
                + "among them); a package may hold at most 1000, the most verify reads"
        )
        let clock = ContinuousClock()
        let start = clock.now
        let error = #expect(throws: PackageError.self) {
            try builder.build(order: SampleOrder.document(), template: template, assets: pngs(1_001), signingTime: signingTime)
        }
        #expect(clock.now - start < .seconds(2))
        #expect(error == .invalidOrder([expected]))
        #expect(try builder.validate(order: SampleOrder.document(), template: template, assets: pngs(1_001)).problems == [expected])
    }

    @Test func aPackageOfAsManyFilesAsVerifyReadsIsBuiltAndVerifies() throws {
        // The sample template's 6 files, order.json, manifest.json and signature: 991 assets make 1,000 entries.
        let limit = ZipArchive.ReadingLimits.package.maxEntries
        #expect(PackageBuilder.limits == .package)
        let package = try build(assets: pngs(limit - 9))
        let report = PackageVerifier.verify(package, trustedRoots: [keys.chain.root])
        #expect(report.problems == [])
        #expect(report.files.count == limit)
        let error = #expect(throws: PackageError.self) { try build(assets: pngs(limit - 8)) }
        guard case .invalidOrder(let problems)? = error else {
            Issue.record("expected invalidOrder, got \(String(describing: error))")
            return
        }
        #expect(problems.map(\.path) == ["assets"])
    }

    @Test func filesLargerThanVerifyReadsAreRefusedBeforeCompressingAndSigning() throws {
        let header = Data([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
        // One file past 8 MiB.
        let big = header + Data(count: 8 << 20 - header.count + 1)
        let one = #expect(throws: PackageError.self) { try build(assets: ["big.png": big]) }
        #expect(
            one
                == .invalidAsset(
                    path: "big.png",
                    problem: "is 8388609 bytes; a file in a package may have at most 8388608 (8 MiB), the most verify reads"
                )
        )
        // Three files of 6 MiB: past the 16 MiB of a whole package.
        let six = header + Data(count: 6 << 20)
        let total = #expect(throws: PackageError.self) {
            try build(assets: ["a.png": six, "b.png": six, "c.png": six])
        }
        guard case .invalidOrder(let problems)? = total, let problem = problems.first else {
            Issue.record("expected invalidOrder, got \(String(describing: total))")
            return
        }
        #expect(problems.count == 1)
        #expect(problem.path == "assets")
        #expect(problem.message.hasSuffix("a package may hold at most 16777216 (16 MiB), the most verify reads"))
    }

    // verify takes a file of more than 1 MiB that inflates more than 100 times for a zip bomb.
    @Test func aFileThatCompressesLikeAZipBombIsRefusedBeforeSigning() throws {
        let header = Data([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
        let flat = header + Data(count: 2 << 20)
        let error = #expect(throws: PackageError.self) { try build(assets: ["flat.png": flat]) }
        guard case .invalidAsset(let path, let problem)? = error else {
            Issue.record("expected invalidAsset, got \(String(describing: error))")
            return
        }
        #expect(path == "flat.png")
        #expect(problem.contains("more than 100 to 1"), "\(problem)")

        // The same bytes in an archive verify reads: refused there too, so the builder refuses no more than it must.
        let archive = try ZipArchive.write([ZipArchive.Entry(path: "flat.png", data: flat)], modified: signingTime)
        #expect(ZipArchive.inspect(archive).problems.first?.contains("zip bomb") == true)

        // Two MiB that do not compress are no bomb, and the package verifies.
        var generator = SystemRandomNumberGenerator()
        let noise = header + Data((0..<(2 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let package = try build(assets: ["noise.png": noise])
        #expect(PackageVerifier.verify(package, trustedRoots: [keys.chain.root]).problems == [])
    }

    // Issue 11, points 1 to 4: the order of Apple's "Creating the source for an order" packages as written.
    @Test func applesDocumentedFormPackagesWithBaseNameImagesAndItsAmountsSignedAsWritten() async throws {
        let order = try OrderDocument(
            data: Data(
                contentsOf: SampleOrder.fixturesFolder
                    .appendingPathComponent("valid/apple-documented.json")
            )
        )
        let png = try Data(contentsOf: SampleOrder.templateFolder.appendingPathComponent("mug.png"))
        let jpeg = Data([0xff, 0xd8, 0xff, 0xe0, 0, 0x10])
        let package = try build(order, assets: ["beans@2x.png": png, "filters.jpeg": jpeg])
        let report = PackageVerifier.verify(package, trustedRoots: [keys.chain.root])
        #expect(report.problems == [])
        #expect(
            report.warnings.contains(
                "order.json orderManagementURL: is plain http; https keeps the customer's connection private"
            )
        )

        let folder = try await unzip(package)
        let text = try String(contentsOfFile: folder.path("files/order.json"), encoding: .utf8)
        #expect(text.contains(#""amount": "23.40""#))
        #expect(text.contains(#""amount": "15.60""#))
        #expect(text.contains(#""quantity": 1.5"#))
        #expect(text.contains(#""logo": "logo""#))
        #expect(text.contains(#""launchURL": "myapp://orders/88""#))
    }

    @Test func aBaseNameWithNoImageIsRefusedAtItsPath() throws {
        var order = SampleOrder.document()
        order["lineItems"] = .array([.object(["title": .string("Beans"), "quantity": .double(1.5), "image": .string("beans")])])
        let error = #expect(throws: PackageError.self) { try build(order) }
        #expect(
            error
                == .invalidOrder([
                    OrderProblem(
                        path: "lineItems[0].image",
                        message: "names the image beans, but the package holds none of beans.png, beans@2x.png, beans@3x.png "
                            + "(or .jpg, .jpeg), at the top level or in a .lproj folder"
                    )
                ])
        )
    }

    // Issue 11, point 7: localizations that disagree never reach Wallet.
    @Test func disagreeingLocalizationsAreRefusedNamingTheFileAndTheKey() throws {
        let png = try Data(contentsOf: SampleOrder.templateFolder.appendingPathComponent("mug.png"))
        let german = Data(#""MERCHANT_NAME" = "Beispielladen"; "ITEM_MUG" = "Becher";"#.utf8)
        let error = #expect(throws: PackageError.self) {
            try build(assets: ["de.lproj/order.strings": german, "de.lproj/banner.png": png])
        }
        #expect(
            error
                == .invalidOrder([
                    OrderProblem(
                        path: "de.lproj/order.strings",
                        message: "lacks the key \"STATUS_DELIVERED\", which en.lproj/order.strings has"
                    ),
                    OrderProblem(
                        path: "de.lproj/order.strings",
                        message: "lacks the key \"STATUS_PROCESSING\", which en.lproj/order.strings has"
                    ),
                    OrderProblem(
                        path: "de.lproj/order.strings",
                        message: "lacks the key \"STATUS_SHIPPED\", which en.lproj/order.strings has"
                    ),
                    OrderProblem(
                        path: "en.lproj/banner.png",
                        message: "is missing: de.lproj/banner.png is localized, so "
                            + "every .lproj folder needs its own (or put one at the top level)"
                    ),
                    OrderProblem(
                        path: "fr.lproj/banner.png",
                        message: "is missing: de.lproj/banner.png is localized, so "
                            + "every .lproj folder needs its own (or put one at the top level)"
                    ),
                ])
        )
        let malformed = #expect(throws: PackageError.self) {
            try build(assets: ["fr.lproj/order.strings": Data("\"MERCHANT_NAME\" = \"Boutique;\n".utf8)])
        }
        #expect(
            malformed
                == .invalidOrder([
                    OrderProblem(
                        path: "fr.lproj/order.strings",
                        message: "cannot be read: line 1: the string that starts here is never closed with \""
                    )
                ])
        )
    }

    @Test func validateRunsTheChecksOfBuildAndGivesTheWarnings() throws {
        let builder = PackageBuilder(identity: keys.identity)
        var order = SampleOrder.document()
        order["returns"] = .array([.object(["returnIdentifier": .string("R-1"), "status": .string("open")])])
        let validation = try builder.validate(order: order, template: template())
        #expect(validation.problems == [])
        #expect(
            validation.warnings == [
                OrderProblem(
                    path: "returns",
                    message: "Return needs iOS 17.2 or macOS 14.2; Wallet on older devices shows the order without it"
                )
            ]
        )
        let other = try builder.validate(
            order: SampleOrder.document(orderTypeIdentifier: "order.com.example.other"),
            template: template(),
            assets: ["de.lproj/order.strings": Data(#""A" = "a";"#.utf8)]
        )
        #expect(
            other.problems.map(\.path) == ["orderTypeIdentifier"] + Array(repeating: "de.lproj/order.strings", count: 5)
                + ["en.lproj/order.strings", "fr.lproj/order.strings"]
        )
    }

    @Test func aTemplateWhoseLocalizationsDisagreeIsRefusedWhenRead() throws {
        let folder = try TemporaryDirectory("template")
        try folder.write("en.lproj/order.strings", Data(#""A" = "a"; "B" = "b";"#.utf8))
        try folder.write("fr.lproj/order.strings", Data(#""A" = "a";"#.utf8))
        let error = #expect(throws: PackageError.self) { try OrderTemplate(directory: folder.url) }
        #expect("\(error!)".contains("fr.lproj/order.strings: lacks the key \"B\", which en.lproj/order.strings has"))
    }

    @Test func strayFilesInTheTemplateFolderAreRefused() throws {
        let folder = try TemporaryDirectory("template")
        try folder.write("logo.png", Data([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
        try folder.write(".DS_Store", Data("junk".utf8))
        let template = try OrderTemplate(directory: folder.url)
        #expect(Array(template.files.keys) == ["logo.png"])
        try folder.write("notes.txt", Data("hello".utf8))
        let error = #expect(throws: PackageError.self) { try OrderTemplate(directory: folder.url) }
        #expect("\(error!)".contains("notes.txt"))
    }
}
