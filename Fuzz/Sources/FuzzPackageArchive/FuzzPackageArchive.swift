import Foundation
import WalletOrdersPackage

/// One input: any bytes as an `.order` file handed to `verify`.
///
/// Properties besides not crashing: the reader never inflates more than its limits plus one read's buffer,
/// keeps only paths a package may name, and a problem always comes with an invalid report.
func fuzzPackageArchive(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let bytes else { return 0 }
    let data = Data(bytes: bytes, count: count)
    let limits = ZipArchive.ReadingLimits.package
    let contents = ZipArchive.inspect(data)
    precondition(contents.bytesInflated <= limits.maxTotalBytes + (64 << 10), "inflated past the limit")
    precondition(contents.entries.count <= limits.maxEntries, "more entries than the limit")
    precondition(contents.entries.reduce(0) { $0 + $1.data.count } <= limits.maxTotalBytes, "kept past the limit")
    for entry in contents.entries {
        precondition(
            !entry.path.hasPrefix("/") && !entry.path.contains("\\")
                && !entry.path.split(separator: "/").contains(".."),
            "an unsafe path was kept: \(entry.path)"
        )
    }
    let report = PackageVerifier.verify(data)
    precondition(contents.problems.isEmpty || !report.isValid, "a problem in the archive left the package valid")
    return 0
}
