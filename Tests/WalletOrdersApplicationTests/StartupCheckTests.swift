import Foundation
import Logging
import Testing
import WalletOrdersApplication
import WalletOrdersCrypto
import WalletOrdersTesting

/// The checks `serve` makes before starting (and `doctor` prints), against real certificates and keys.
@Suite(.timeLimit(.minutes(5))) struct StartupCheckTests {
    let keys = DevelopmentKeys.shared
    let folder: TemporaryDirectory

    init() throws { folder = try TemporaryDirectory("checks") }

    /// The development order type, correct in every respect, with token-based APNs.
    func configuration() -> ServiceConfiguration {
        var type = OrderTypeConfiguration(
            identifier: DevelopmentKeys.orderType,
            signingKey: keys.keyPath,
            wwdrCertificate: keys.wwdrPath
        )
        type.signingCertificate = keys.certificatePath
        type.apnsKey = keys.folder.path("apns.p8")
        type.apnsKeyID = keys.chain.apnsKeyID
        type.apnsTeamID = DevelopmentKeys.team
        var configuration = ServiceConfiguration()
        configuration.publicURL = "https://orders.example.com"
        configuration.database = .sqlite(path: folder.path("data/orders.sqlite"))
        configuration.orderTypes = [type]
        configuration.merchantKeys = ["merchant-key-0123456789"]
        return configuration
    }

    func problems(_ configuration: ServiceConfiguration, now: Date = Date()) async -> [String] {
        await ServiceChecks.run(configuration, now: now).problems
    }

    @Test func aSoundConfigurationPassesWithoutWarnings() async {
        let report = await ServiceChecks.run(configuration(), now: Date())
        let findings = report.findings
        #expect(report.orderTypes.map(\.identifier) == [DevelopmentKeys.orderType], "a sound order type is loaded")
        #expect(findings.allSatisfy { $0.level == .ok }, "\(findings)")
        #expect(findings.count == 5)
        #expect(findings.contains { $0.message.contains("keys carry at least 128 bits") })
        #expect(findings.contains { $0.message.contains("libcurl speaks HTTP/2") })
    }

    @Test func certificatesExpiringSoonAreWarnedAboutAndExpiredOnesRefused() async {
        // The development WWDR certificate outlives the Order Type ID certificate by an hour.
        let expiry = keys.chain.orderTypeCertificate.notAfter
        let wwdrExpiry = keys.chain.wwdr.notAfter
        #expect(wwdrExpiry == expiry.addingTimeInterval(3_600))
        let type = "order type \(DevelopmentKeys.orderType)"
        let soon = await ServiceChecks.run(configuration(), now: expiry.addingTimeInterval(-10 * 86_400 - 60)).findings
        #expect(
            soon.filter { $0.level == .warning }.map(\.message) == [
                "\(type): \(keys.certificatePath) expires on \(RFC3339Text(expiry)), in 10 days: renew it",
                "\(type): \(keys.wwdrPath) expires on \(RFC3339Text(wwdrExpiry)), in 10 days: renew it",
            ],
            "\(soon)"
        )
        #expect(!soon.contains { $0.level == .problem })

        #expect(
            await problems(configuration(), now: expiry.addingTimeInterval(60)) == [
                "\(type): \(keys.certificatePath) expired on \(RFC3339Text(expiry))"
            ]
        )
    }

    @Test func aKeyThatIsNotTheCertificatesIsRefused() async throws {
        let other = try folder.write("other.key", Data(PrivateKey.generateRSA().pkcs8PEM().utf8))
        var configuration = configuration()
        configuration.orderTypes[0].signingKey = other
        #expect(
            await problems(configuration) == [
                "order type \(DevelopmentKeys.orderType): \(other) is not the private key of the certificate in \(keys.certificatePath)"
            ]
        )
    }

    @Test func everyProblemIsListedOnce() async throws {
        let rsa = try folder.write("rsa.p8", Data(PrivateKey.generateRSA().pkcs8PEM().utf8))
        var configuration = configuration()
        configuration.orderTypes[0].identifier = "order.com.example.other"
        configuration.orderTypes[0].wwdrCertificate = keys.rootPath
        configuration.orderTypes[0].apnsKey = rsa
        let found = await problems(configuration)
        #expect(found.count == 3, "\(found)")
        #expect(
            found[0].hasPrefix("order type order.com.example.other: \(keys.certificatePath) (")
                && found[0].contains("was not issued by the WWDR certificate in \(keys.rootPath)")
        )
        #expect(
            found[1]
                == "order type order.com.example.other: \(keys.certificatePath) is the certificate for \(DevelopmentKeys.orderType), not for order.com.example.other"
        )
        #expect(found[2] == "order type order.com.example.other: \(rsa) is not a P-256 key, so it cannot sign APNs tokens (ES256)")

        // serve refuses with the same sentences, one per line, and writes nothing.
        let error = await #expect(throws: ConfigurationError.self) {
            try await ServiceBootstrap.make(configuration: configuration, logger: Logger(label: "test"))
        }
        #expect(error?.description == "\n  " + found.joined(separator: "\n  "))
        #expect(!FileManager.default.fileExists(atPath: folder.path("data/orders.sqlite")))
    }

    @Test func anUnreadableAPNsKeyIsRefused() async {
        var configuration = configuration()
        configuration.orderTypes[0].apnsKey = folder.path("missing.p8")
        #expect(
            await problems(configuration) == [
                "order type \(DevelopmentKeys.orderType): cannot read the APNs key \(folder.path("missing.p8"))"
            ]
        )
    }

    @Test func aDatabaseThatCannotBeWrittenIsRefused() async throws {
        var configuration = configuration()
        let file = try folder.write("not-a-folder", Data("x".utf8))
        configuration.database = .sqlite(path: "\(file)/orders.sqlite")
        #expect(
            await problems(configuration) == [
                "the database \(file)/orders.sqlite cannot be created: \(file) is a file, not a folder"
            ]
        )
        let directory = folder.path("a-folder")
        configuration.database = .sqlite(path: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        #expect(await problems(configuration) == ["the database \(directory) is a folder, not an SQLite file"])

        // A file SQLite cannot write: not a database at all.
        let garbage = try folder.write("garbage.sqlite", Data(repeating: 0x41, count: 4_096))
        configuration.database = .sqlite(path: garbage)
        let found = await problems(configuration)
        #expect(found.count == 1 && found[0].hasPrefix("the database \(garbage) cannot be written: "), "\(found)")
    }

    @Test func aPostgresDatabaseIsCheckedAndAnUnreachableOneRefused() async throws {
        var configuration = configuration()
        let url = try await TestStore.emptyPostgresDatabase()
        configuration.database = try DatabaseLocation(url)
        // A server that answers is given minutes: the whole suite at once can hold this machine's cores that long.
        let findings = await ServiceChecks.run(configuration, now: Date(), databaseTimeout: .seconds(300)).findings
        #expect(
            findings.contains {
                $0.level == .ok && $0.message.hasPrefix("the database postgres://postgres@127.0.0.1:")
                    && $0.message.contains("is writable; migrations to apply: 0001_initial")
            },
            "\(findings)"
        )

        // Nothing listens on port 1: said at once, with the reason, not after the timeout.
        configuration.database = try DatabaseLocation("postgres://shop:secret-password@127.0.0.1:1/orders?sslmode=disable")
        let refused = await problems(configuration)
        #expect(
            refused.count == 1 && refused[0].hasPrefix("the database postgres://shop@127.0.0.1:1/orders cannot be reached: ")
                && refused[0].contains("Connection refused"),
            "\(refused)"
        )
        #expect(!refused[0].contains("secret-password"))

        // A server that answers, without the database: PostgreSQL's own words.
        var missing = try #require(URLComponents(string: url))
        missing.path = "/no_such_database"
        configuration.database = try DatabaseLocation(try #require(missing.string))
        let absent = await problems(configuration)
        #expect(absent.count == 1 && absent[0].contains("database \"no_such_database\" does not exist"), "\(absent)")
    }

    private func RFC3339Text(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }
}

/// Configured keys carry at least 128 bits and serve one role each: `doctor` and `serve` refuse the others.
@Suite(.timeLimit(.minutes(5))) struct KeyStrengthTests {
    @Test func weakKeysAreRefusedAndRandomOnesAccepted() {
        for weak in [
            "aaaaaaaaaaaaaaaa", "short", "env-key-0123456789", String(repeating: "a", count: 64),
            "abcabcabcabcabcabcabcabcabcabcabcabcabc", "0123456789abcdef0123456789abcde",
        ] {
            #expect(KeyStrength.problem(weak, role: "the admin key") != nil, "\(weak)")
        }
        for strong in [
            "6f1d0c2a9b8e47d3a5c4e2f1b0a99c8d", "merchant-key-for-tests-0123456789",
            "3q2+7wAAb9ZmXk1Lp0RtUvYw", "wo_live_0123456789ab_" + String(repeating: "9f8e7d6c", count: 8),
        ] {
            #expect(KeyStrength.problem(strong, role: "the admin key") == nil, "\(strong)")
        }
    }

    @Test func oneKeyInTwoRolesIsRefused() {
        let key = "6f1d0c2a9b8e47d3a5c4e2f1b0a99c8d"
        #expect(
            KeyStrength.problems(merchantKeys: [key], adminKey: key, operatorKey: nil)
                == ["the merchant key and the admin key are the same key: give each role a key of its own"]
        )
        #expect(KeyStrength.problems(merchantKeys: [key], adminKey: nil, operatorKey: "aaaaaaaaaaaaaaaa").count == 1)
    }

    @Test func serveAndDoctorRefuseWhatTheChecksFind() async throws {
        var configuration = ServiceConfiguration()
        configuration.merchantKeys = ["aaaaaaaaaaaaaaaa"]
        configuration.adminKey = "aaaaaaaaaaaaaaaa"
        let problems = await ServiceChecks.run(configuration, now: Date()).problems
        #expect(problems.contains { $0.hasPrefix("the merchant key carries about") })
        #expect(problems.contains { $0.hasPrefix("the merchant key and the admin key are the same key") })
    }
}
