// swift-tools-version: 6.1
import PackageDescription

// Every SQL file in Sources/WalletOrdersMigrations ships inside the binary's resources, so an installed binary finds
// them anywhere.
let package = Package(
    name: "wallet-orders",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "wallet-orders", targets: ["WalletOrdersCommand"]),
        .library(name: "WalletOrdersModel", targets: ["WalletOrdersModel"]),
        .library(name: "WalletOrdersPackage", targets: ["WalletOrdersPackage"]),
        .library(name: "WalletOrdersTesting", targets: ["WalletOrdersTesting"]),
        .library(name: "WalletOrdersDevice", targets: ["WalletOrdersDevice"]),
        // The conformance kit, for tools that check a Wallet Orders web service the way Wallet talks to it.
        .library(name: "WalletOrdersConformance", targets: ["WalletOrdersConformance"]),
        // For the fuzz package (Fuzz/), which reads providers' payloads and tracking events through it.
        .library(name: "WalletOrdersTracking", targets: ["WalletOrdersTracking"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // The HTTP parts Hummingbird's channel pipeline carries, for the slow-client handler (Hummingbird's own URL).
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.34.1"),
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // Traces, when `tracingEndpoint` is set: the spans Hummingbird's tracing middleware starts, sent over OTLP/HTTP.
        // Only the OTLP/HTTP exporter is built (the trait), not the gRPC one.
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/swift-otel/swift-otel", from: "1.6.0", traits: ["OTLPHTTP"]),
    ],
    targets: [
        // System libraries, each wrapped once by a Swift module that owns its pointers: COpenSSL by WalletOrdersCrypto,
        // CZip by WalletOrdersPackage, CCurl by WalletOrdersCurl.
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
        ),
        .systemLibrary(
            name: "CZip",
            pkgConfig: "libzip",
            providers: [.apt(["libzip-dev"]), .brew(["libzip"])]
        ),
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"]), .brew(["curl"])]
        ),

        // What an order is and what makes one valid: pure values, no I/O.
        .target(name: "WalletOrdersModel"),
        // The libcurl layer, the only module that links CCurl: global set-up once and checked, every return code
        // through one check, header lists and easy and multi handles owned by Swift types, and the two ways the
        // transports run transfers (a multi handle on a thread of its own for HTTP/2 streams; a few threads, each
        // performing on an easy handle of its own). No C pointer leaves it.
        .target(name: "WalletOrdersCurl", dependencies: ["CCurl"]),
        // OpenSSL: digests, keys, certificates, CMS signatures.
        .target(name: "WalletOrdersCrypto", dependencies: ["COpenSSL"]),
        // The signed `.order` package: templates, manifest, signature, zip.
        .target(
            name: "WalletOrdersPackage",
            dependencies: ["WalletOrdersModel", "WalletOrdersCrypto", "CZip"]
        ),
        // The SQL migrations of each engine, as resources of their own module.
        .target(
            name: "WalletOrdersMigrations",
            exclude: ["README.md"],
            // Whole folders, so a new migration needs no change here.
            resources: [.copy("sqlite"), .copy("postgres")]
        ),
        // The order JSON Schema (2020-12) served at /schemas/order.json, as a resource of its own module.
        .target(
            name: "WalletOrdersSchemas",
            resources: [.copy("order.schema.json")]
        ),
        // What a store is: the protocol both engines implement and the records they hold; no engine, no I/O.
        .target(name: "WalletOrdersStore", dependencies: ["WalletOrdersModel"]),
        // The store in one SQLite file (GRDB): the embedded default, for one instance.
        .target(
            name: "WalletOrdersSQLite",
            dependencies: [
                "WalletOrdersModel",
                "WalletOrdersStore",
                "WalletOrdersMigrations",
                .product(name: "GRDB", package: "GRDB.swift"),
                // sqlite3_wal_hook, for checkpoints off the writer.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),
        // The store in PostgreSQL (PostgresNIO), shared by several instances.
        .target(
            name: "WalletOrdersPostgres",
            dependencies: [
                "WalletOrdersModel",
                "WalletOrdersStore",
                "WalletOrdersMigrations",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The order service: writes built and signed outside any transaction, device and merchant operations,
        // domain errors; knows nothing of HTTP.
        .target(
            name: "WalletOrdersService",
            dependencies: [
                "WalletOrdersModel", "WalletOrdersCrypto", "WalletOrdersPackage", "WalletOrdersStore",
                // Webhook URLs are checked by the same address policy the deliveries keep; no transport, no worker.
                "WalletOrdersWebhookModel",
                "WalletOrdersTracking",
                // A connected shop's payloads, mapped and their signatures checked.
                "WalletOrdersShops",
                // ByteBuffer only: packages are kept in the fetch cache as the bytes the HTTP layer sends.
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // The HTTP layer: the device API, the merchant API, the admin page, health, metrics and documents; middleware,
        // client limits and the mapping of domain errors to statuses. Translates requests into calls on the order
        // service; knows no store engine, no push transport and no configuration file.
        .target(
            name: "WalletOrdersHTTP",
            dependencies: [
                "WalletOrdersModel",
                // SHA-256, which names the version of a stylesheet or script the pages link to; ConstantTime, for keys.
                "WalletOrdersCrypto",
                "WalletOrdersPackage",
                "WalletOrdersStore",
                "WalletOrdersSchemas",
                "WalletOrdersService",
                "WalletOrdersTracking",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Mustache", package: "swift-mustache"),
            ],
            // The OpenAPI document of the HTTP API, served at /openapi.json; the console's templates and stylesheet.
            resources: [.copy("openapi.json"), .copy("Admin/Console")]
        ),
        // The application: the configuration and its reader, start-up checks, the store engine the configuration
        // names, the push routes, background services, Prometheus metrics, development keys; composes them with the
        // HTTP layer into a running server.
        .target(
            name: "WalletOrdersApplication",
            dependencies: [
                "WalletOrdersModel",
                "WalletOrdersCrypto",
                "WalletOrdersPackage",
                "WalletOrdersStore",
                "WalletOrdersSQLite",
                "WalletOrdersPostgres",
                "WalletOrdersService",
                "WalletOrdersAPNS",
                "WalletOrdersOutbox",
                "WalletOrdersPush",
                "WalletOrdersWebhookModel",
                "WalletOrdersWebhooks",
                "WalletOrdersHTTP",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "OTel", package: "swift-otel"),
            ]
        ),
        // `/playground`: edit an order, pay, and follow a simulated Wallet device through pushes from a local APNs in
        // the server's process. The only server module that links the simulated device and the local APNs.
        .target(
            name: "WalletOrdersPlayground",
            dependencies: [
                "WalletOrdersModel",
                "WalletOrdersCrypto",
                "WalletOrdersPackage",
                "WalletOrdersService",
                "WalletOrdersHTTP",
                "WalletOrdersAPNSServer",
                "WalletOrdersDevice",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Mustache", package: "swift-mustache"),
            ],
            // The page's template, stylesheet and scripts, the preview's template and the first order.
            resources: [.copy("Page")]
        ),
        // What APNs is to this service, as plain values: the environment, a push request and its constants, the answer
        // (every reason Apple documents), the ES256 provider token. Used by the transport, the worker and the local APNs.
        .target(
            name: "WalletOrdersAPNS",
            dependencies: ["WalletOrdersCrypto", "WalletOrdersModel"]
        ),
        // The one outbox engine: a worker that claims under leases, renews and hands back its claims, records outcomes
        // and wakes on the store's events, for any lane (pushes, webhook deliveries). No transport of its own.
        .target(
            name: "WalletOrdersOutbox",
            dependencies: ["WalletOrdersStore", .product(name: "Logging", package: "swift-log")]
        ),
        // Telling devices that orders changed: the HTTP/2 transport (on the libcurl layer) and the push lane of the
        // outbox engine.
        .target(
            name: "WalletOrdersPush",
            dependencies: [
                "WalletOrdersCurl",
                "WalletOrdersAPNS",
                "WalletOrdersOutbox",
                "WalletOrdersCrypto",
                "WalletOrdersModel",
                "WalletOrdersStore",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // What a carrier said about a parcel: the tracking events vocabulary, how an event changes a Wallet fulfillment,
        // and the carrier aggregators' webhooks (their payloads and signatures) turned into events. No I/O.
        .target(name: "WalletOrdersTracking", dependencies: ["WalletOrdersModel", "WalletOrdersCrypto"]),
        // What a webhook is to this service, as plain values and pure rules: URL rules, the address policy's
        // classification of addresses, Standard Webhooks signatures and secrets, the payload, a request and its answer.
        // No I/O (a host is looked up through what the caller gives), so the order service may link it.
        .target(
            name: "WalletOrdersWebhookModel",
            dependencies: ["WalletOrdersCrypto", "WalletOrdersModel", "WalletOrdersStore"]
        ),
        // Shops that write no code: Shopify's, WooCommerce's and UCP's webhooks, their signatures checked as each
        // platform documents them, their orders and shipments turned into what a Wallet order holds (shipments in the
        // tracking events' vocabulary). No I/O: the service calls it.
        .target(
            name: "WalletOrdersShops",
            dependencies: ["WalletOrdersModel", "WalletOrdersCrypto", "WalletOrdersTracking"]
        ),
        // Telling merchants what happened: the transport (on the libcurl layer) that keeps deliveries off private
        // networks as each connection opens, the system's lookup of a webhook host, and the delivery lane of the outbox
        // engine.
        .target(
            name: "WalletOrdersWebhooks",
            dependencies: [
                "WalletOrdersCurl",
                "WalletOrdersOutbox",
                "WalletOrdersStore",
                "WalletOrdersWebhookModel",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // A local stand-in for APNs (HTTP/2 over TLS) that checks what it receives, for tests and for users;
        // on swift-nio-http2 directly, to advertise APNs' settings and answer at the speed of a real server.
        .target(
            name: "WalletOrdersAPNSServer",
            dependencies: [
                "WalletOrdersAPNS",
                "WalletOrdersCrypto",
                "WalletOrdersModel",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // A simulated Wallet device: adds orders, registers with a push token of its own, takes pushes from the
        // local APNs, lists and fetches what changed, checks each package as Wallet does, posts to /v1/log; every
        // step in a transcript. Its HTTP/1.1 client is a small one on NIO, for http and https with a given CA.
        .target(
            name: "WalletOrdersDevice",
            dependencies: [
                "WalletOrdersModel",
                "WalletOrdersCrypto",
                "WalletOrdersPackage",
                "WalletOrdersAPNSServer",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // The conformance kit: any Wallet Orders web service checked rule by rule, as Wallet talks to it, with the
        // simulated device's client and package checks and a local APNs taking the server's pushes. Knows nothing of
        // this service's HTTP, application or store modules.
        .target(
            name: "WalletOrdersConformance",
            dependencies: [
                "WalletOrdersModel",
                "WalletOrdersCrypto",
                "WalletOrdersPackage",
                "WalletOrdersAPNS",
                "WalletOrdersAPNSServer",
                "WalletOrdersDevice",
            ]
        ),
        // The `wallet-orders` command.
        .executableTarget(
            name: "WalletOrdersCommand",
            dependencies: [
                "WalletOrdersModel",
                "WalletOrdersCrypto",
                "WalletOrdersPackage",
                "WalletOrdersApplication",
                "WalletOrdersHTTP",
                "WalletOrdersPlayground",
                "WalletOrdersService",
                "WalletOrdersStore",
                "WalletOrdersAPNS",
                "WalletOrdersPush",
                "WalletOrdersAPNSServer",
                "WalletOrdersDevice",
                "WalletOrdersConformance",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),

        // What tests and users need to try the service locally: keys, sample orders, running commands, fresh
        // stores of either engine (with a throwaway PostgreSQL).
        .target(
            name: "WalletOrdersTesting",
            dependencies: [
                "WalletOrdersModel", "WalletOrdersCrypto", "WalletOrdersPackage", "WalletOrdersStore",
                "WalletOrdersSQLite", "WalletOrdersPostgres",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // `swift run -c release package-benchmark`: package building against the openssl + zip commands.
        .executableTarget(
            name: "package-benchmark",
            dependencies: ["WalletOrdersPackage", "WalletOrdersTesting"],
            path: "Benchmarks/PackageBenchmark"
        ),

        // `Benchmarks/fetch.sh`: the order fetch beside a bare route of the same router, with wrk.
        .executableTarget(
            name: "fetch-benchmark",
            dependencies: [
                "WalletOrdersHTTP", "WalletOrdersApplication", "WalletOrdersService", "WalletOrdersStore",
                "WalletOrdersPackage", "WalletOrdersModel", "WalletOrdersTesting",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/FetchBenchmark"
        ),

        // `Benchmarks/push.sh`: pushes per second to the local APNs, beside h2load.
        .executableTarget(
            name: "push-benchmark",
            dependencies: [
                "WalletOrdersAPNS", "WalletOrdersPush", "WalletOrdersStore", "WalletOrdersSQLite", "WalletOrdersCrypto",
                "WalletOrdersModel",
            ],
            path: "Benchmarks/PushBenchmark"
        ),

        // `Benchmarks/webhooks.sh`: webhook deliveries per second from the outbox to a local receiver.
        .executableTarget(
            name: "webhook-benchmark",
            dependencies: [
                "WalletOrdersStore", "WalletOrdersModel", "WalletOrdersWebhookModel", "WalletOrdersWebhooks",
                "WalletOrdersTesting",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/WebhookBenchmark"
        ),

        // `Benchmarks/merchants.sh`: seeds a store of many merchants (or one) before wrk measures the service.
        .executableTarget(
            name: "merchant-benchmark",
            dependencies: [
                "WalletOrdersStore", "WalletOrdersModel", "WalletOrdersService",
                "WalletOrdersTesting",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/MerchantBenchmark"
        ),

        // `Benchmarks/scale.sh`: seeds a million orders through the store's bulk path before wrk measures the service.
        .executableTarget(
            name: "scale-benchmark",
            dependencies: [
                "WalletOrdersStore", "WalletOrdersModel", "WalletOrdersTesting",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/ScaleBenchmark"
        ),

        // `Benchmarks/console.sh`: seeds a million orders of a thousand merchants before wrk measures the console.
        .executableTarget(
            name: "console-benchmark",
            dependencies: [
                "WalletOrdersStore", "WalletOrdersModel", "WalletOrdersTesting",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/ConsoleBenchmark"
        ),

        .testTarget(
            name: "WalletOrdersModelTests",
            dependencies: ["WalletOrdersModel", "WalletOrdersSchemas", "WalletOrdersTesting"]
        ),
        .testTarget(
            name: "WalletOrdersTrackingTests",
            // The providers' signatures are computed by the `openssl` command, not by the code under test.
            dependencies: ["WalletOrdersTracking", "WalletOrdersModel", "WalletOrdersTesting"]
        ),
        .testTarget(
            name: "WalletOrdersShopsTests",
            // The platforms' signatures are made by the `openssl` command, not by the code under test.
            dependencies: ["WalletOrdersShops", "WalletOrdersModel", "WalletOrdersTracking", "WalletOrdersTesting"]
        ),
        .testTarget(name: "WalletOrdersCryptoTests", dependencies: ["WalletOrdersCrypto", "WalletOrdersTesting"]),
        .testTarget(
            name: "WalletOrdersPackageTests",
            dependencies: ["WalletOrdersPackage", "WalletOrdersCrypto", "WalletOrdersModel", "WalletOrdersTesting"]
        ),
        .testTarget(
            name: "WalletOrdersStoreTests",
            dependencies: [
                "WalletOrdersStore", "WalletOrdersSQLite", "WalletOrdersPostgres", "WalletOrdersModel", "WalletOrdersTesting",
                // A database at an earlier schema, written directly (migration and checkpoint tests).
                "WalletOrdersMigrations", .product(name: "GRDB", package: "GRDB.swift"),
                // Another session of PostgreSQL's own, holding a lock a store's call waits on.
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        .testTarget(
            name: "WalletOrdersServiceTests",
            dependencies: [
                "WalletOrdersService", "WalletOrdersStore", "WalletOrdersModel", "WalletOrdersPackage", "WalletOrdersTesting",
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "WalletOrdersHTTPTests",
            dependencies: [
                "WalletOrdersHTTP", "WalletOrdersApplication", "WalletOrdersService", "WalletOrdersStore", "WalletOrdersModel",
                "WalletOrdersPackage", "WalletOrdersCrypto", "WalletOrdersTesting",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]
        ),
        .testTarget(
            name: "WalletOrdersApplicationTests",
            dependencies: [
                "WalletOrdersApplication", "WalletOrdersHTTP", "WalletOrdersAPNS", "WalletOrdersCrypto", "WalletOrdersTesting",
            ]
        ),
        .testTarget(
            name: "WalletOrdersAPNSTests",
            dependencies: ["WalletOrdersAPNS", "WalletOrdersCrypto", "WalletOrdersTesting"]
        ),
        .testTarget(
            name: "WalletOrdersPushTests",
            dependencies: [
                "WalletOrdersAPNS", "WalletOrdersPush", "WalletOrdersAPNSServer", "WalletOrdersApplication", "WalletOrdersService",
                "WalletOrdersStore",
                "WalletOrdersCrypto", "WalletOrdersTesting", "WalletOrdersModel", "WalletOrdersPackage",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]
        ),
        .testTarget(name: "WalletOrdersWebhookModelTests", dependencies: ["WalletOrdersWebhookModel"]),
        .testTarget(
            // The layer against a real HTTP server on loopback (Tests/curl/answer.py).
            name: "WalletOrdersCurlTests",
            dependencies: ["WalletOrdersCurl", "WalletOrdersTesting"]
        ),
        .testTarget(
            name: "WalletOrdersWebhooksTests",
            dependencies: [
                "WalletOrdersWebhooks", "WalletOrdersWebhookModel", "WalletOrdersService", "WalletOrdersStore",
                "WalletOrdersModel", "WalletOrdersPackage", "WalletOrdersCrypto", "WalletOrdersTesting",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "WalletOrdersDeviceTests",
            dependencies: [
                "WalletOrdersDevice", "WalletOrdersModel", "WalletOrdersCrypto", "WalletOrdersPackage", "WalletOrdersTesting",
            ]
        ),
        .testTarget(
            name: "WalletOrdersConformanceTests",
            dependencies: [
                "WalletOrdersConformance", "WalletOrdersTesting", "WalletOrdersModel", "WalletOrdersCrypto",
                "WalletOrdersPackage", "WalletOrdersAPNS", "WalletOrdersAPNSServer", "WalletOrdersDevice",
                // The deliberately faulty web service the tests run the kit against.
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        .testTarget(
            name: "WalletOrdersCommandTests",
            dependencies: [
                "WalletOrdersTesting", "WalletOrdersModel", "WalletOrdersApplication", "WalletOrdersDevice", "WalletOrdersAPNS",
                "WalletOrdersAPNSServer", "WalletOrdersCrypto", "WalletOrdersPackage", "WalletOrdersPush",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]
        ),
    ]
)
