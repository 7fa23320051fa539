// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "wallet-orders",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "wallet-orders", targets: ["WalletOrdersCommand"]),
        .library(name: "WalletOrdersModel", targets: ["WalletOrdersModel"]),
        .library(name: "WalletOrdersPackage", targets: ["WalletOrdersPackage"]),
        .library(name: "WalletOrdersTesting", targets: ["WalletOrdersTesting"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // System libraries, each wrapped once by a Swift module that owns its pointers.
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
        // OpenSSL: digests, keys, certificates, CMS signatures.
        .target(name: "WalletOrdersCrypto", dependencies: ["COpenSSL"]),
        // The signed `.order` package: templates, manifest, signature, zip.
        .target(
            name: "WalletOrdersPackage",
            dependencies: ["WalletOrdersModel", "WalletOrdersCrypto", "CZip"]
        ),
        // The `wallet-orders` command.
        .executableTarget(
            name: "WalletOrdersCommand",
            dependencies: [
                "WalletOrdersModel",
                "WalletOrdersCrypto",
                "WalletOrdersPackage",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // What tests and users need to try the service locally: keys, sample orders, running commands.
        .target(
            name: "WalletOrdersTesting",
            dependencies: ["WalletOrdersModel", "WalletOrdersCrypto", "WalletOrdersPackage"]
        ),

        // `swift run -c release package-benchmark`: package building against the openssl + zip commands.
        .executableTarget(
            name: "package-benchmark",
            dependencies: ["WalletOrdersPackage", "WalletOrdersTesting"],
            path: "Benchmarks/PackageBenchmark"
        ),

        .testTarget(name: "WalletOrdersModelTests", dependencies: ["WalletOrdersModel", "WalletOrdersTesting"]),
        .testTarget(name: "WalletOrdersCryptoTests", dependencies: ["WalletOrdersCrypto", "WalletOrdersTesting"]),
        .testTarget(
            name: "WalletOrdersPackageTests",
            dependencies: ["WalletOrdersPackage", "WalletOrdersCrypto", "WalletOrdersModel", "WalletOrdersTesting"]
        ),
        .testTarget(
            name: "WalletOrdersCommandTests",
            dependencies: ["WalletOrdersTesting", "WalletOrdersModel"]
        ),
    ]
)
