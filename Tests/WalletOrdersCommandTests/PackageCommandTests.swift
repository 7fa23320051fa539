import Foundation
import Testing
import WalletOrdersModel
import WalletOrdersTesting

/// Drives the built `wallet-orders` binary the way the README tells a user to.
@Suite(.timeLimit(.minutes(10))) struct PackageCommandTests {
    let binary = Command.walletOrdersBinary

    private func developmentKeys(_ folder: TemporaryDirectory) async throws -> [String: String] {
        try await makeDevelopmentKeys(in: folder)
    }

    @Test func keysPackageAndVerifyWorkTogether() async throws {
        let folder = try TemporaryDirectory("cli")
        let environment = try await developmentKeys(folder)
        #expect(environment["WALLET_ORDERS_SIGNING_KEY"] == folder.path("keys/order-type.key"))
        let keyMode = try FileManager.default.attributesOfItem(atPath: folder.path("keys/order-type.key"))[.posixPermissions] as? Int
        #expect(keyMode == 0o600)

        try folder.write("order.json", SampleOrder.json().serialized(pretty: true))
        let packaged = try await Command.run(
            binary,
            [
                "package", folder.path("order.json"), "--template", SampleOrder.templateFolder.path,
                "--out", folder.path("a.order"),
            ],
            environment: environment
        )
        #expect(packaged.status == 0, "\(packaged.error)")

        let verified = try await Command.run(binary, ["verify", folder.path("a.order"), "--ca", folder.path("keys/root-ca.pem")])
        #expect(verified.status == 0, "\(verified.output)")
        #expect(verified.output.contains("OK: the package is valid and chains to the trusted root."))

        let cms = try await Command.verifySignature(
            ofPackage: Data(contentsOf: URL(fileURLWithPath: folder.path("a.order"))),
            rootPath: folder.path("keys/root-ca.pem")
        )
        #expect(cms.status == 0, "\(cms.error)")
    }

    @Test func verifyExitsNonZeroAndListsProblemsForATamperedPackage() async throws {
        let folder = try TemporaryDirectory("cli")
        let environment = try await developmentKeys(folder)
        try folder.write("order.json", SampleOrder.json().serialized())
        _ = try await Command.run(
            binary,
            [
                "package", folder.path("order.json"), "--template", SampleOrder.templateFolder.path,
                "--out", folder.path("a.order"),
            ],
            environment: environment
        )
        // Replace order.json inside the zip with the `zip` command, as someone editing a package by hand would.
        _ = try await Command.run("unzip", ["-q", folder.path("a.order"), "-d", folder.path("files")])
        try folder.write("files/order.json", Data(#"{"schemaVersion": 1}"#.utf8))
        let zipped = try await Command.run("zip", ["-q", folder.path("a.order"), "order.json"], directory: folder.path("files"))
        #expect(zipped.status == 0, "\(zipped.error)")

        let verified = try await Command.run(binary, ["verify", folder.path("a.order")])
        #expect(verified.status == 1)
        #expect(verified.output.contains("INVALID"))
        #expect(verified.output.contains("order.json does not match its digest in manifest.json"))
        #expect(verified.output.contains("order.json orderIdentifier: is required"))
    }

    @Test func packageReportsEveryProblemOfAnInvalidOrder() async throws {
        let folder = try TemporaryDirectory("cli")
        let environment = try await developmentKeys(folder)
        var order = SampleOrder.json().objectValue!
        order["status"] = .string("lost")
        order["orderManagementURL"] = .string("ftp://example.com")
        try folder.write("order.json", JSONValue.object(order).serialized())
        let packaged = try await Command.run(
            binary,
            [
                "package", folder.path("order.json"), "--template", SampleOrder.templateFolder.path,
                "--out", folder.path("a.order"),
            ],
            environment: environment
        )
        #expect(packaged.status != 0)
        #expect(packaged.error.contains("status: \"lost\" is not one of open, completed, cancelled"))
        #expect(
            packaged.error.contains(
                "orderManagementURL: \"ftp://example.com\" is not an http or https URL such as https://shop.example.com/orders/1001"
            )
        )
        #expect(!FileManager.default.fileExists(atPath: folder.path("a.order")))
    }

    @Test func verifyPrintsWarningsAndLocalizationProblems() async throws {
        let folder = try TemporaryDirectory("cli")
        let environment = try await developmentKeys(folder)
        var order = SampleOrder.json().objectValue!
        order["returns"] = .array([.object(["returnIdentifier": .string("R-1"), "status": .string("open")])])
        try folder.write("order.json", JSONValue.object(order).serialized())
        let packaged = try await Command.run(
            binary,
            [
                "package", folder.path("order.json"), "--template", SampleOrder.templateFolder.path,
                "--out", folder.path("a.order"),
            ],
            environment: environment
        )
        #expect(packaged.status == 0, "\(packaged.error)")
        let warning =
            "warning: order.json returns: Return needs iOS 17.2 or macOS 14.2; Wallet on older devices shows "
            + "the order without it"
        #expect(packaged.output.contains("warning: returns: Return needs iOS 17.2"))

        let verified = try await Command.run(binary, ["verify", folder.path("a.order")])
        #expect(verified.status == 0, "\(verified.output)")
        #expect(verified.output.contains(warning))

        // Drop a key from the French strings, as a hand edit of the package would.
        _ = try await Command.run("unzip", ["-q", folder.path("a.order"), "-d", folder.path("files")])
        try folder.write("files/fr.lproj/order.strings", Data(#""MERCHANT_NAME" = "Boutique Exemple";"#.utf8))
        _ = try await Command.run("zip", ["-q", folder.path("a.order"), "fr.lproj/order.strings"], directory: folder.path("files"))
        let broken = try await Command.run(binary, ["verify", folder.path("a.order")])
        #expect(broken.status == 1)
        #expect(broken.output.contains(warning))
        #expect(
            broken.output.contains(
                "fr.lproj/order.strings: lacks the key \"STATUS_SHIPPED\", which en.lproj/order.strings has"
            )
        )
    }

    @Test func verifyRefusesAZipBombInBoundedMemory() async throws {
        // A gibibyte of zeros deflated to a megabyte, its headers claiming 10 bytes: only counting can stop it.
        let folder = try TemporaryDirectory("cli-bomb")
        let make = #"""
            import struct, sys, zlib
            c = zlib.compressobj(9, zlib.DEFLATED, -15)
            data = b''.join(c.compress(bytes(1 << 20)) for _ in range(1024)) + c.flush()
            name = b'order.json'
            local = struct.pack('<IHHHHHIIIHH', 0x04034b50, 20, 0, 8, 0, 0x21, 0, len(data), 10, len(name), 0) + name
            central = struct.pack('<IHHHHHHIIIHHHHHII', 0x02014b50, 3 << 8 | 20, 20, 0, 8, 0, 0x21, 0, len(data), 10,
                                  len(name), 0, 0, 0, 0, 0o100644 << 16, 0) + name
            end = struct.pack('<IHHHHIIH', 0x06054b50, 0, 0, 1, 1, len(central), len(local) + len(data), 0)
            open(sys.argv[1], 'wb').write(local + data + central + end)
            """#
        #expect(try await Command.run("python3", ["-c", make, folder.path("bomb.order")]).status == 0)
        // The peak resident set of the verify process, as the kernel measured it, in KiB.
        let measure = """
            import resource, subprocess, sys
            run = subprocess.run(sys.argv[1:], capture_output=True, text=True)
            print(run.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
            print(run.stdout, end='')
            """
        let result = try await Command.run("python3", ["-c", measure, binary, "verify", folder.path("bomb.order")])
        let lines = result.output.split(separator: "\n").map(String.init)
        let figures = lines.first?.split(separator: " ").compactMap { Int($0) } ?? []
        #expect(figures.first == 1, "\(result.output)\(result.error)")
        #expect(
            lines.dropFirst() == [
                "\(folder.path("bomb.order")): 0 files, \(try Data(contentsOf: URL(fileURLWithPath: folder.path("bomb.order"))).count) bytes",
                "INVALID: 1 problem:",
                "  - order.json inflates to more than 8388608 bytes, the most a file in a package may have",
            ]
        )
        // The process and its libraries take some tens of MiB; inflating the bomb would add a GiB.
        #expect((figures.last ?? .max) < 128 << 10, "peak resident set \(figures.last ?? -1) KiB")
    }

    @Test func packageRefusesATemplateWhoseLocalizationsDisagree() async throws {
        let folder = try TemporaryDirectory("cli")
        let environment = try await developmentKeys(folder)
        try folder.write("order.json", SampleOrder.json().serialized())
        for file in ["logo.png", "logo@2x.png", "mug.png", "en.lproj/order.strings"] {
            try folder.write("template/\(file)", Data(contentsOf: SampleOrder.templateFolder.appendingPathComponent(file)))
        }
        try folder.write("template/fr.lproj/order.strings", Data("\"MERCHANT_NAME\" = \"Boutique\"".utf8))
        let packaged = try await Command.run(
            binary,
            [
                "package", folder.path("order.json"), "--template", folder.path("template"), "--out", folder.path("a.order"),
            ],
            environment: environment
        )
        #expect(packaged.status != 0)
        #expect(packaged.error.contains("fr.lproj/order.strings: cannot be read: line 1: the file ends in the middle of an entry"))
        #expect(!FileManager.default.fileExists(atPath: folder.path("a.order")))
    }

    @Test func anEncryptedKeyNeedsThePasswordFromTheEnvironment() async throws {
        let folder = try TemporaryDirectory("cli")
        var environment = try await developmentKeys(folder)
        let encrypted = folder.path("keys/encrypted.key")
        _ = try await Command.run(
            "openssl",
            [
                "pkey", "-in", folder.path("keys/order-type.key"), "-aes256", "-passout", "env:PW", "-out", encrypted,
            ],
            environment: ["PW": "let me in"]
        )
        environment["WALLET_ORDERS_SIGNING_KEY"] = encrypted
        try folder.write("order.json", SampleOrder.json().serialized())
        let arguments = [
            "package", folder.path("order.json"), "--template", SampleOrder.templateFolder.path,
            "--out", folder.path("a.order"),
        ]
        let refused = try await Command.run(binary, arguments, environment: environment)
        #expect(refused.status != 0)
        #expect(refused.error.contains("\(encrypted): reading the private key: it is encrypted and no password was given"))
        environment["WALLET_ORDERS_SIGNING_KEY_PASSWORD"] = "let me in"
        let accepted = try await Command.run(binary, arguments, environment: environment)
        #expect(accepted.status == 0, "\(accepted.error)")
        #expect(!accepted.output.contains("let me in") && !accepted.error.contains("let me in"))
    }

    @Test func keysDevDoesNotOverwriteWithoutForce() async throws {
        let folder = try TemporaryDirectory("cli")
        _ = try await developmentKeys(folder)
        let again = try await Command.run(binary, ["keys", "dev", "--out", folder.path("keys")])
        #expect(again.status != 0)
        #expect(again.error.contains("pass --force"))
        let forced = try await Command.run(binary, ["keys", "dev", "--out", folder.path("keys"), "--force"])
        #expect(forced.status == 0)
    }
}
