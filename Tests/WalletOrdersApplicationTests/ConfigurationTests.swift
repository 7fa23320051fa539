import Foundation
import Testing
import WalletOrdersApplication
import WalletOrdersHTTP
import WalletOrdersTesting

@Suite(.timeLimit(.minutes(5))) struct ConfigurationTests {
    @Test func defaultsNeedNoFile() async throws {
        let configuration = try await ServiceConfiguration.load(file: nil, environment: [:])
        #expect(configuration.host == "127.0.0.1")
        #expect(configuration.port == 8080)
        #expect(configuration.database.description == "data/wallet-orders.sqlite")
        #expect(configuration.dataFolder.path.hasSuffix("/data"))
        #expect(configuration.webServiceURL == "http://127.0.0.1:8080")
        #expect(configuration.orderTypes.isEmpty)
    }

    @Test func theEnvironmentOverridesTheFile() async throws {
        let folder = try TemporaryDirectory("config")
        let file = try folder.write(
            "config.json",
            Data(
                """
                {"host": "0.0.0.0", "port": 9000, "publicURL": "https://orders.example.com/", "merchantKeys": ["file-key-0123456789"],
                 "orderType": "order.com.example.shop", "signingKey": "/keys/shop.p12", "wwdrCert": "/keys/wwdr.pem",
                 "manifestDigest": "sha1",
                 "orderTypes": ["returns"],
                 "returns": {"orderType": "order.com.example.returns", "signingKey": "/keys/r.key", "wwdrCert": "/keys/wwdr.pem"}}
                """.utf8
            )
        )
        let configuration = try await ServiceConfiguration.load(
            file: file,
            environment: [
                "WALLET_ORDERS_PORT": "9100",
                "WALLET_ORDERS_MERCHANT_KEY": "env-key-0123456789",
                "WALLET_ORDERS_SIGNING_KEY_PASSWORD": "secret",
                "WALLET_ORDERS_APNS_ENVIRONMENT": "sandbox",
            ]
        )
        #expect(configuration.host == "0.0.0.0")
        #expect(configuration.port == 9100)
        #expect(configuration.database.description == "data/wallet-orders.sqlite")
        #expect(configuration.webServiceURL == "https://orders.example.com")
        #expect(configuration.merchantKeys == ["file-key-0123456789", "env-key-0123456789"])
        #expect(configuration.orderTypes.map(\.identifier) == ["order.com.example.shop", "order.com.example.returns"])
        #expect(configuration.orderTypes[0].signingKeyPassword == "secret")
        #expect(configuration.orderTypes[0].manifestDigest == .sha1)
        #expect(configuration.orderTypes[0].apnsEnvironment == .sandbox)
        #expect(configuration.orderTypes[1].signingKey == "/keys/r.key")
    }

    /// docker-compose passes `${VAR:-}` as an empty variable: that is "not set", never an empty setting.
    @Test func emptyVariablesCountAsUnset() async throws {
        let configuration = try await ServiceConfiguration.load(
            file: nil,
            environment: [
                "WALLET_ORDERS_ORDER_TYPE": "order.com.example.shop", "WALLET_ORDERS_SIGNING_KEY": "/keys/k.pem",
                "WALLET_ORDERS_WWDR_CERT": "/keys/wwdr.pem", "WALLET_ORDERS_TEAM_ID": "", "WALLET_ORDERS_SIGNING_KEY_PASSWORD": "",
                "WALLET_ORDERS_APNS_ENVIRONMENT": "", "WALLET_ORDERS_APNS_KEY_ID": "ABC123DEFG",
            ]
        )
        let type = try #require(configuration.orderTypes.first)
        #expect(type.teamIdentifier == nil && type.signingKeyPassword == nil)
        #expect(type.apnsEnvironment == .production)
        #expect(type.apnsKeyID == "ABC123DEFG")
        await #expect(throws: ConfigurationError.self) {
            try await ServiceConfiguration.load(
                file: nil,
                environment: [
                    "WALLET_ORDERS_ORDER_TYPE": "order.com.example.shop", "WALLET_ORDERS_SIGNING_KEY": "", "WALLET_ORDERS_WWDR_CERT": "/w.pem",
                ]
            )
        }
    }

    @Test func unusableSettingsAreRefusedWithASentence() async throws {
        await #expect(throws: ConfigurationError.self) {
            try await ServiceConfiguration.load(file: nil, environment: ["WALLET_ORDERS_ORDER_TYPE": "order.com.example.shop"])
        }
        for (name, value) in [
            ("MANIFEST_DIGEST", "md5"), ("APNS_ENVIRONMENT", "http://apns.example.com"),
            ("DATABASE", "postgres://nobody-at-all/"),
        ] {
            let error = await #expect(throws: ConfigurationError.self) {
                try await ServiceConfiguration.load(
                    file: nil,
                    environment: [
                        "WALLET_ORDERS_ORDER_TYPE": "order.com.example.shop", "WALLET_ORDERS_SIGNING_KEY": "/k.pem",
                        "WALLET_ORDERS_WWDR_CERT": "/w.pem", "WALLET_ORDERS_\(name)": value,
                    ]
                )
            }
            #expect(error?.description.contains(value.prefix(8)) == true, "\(error.map(String.init(describing:)) ?? "")")
        }
        let emptyAdminKey = try await ServiceConfiguration.load(file: nil, environment: ["WALLET_ORDERS_ADMIN_KEY": ""])
        #expect(emptyAdminKey.adminKey == nil, "an empty admin key is no admin key, so /admin stays off")
        await #expect(throws: ConfigurationError.self) {
            try await ServiceConfiguration.load(file: "/nonexistent/config.json", environment: [:])
        }
        let keys = DevelopmentKeys.shared
        var type = OrderTypeConfiguration(identifier: "order.com.example.other", signingKey: keys.keyPath, wwdrCertificate: keys.wwdrPath)
        type.signingCertificate = keys.certificatePath
        var configuration = ServiceConfiguration()
        configuration.orderTypes = [type]
        let folder = try TemporaryDirectory("config")
        configuration.database = .sqlite(path: folder.path("orders.sqlite"))
        let report = await ServiceChecks.run(configuration, now: Date())
        #expect(report.orderTypes.isEmpty, "an order type with a problem is not loaded")
        #expect(
            report.problems
                == [
                    "order type order.com.example.other: \(keys.certificatePath) is the certificate for order.com.example.dev, not for order.com.example.other"
                ]
        )
    }
}

@Suite(.timeLimit(.minutes(5))) struct DatabaseSettingTests {
    @Test func aPostgresURLPicksPostgreSQLAndAnythingElseIsAnSQLiteFile() async throws {
        let postgres = try await ServiceConfiguration.load(
            file: nil,
            environment: [
                "WALLET_ORDERS_DATABASE": "postgres://shop:pw@db.internal:5433/orders"
            ]
        )
        guard case .postgres(let url) = postgres.database else {
            Issue.record("expected PostgreSQL, got \(postgres.database)")
            return
        }
        #expect(url.host == "db.internal" && url.port == 5433 && url.database == "orders")
        #expect(postgres.database.description == "postgres://shop@db.internal:5433/orders")
        #expect(postgres.dataFolder.lastPathComponent == "data")
        let sqlite = try await ServiceConfiguration.load(file: nil, environment: ["WALLET_ORDERS_DATABASE": "/var/lib/wo/orders.db"])
        guard case .sqlite(let path) = sqlite.database else {
            Issue.record("expected SQLite, got \(sqlite.database)")
            return
        }
        #expect(path == "/var/lib/wo/orders.db" && sqlite.dataFolder.path == "/var/lib/wo")
    }
}

/// The limits on clients: read from the file and the environment, refused with a sentence when malformed.
@Suite(.timeLimit(.minutes(5))) struct ClientLimitsConfigurationTests {
    @Test func limitsAreReadFromTheFileAndTheEnvironment() async throws {
        let defaults = try await ServiceConfiguration.load(file: nil, environment: [:])
        #expect(defaults.clientLimits == ClientLimits())
        #expect(defaults.clientLimits.authFailures == RateLimit(burst: 30, per: .seconds(60)))
        #expect(defaults.deviceLogs.maxTotalBytes == 64 * 1_024 * 1_024)

        let folder = try TemporaryDirectory("config")
        let file = try folder.write(
            "config.json",
            Data(
                """
                {"listingLimit": "10/s", "headerTimeout": 5, "maxConnections": 0, "logMaxBytes": "16MB"}
                """.utf8
            )
        )
        let configuration = try await ServiceConfiguration.load(
            file: file,
            environment: [
                "WALLET_ORDERS_AUTH_FAILURE_LIMIT": "5/h",
                "WALLET_ORDERS_MERCHANT_LIMIT": "off",
                "WALLET_ORDERS_TRUSTED_PROXY_HEADER": "X-Forwarded-For",
                "WALLET_ORDERS_IDLE_TIMEOUT": "0",
                "WALLET_ORDERS_RATE_LIMIT_CLIENTS": "5000",
                "WALLET_ORDERS_MAX_CONNECTIONS_PER_CLIENT": "8",
            ]
        )
        let limits = configuration.clientLimits
        #expect(limits.authFailures == RateLimit(burst: 5, per: .seconds(3_600)))
        #expect(limits.listing == RateLimit(burst: 10, per: .seconds(1)))
        #expect(limits.merchant == nil)
        #expect(limits.log == ClientLimits().log)
        #expect(limits.trustedProxyHeader == "X-Forwarded-For")
        #expect(limits.headerTimeout == .seconds(5) && limits.bodyTimeout == .seconds(30) && limits.idleTimeout == nil)
        #expect(limits.maxConnections == nil && limits.trackedClients == 5_000)
        #expect(defaults.clientLimits.maxConnectionsPerClient == 64 && limits.maxConnectionsPerClient == 8)
        #expect(configuration.deviceLogs.maxTotalBytes == 16 * 1_024 * 1_024)
        let uncapped = try await ServiceConfiguration.load(file: nil, environment: ["WALLET_ORDERS_MAX_CONNECTIONS_PER_CLIENT": "0"])
        #expect(uncapped.clientLimits.maxConnectionsPerClient == nil)
    }

    @Test func theFreeDiskMinimumIsASizeAndZeroTurnsItOff() async throws {
        let defaults = try await ServiceConfiguration.load(file: nil, environment: [:])
        #expect(defaults.minFreeDiskBytes == 64 << 20)
        let set = try await ServiceConfiguration.load(file: nil, environment: ["WALLET_ORDERS_MIN_FREE_DISK_BYTES": "1GB"])
        #expect(set.minFreeDiskBytes == 1 << 30)
        let off = try await ServiceConfiguration.load(file: nil, environment: ["WALLET_ORDERS_MIN_FREE_DISK_BYTES": "0"])
        #expect(off.minFreeDiskBytes == nil)
    }

    @Test func tracingIsOffUntilAnHTTPEndpointIsNamedAndSpansGoToItsTracesPath() async throws {
        #expect(try await ServiceConfiguration.load(file: nil, environment: [:]).tracingEndpoint == nil)
        let set = try await ServiceConfiguration.load(
            file: nil,
            environment: ["WALLET_ORDERS_TRACING_ENDPOINT": "http://otel-collector:4318"]
        )
        let endpoint = try #require(set.tracingEndpoint)
        #expect(ServiceTracing.tracesURL(endpoint) == "http://otel-collector:4318/v1/traces")
        #expect(ServiceTracing.tracesURL(URL(string: "https://c.example.com/otlp/")!) == "https://c.example.com/otlp/v1/traces")
        #expect(ServiceTracing.tracesURL(URL(string: "https://c.example.com/v1/traces")!) == "https://c.example.com/v1/traces")
        for value in ["otel-collector:4318", "grpc://otel-collector:4317", "http://"] {
            let error = await #expect(throws: ConfigurationError.self) {
                try await ServiceConfiguration.load(file: nil, environment: ["WALLET_ORDERS_TRACING_ENDPOINT": value])
            }
            #expect(error?.description.hasPrefix("tracingEndpoint \(value) is not") == true, "\(String(describing: error))")
        }
    }

    @Test func theDeviceCapThePlaygroundAndTheDevelopmentTemplateAreRead() async throws {
        let defaults = try await ServiceConfiguration.load(file: nil, environment: [:])
        #expect(defaults.maxDevicesPerOrder == 10 && !defaults.playground && defaults.developmentTemplate == nil)

        let folder = try TemporaryDirectory("config")
        let file = try folder.write(
            "config.json",
            Data(#"{"maxDevicesPerOrder": 3, "playground": true, "template": "OrderTemplates/shop"}"#.utf8)
        )
        let development = try await ServiceConfiguration.load(file: file, environment: [:])
        #expect(development.maxDevicesPerOrder == 3 && development.playground)
        #expect(development.developmentTemplate == "OrderTemplates/shop", "development uses the template it is given")
        let uncapped = try await ServiceConfiguration.load(file: nil, environment: ["WALLET_ORDERS_MAX_DEVICES_PER_ORDER": "0"])
        #expect(uncapped.maxDevicesPerOrder == nil)

        // With an order type, the playground writes orders: it stays closed behind the admin key, or serve stops.
        let production = [
            "WALLET_ORDERS_ORDER_TYPE": "order.com.example.shop", "WALLET_ORDERS_SIGNING_KEY": "/k.pem",
            "WALLET_ORDERS_WWDR_CERT": "/w.pem", "WALLET_ORDERS_PLAYGROUND": "true",
        ]
        await #expect {
            _ = try await ServiceConfiguration.load(file: nil, environment: production)
        } throws: { error in
            (error as? ConfigurationError)?.description == "playground is true, but the playground needs adminKey to keep it closed"
        }
        let guarded = try await ServiceConfiguration.load(
            file: nil,
            environment: production.merging(["WALLET_ORDERS_ADMIN_KEY": "an-admin-key-0123456789abcdef"]) { $1 }
        )
        #expect(guarded.playground && guarded.developmentTemplate == nil)
    }

    @Test(arguments: [
        ("WALLET_ORDERS_LISTING_LIMIT", "fast", "listingLimit: a rate limit is written COUNT/s, COUNT/min or COUNT/h (or off), not fast"),
        ("WALLET_ORDERS_LOG_MAX_BYTES", "12", "logMaxBytes must be a size of at least 1MB (bytes, or with KB, MB, GB), not 12"),
        ("WALLET_ORDERS_HEADER_TIMEOUT", "-1", "headerTimeout must be a whole number, 0 or more, not -1"),
        ("WALLET_ORDERS_TRUSTED_PROXY_HEADER", "X Forwarded", "trustedProxyHeader X Forwarded is not an HTTP header name"),
        ("WALLET_ORDERS_PLAYGROUND", "maybe", "playground must be true or false, not maybe"),
        ("WALLET_ORDERS_MAX_DEVICES_PER_ORDER", "ten", "maxDevicesPerOrder must be a whole number, 0 or more, not ten"),
        ("WALLET_ORDERS_MIN_FREE_DISK_BYTES", "lots", "minFreeDiskBytes must be a size (bytes, or with KB, MB, GB), or 0 for none, not lots"),
    ])
    func malformedLimitsAreRefusedWithASentence(variable: String, value: String, message: String) async throws {
        await #expect {
            _ = try await ServiceConfiguration.load(file: nil, environment: [variable: value])
        } throws: { error in
            (error as? ConfigurationError)?.description == message
        }
    }
}
