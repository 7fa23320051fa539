import Foundation

/// What a store keeps of a signed package instead of the package: the signature value, and what it signed.
///
/// A package is the template's files, the order's assets, order.json, the manifest and a signature, and only the
/// signature needs the key: everything else follows from the order, its assets and the template, which the store
/// keeps anyway. So the store keeps this (a few hundred bytes, whatever the size of the template's images) and
/// `PackageBuilder.package(order:template:assets:seal:)` assembles the same bytes again when a package is asked
/// for. The manifest's digest and the certificates' digest say whether a seal still fits: once the template, the
/// order or the certificates change, it does not, and the package is built and signed again.
public struct PackageSeal: Sendable, Equatable {
    /// The signing time, in whole seconds since 1970: the signature's attribute and every zip timestamp.
    public let signingTime: Int64
    /// The SHA-256 of the manifest it signed.
    public let manifestDigest: [UInt8]
    /// The SHA-256 of the certificates the signature carries (`SigningIdentity.signerDigest`).
    public let signerDigest: [UInt8]
    /// The signature value.
    public let value: [UInt8]

    /// Marks a seal in storage, where a stored package (a zip, starting "PK") may be found instead: "WOSL", then the
    /// format's version.
    private static let magic: [UInt8] = Array("WOSL".utf8) + [1]
    private static let digestLength = 32

    public init(signingTime: Int64, manifestDigest: [UInt8], signerDigest: [UInt8], value: [UInt8]) {
        self.signingTime = signingTime
        self.manifestDigest = manifestDigest
        self.signerDigest = signerDigest
        self.value = value
    }

    /// The seal as stored: the magic, the signing time (8 bytes, big-endian), the two digests, the value.
    public var encoded: Data {
        var data = Data(Self.magic)
        withUnsafeBytes(of: signingTime.bigEndian) { data.append(contentsOf: $0) }
        data.append(contentsOf: manifestDigest)
        data.append(contentsOf: signerDigest)
        data.append(contentsOf: value)
        return data
    }

    /// The seal `encoded` made; nil for anything else (a whole package, for one).
    public init?(encoded data: Data) {
        let bytes = [UInt8](data)
        let fixed = Self.magic.count + 8 + 2 * Self.digestLength
        guard bytes.count > fixed, bytes.starts(with: Self.magic) else { return nil }
        var cursor = Self.magic.count
        func take(_ count: Int) -> [UInt8] {
            defer { cursor += count }
            return Array(bytes[cursor..<cursor + count])
        }
        signingTime = take(8).reduce(0) { $0 << 8 | Int64($1) }
        manifestDigest = take(Self.digestLength)
        signerDigest = take(Self.digestLength)
        value = Array(bytes[cursor...])
    }
}
