// swift-tools-version:6.0
import PackageDescription

// An order service written with vapor-community/wallet (VaporWalletOrders), as its "Getting Started with Orders"
// guide lays one out, for `conformance/vapor-wallet.sh` to run the conformance kit against. Not part of the
// wallet-orders package: the script builds it in a folder of its own.
let package = Package(
    name: "vapor-orders-example",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(url: "https://github.com/vapor-community/wallet.git", exact: "0.7.1"),
        .package(url: "https://github.com/vapor/vapor.git", from: "4.111.0"),
        .package(url: "https://github.com/vapor/fluent.git", from: "4.12.0"),
        .package(url: "https://github.com/vapor/fluent-sqlite-driver.git", from: "4.8.0"),
        .package(url: "https://github.com/vapor/apns.git", from: "4.2.0"),
    ],
    targets: [
        .executableTarget(
            name: "VaporOrdersExample",
            dependencies: [
                .product(name: "VaporWalletOrders", package: "wallet"),
                .product(name: "Vapor", package: "vapor"),
                .product(name: "Fluent", package: "fluent"),
                .product(name: "FluentSQLiteDriver", package: "fluent-sqlite-driver"),
                .product(name: "VaporAPNS", package: "apns"),
            ]
        )
    ]
)
