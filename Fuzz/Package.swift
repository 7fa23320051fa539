// swift-tools-version: 6.1
import PackageDescription

// libFuzzer targets over the parts of wallet-orders that read what others wrote. Kept out of the main package
// so that `swift build` and `make test` never see them; `Fuzz/fuzz.sh` builds them with `-sanitize=fuzzer`
// (each executable's main hands its function to libFuzzer's driver) and runs them. See RELIABILITY.md.
let package = Package(
    name: "wallet-orders-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "wallet-orders", path: "..")
    ],
    targets: [
        // The declaration of libFuzzer's driver, which the runtime linked by -sanitize=fuzzer defines.
        .target(name: "CFuzzer"),
        // order.json: parsing, serialization, the validator, the typed view.
        .executableTarget(
            name: "FuzzOrderValidator",
            dependencies: ["CFuzzer", .product(name: "WalletOrdersModel", package: "wallet-orders")]
        ),
        // The JSON merge patch (RFC 7396) that PATCH applies, and template defaults.
        .executableTarget(
            name: "FuzzMergePatch",
            dependencies: ["CFuzzer", .product(name: "WalletOrdersModel", package: "wallet-orders")]
        ),
        // order.strings files and the localization check.
        .executableTarget(
            name: "FuzzStringsFile",
            dependencies: ["CFuzzer", .product(name: "WalletOrdersModel", package: "wallet-orders")]
        ),
        // `verify` on raw bytes: the bounded zip reader and everything after it.
        .executableTarget(
            name: "FuzzPackageArchive",
            dependencies: ["CFuzzer", .product(name: "WalletOrdersPackage", package: "wallet-orders")]
        ),
        // Tracking events from outside: AfterShip's and EasyPost's payloads, signed, and the tracking events API's
        // objects, then each event applied to a fulfillment; the input and each event's number as a tracking number whose
        // carrier is recognised and filled into a fulfillment.
        .executableTarget(
            name: "FuzzTrackingPayloads",
            dependencies: [
                "CFuzzer",
                .product(name: "WalletOrdersTracking", package: "wallet-orders"),
                .product(name: "WalletOrdersModel", package: "wallet-orders"),
            ]
        ),
        // `verify` on well-formed, signed zips of fuzzed files: manifest, order.json, localizations, signature.
        .executableTarget(
            name: "FuzzPackageFiles",
            dependencies: [
                "CFuzzer",
                .product(name: "WalletOrdersPackage", package: "wallet-orders"),
                .product(name: "WalletOrdersModel", package: "wallet-orders"),
            ]
        ),
    ]
)
