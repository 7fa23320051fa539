extension PackagePath {
    /// The paths of a package as Apple's file systems tell them apart, to find two different paths that name one
    /// file.
    ///
    /// APFS and HFS+, as Apple formats them, compare names without letter case and without Unicode normalization
    /// (é as one scalar, NFC, or as e and a combining accent, NFD): `A.png` and `a.png` unpack to one file, and which
    /// of the two Wallet then reads is anyone's guess. A path added twice exactly is no collision: that is a file
    /// replaced (an order's own `logo.png` over its template's).
    public struct FileSystemNames: Sendable {
        /// Each path added, under its key: lowercased, and compared as Swift compares strings, which is by
        /// canonical equivalence, so the key sets case and normalization aside.
        private var claimed: [String: (path: String, label: String)] = [:]

        /// No paths yet.
        public init() {}

        /// Adds `path`, which a problem names as `label` (`the template's a.png`); nil when it names a file of its
        /// own, or the same path again. When it collides with a path added before, it is not added, and the
        /// problem says with which and why.
        public mutating func add(_ path: String, label: String? = nil) -> String? {
            let key = path.lowercased()
            guard let other = claimed[key] else {
                claimed[key] = (path, label ?? path)
                return nil
            }
            if other.path.unicodeScalars.elementsEqual(path.unicodeScalars) { return nil }
            let sameLetters = other.path.lowercased().unicodeScalars.elementsEqual(key.unicodeScalars)
            let sameCase = other.path == path
            if sameLetters {
                return "collides with \(other.label) on case-insensitive file systems, such as Apple's"
            }
            if sameCase {
                return "collides with \(other.label), the same name in another Unicode normalization form (NFC, NFD), "
                    + "which Apple's file systems do not tell apart"
            }
            return "collides with \(other.label) on Apple's file systems, which tell neither letter case nor Unicode "
                + "normalization forms (NFC, NFD) apart"
        }
    }
}
