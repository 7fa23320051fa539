import CZip
import Foundation

extension ZipArchive {
    /// How much work an archive from elsewhere may ask of the reader: entries, inflated bytes, compression ratio.
    ///
    /// Sizes an archive declares are never trusted: the reader counts the bytes it inflates and stops at a limit.
    public struct ReadingLimits: Sendable, Equatable {
        /// The most entries, directories included.
        public var maxEntries: Int
        /// The most bytes one file may inflate to.
        public var maxEntryBytes: Int
        /// The most bytes all files together may inflate to.
        public var maxTotalBytes: Int
        /// The most a file may inflate relative to its compressed size, once it is past `ratioThreshold` bytes.
        public var maxRatio: Int
        /// The size below which a file may compress as well as it likes (a small strings file of spaces).
        public var ratioThreshold: Int

        /// Limits from the arguments.
        public init(maxEntries: Int, maxEntryBytes: Int, maxTotalBytes: Int, maxRatio: Int, ratioThreshold: Int) {
            self.maxEntries = maxEntries
            self.maxEntryBytes = maxEntryBytes
            self.maxTotalBytes = maxTotalBytes
            self.maxRatio = maxRatio
            self.ratioThreshold = ratioThreshold
        }

        /// The limits for an `.order` package. A real package holds a handful of files (order.json, a few images,
        /// a strings file per language) below Wallet's 5 MB; images do not compress, and text deflates 3 to 10
        /// times. A thousand entries, 8 MiB a file, 16 MiB in all and 100 to 1 leave room for any package Wallet
        /// accepts and none for a zip bomb.
        public static let package = ReadingLimits(
            maxEntries: 1_000,
            maxEntryBytes: 8 << 20,
            maxTotalBytes: 16 << 20,
            maxRatio: 100,
            ratioThreshold: 1 << 20
        )
    }

    /// What reading an archive from elsewhere found: the files it could read and everything wrong, one sentence each.
    public struct Contents: Sendable {
        /// The regular files read whole, in archive order; directory entries and refused entries are left out.
        public var entries: [Entry] = []
        /// Everything wrong with the archive, one sentence each; empty when every entry was read.
        public var problems: [String] = []
        /// How many bytes were inflated, kept or not: at most the total limit plus one read's buffer.
        public var bytesInflated = 0
        /// Whether the reader stopped before the end of the archive (unreadable, or past a limit).
        public var stoppedEarly = false
    }

    /// The size of one read from an entry.
    static let readBufferBytes = 64 << 10

    /// Reads every file of an archive that may be hostile, within `limits`, and lists every problem.
    ///
    /// Refuses, naming the entry: more than `maxEntries` entries (counted from the end-of-central-directory
    /// record before anything else is read), paths that are empty, absolute or climb out with `..`, backslashes,
    /// names that appear twice, symbolic links and other entries that are not regular files, encrypted entries,
    /// compression other than deflate or none, files that declare or inflate past the size and ratio limits,
    /// sizes or CRCs that disagree with the bytes, and truncated or inconsistent archives.
    public static func inspect(_ data: Data, limits: ReadingLimits = .package) -> Contents {
        data.withUnsafeBytes { bytes in
            var inspection = ArchiveInspection(bytes: bytes, limits: limits)
            return inspection.run()
        }
    }

    /// Every file in `data`, in archive order; directory entries are left out. Throws the first problem
    /// `inspect(_:limits:)` finds.
    public static func read(_ data: Data, limits: ReadingLimits = .package) throws -> [Entry] {
        let contents = inspect(data, limits: limits)
        if let problem = contents.problems.first { throw Failure(description: problem) }
        return contents.entries
    }
}

/// One pass over an archive's bytes, with libzip; owns the archive handle for the pass.
private struct ArchiveInspection {
    let bytes: UnsafeRawBufferPointer
    let limits: ZipArchive.ReadingLimits
    var contents = ZipArchive.Contents()

    init(bytes: UnsafeRawBufferPointer, limits: ZipArchive.ReadingLimits) {
        self.bytes = bytes
        self.limits = limits
    }

    mutating func run() -> ZipArchive.Contents {
        guard !bytes.isEmpty else {
            return stop(["the file is empty, not a zip archive"])
        }
        if let declared = EndOfCentralDirectory.largestEntryCount(in: bytes), declared > UInt64(limits.maxEntries) {
            return stop([Self.tooManyEntries(declared, limits)])
        }
        let archive: OpaquePointer
        switch open(checkingConsistency: true) {
        case .success(let opened): archive = opened
        case .failure(let code, let reason):
            if code == ZIP_ER_EXISTS, case .success(let lenient) = open(checkingConsistency: false) {
                // libzip refuses a name that appears twice without saying which: look again without the check.
                defer { zip_discard(lenient) }
                return stop(duplicateNames(in: lenient))
            }
            return stop([Self.openProblem(code: code, reason: reason)])
        }
        defer { zip_discard(archive) }
        let count = zip_get_num_entries(archive, 0)
        guard count >= 0, count <= Int64(limits.maxEntries) else {
            return stop([Self.tooManyEntries(UInt64(max(count, 0)), limits)])
        }
        var total = 0
        for index in 0..<zip_uint64_t(count) {
            guard read(entry: index, of: archive, total: &total) else {
                contents.stoppedEarly = true
                break
            }
        }
        return contents
    }

    private enum Opened {
        case success(OpaquePointer)
        case failure(code: Int32, reason: String)
    }

    private func open(checkingConsistency: Bool) -> Opened {
        var error = zip_error_t()
        zip_error_init(&error)
        defer { zip_error_fini(&error) }
        guard let source = zip_source_buffer_create(bytes.baseAddress, zip_uint64_t(bytes.count), 0, &error) else {
            return .failure(code: zip_error_code_zip(&error), reason: String(cString: zip_error_strerror(&error)))
        }
        let flags = ZIP_RDONLY | (checkingConsistency ? ZIP_CHECKCONS : 0)
        guard let archive = zip_open_from_source(source, flags, &error) else {
            zip_source_free(source)
            return .failure(code: zip_error_code_zip(&error), reason: String(cString: zip_error_strerror(&error)))
        }
        return .success(archive)
    }

    /// Reads entry `index` into `contents`; false when reading must stop.
    private mutating func read(entry index: zip_uint64_t, of archive: OpaquePointer, total: inout Int) -> Bool {
        var stat = zip_stat_t()
        zip_stat_init(&stat)
        guard zip_stat_index(archive, index, 0, &stat) == 0, let namePointer = stat.name else {
            contents.problems.append("entry \(index) of the archive cannot be read: \(Self.entryReason(archiveError: archive))")
            return false
        }
        let name = String(cString: namePointer)
        if let problem = Self.pathProblem(name) {
            contents.problems.append(problem)
            return true
        }
        var system: zip_uint8_t = 0
        var attributes: zip_uint32_t = 0
        if zip_file_get_external_attributes(archive, index, 0, &system, &attributes) == 0,
            let problem = Self.fileTypeProblem(name, system: system, attributes: attributes)
        {
            contents.problems.append(problem)
            return true
        }
        if name.hasSuffix("/") { return true }
        if stat.encryption_method != UInt16(ZIP_EM_NONE) {
            contents.problems.append("\(name) is encrypted; Wallet reads no encrypted files")
            return true
        }
        if stat.comp_method != ZIP_CM_STORE, stat.comp_method != ZIP_CM_DEFLATE {
            contents.problems.append(
                "\(name) is compressed with method \(stat.comp_method); "
                    + "a package holds deflated or stored files only"
            )
            return true
        }
        let declared = stat.size
        // No entry holds more compressed bytes than the archive has, whatever it declares.
        let compressed = Int(min(stat.comp_size, UInt64(bytes.count)))
        if declared > UInt64(limits.maxEntryBytes) {
            contents.problems.append(
                "\(name) declares \(declared) bytes uncompressed, more than the "
                    + "\(limits.maxEntryBytes) a file in a package may have"
            )
            return false
        }
        if Int(declared) > limits.ratioThreshold, Int(declared) > max(compressed, 1) * limits.maxRatio {
            contents.problems.append(Self.ratioProblem(name, compressed: compressed, limits))
            return false
        }
        guard let file = zip_fopen_index(archive, index, 0) else {
            contents.problems.append("\(name) cannot be opened: \(Self.entryReason(archiveError: archive))")
            return false
        }
        defer { zip_fclose(file) }
        // Room for what the entry declares, which the limits above bound; a lie only costs regrowth to the limit.
        var data = Data(capacity: Int(declared))
        var buffer = [UInt8](repeating: 0, count: ZipArchive.readBufferBytes)
        while true {
            let read = buffer.withUnsafeMutableBytes { zip_fread(file, $0.baseAddress, zip_uint64_t($0.count)) }
            if read < 0 {
                contents.problems.append("\(name) cannot be read: \(Self.entryReason(file: file))")
                return false
            }
            if read == 0 { break }
            contents.bytesInflated += Int(read)
            data.append(buffer, count: Int(read))
            if data.count > limits.maxEntryBytes {
                contents.problems.append(
                    "\(name) inflates to more than \(limits.maxEntryBytes) bytes, "
                        + "the most a file in a package may have"
                )
                return false
            }
            if total + data.count > limits.maxTotalBytes {
                contents.problems.append(
                    "the archive inflates to more than \(limits.maxTotalBytes) bytes, "
                        + "the most a package may hold"
                )
                return false
            }
            if data.count > limits.ratioThreshold, data.count > max(compressed, 1) * limits.maxRatio {
                contents.problems.append(Self.ratioProblem(name, compressed: compressed, limits))
                return false
            }
        }
        if UInt64(data.count) != declared {
            contents.problems.append(
                "\(name) holds \(data.count) bytes but the archive declares \(declared): "
                    + "the archive is corrupt"
            )
            return false
        }
        total += data.count
        contents.entries.append(ZipArchive.Entry(path: name, data: data))
        return true
    }

    /// A problem for each name that appears more than once, in archive order, from an archive libzip opened
    /// without its consistency check.
    private func duplicateNames(in archive: OpaquePointer) -> [String] {
        var seen: Set<String> = []
        var repeated: [String] = []
        for index in 0..<zip_uint64_t(max(zip_get_num_entries(archive, 0), 0)) {
            guard let pointer = zip_get_name(archive, index, 0) else { continue }
            let name = String(cString: pointer)
            if !seen.insert(name).inserted, !repeated.contains(name) { repeated.append(name) }
        }
        guard !repeated.isEmpty else { return ["the archive names a file twice"] }
        return repeated.map { "\($0) appears more than once in the archive" }
    }

    private mutating func stop(_ problems: [String]) -> ZipArchive.Contents {
        contents.problems += problems
        contents.stoppedEarly = true
        return contents
    }

    static func tooManyEntries(_ count: UInt64, _ limits: ZipArchive.ReadingLimits) -> String {
        "the archive has \(count) entries; a package holds a handful of files, and at most \(limits.maxEntries) "
            + "are read"
    }

    static func ratioProblem(_ name: String, compressed: Int, _ limits: ZipArchive.ReadingLimits) -> String {
        "\(name) inflates more than \(limits.maxRatio) times its \(compressed) compressed bytes: a zip bomb, "
            + "not a file of a package"
    }

    /// Why a name cannot be a path inside a package, or nil when it can.
    static func pathProblem(_ name: String) -> String? {
        if name.isEmpty { return "the archive holds an entry with an empty name" }
        if name.hasPrefix("/") { return "\(name) is an absolute path; paths in a package are relative" }
        if name.contains("\\") { return "\(name) has a backslash; paths in a package use / between folders" }
        if let first = name.unicodeScalars.first, ("a"..."z").contains(first) || ("A"..."Z").contains(first),
            name.unicodeScalars.dropFirst().first == ":"
        {
            return "\(name) starts with a drive letter; paths in a package are relative"
        }
        if name.split(separator: "/", omittingEmptySubsequences: false).contains("..") {
            return "\(name) climbs out of the package with ..; paths in a package stay inside it"
        }
        return nil
    }

    /// Why an entry is not a regular file or directory, or nil when it is. Only Unix archivers write a file type.
    static func fileTypeProblem(_ name: String, system: zip_uint8_t, attributes: zip_uint32_t) -> String? {
        guard UInt32(system) == ZIP_OPSYS_UNIX else { return nil }
        let type = attributes >> 16 & 0o170000
        switch type {
        case 0, 0o100000, 0o040000: return nil
        case 0o120000: return "\(name) is a symbolic link; a package holds regular files only"
        default:
            return "\(name) is not a regular file (Unix type \(String(type, radix: 8))); a package holds regular "
                + "files only"
        }
    }

    static func openProblem(code: Int32, reason: String) -> String {
        switch code {
        case ZIP_ER_NOZIP:
            "not a zip archive: it has no end-of-central-directory record (a truncated file, or not a zip at all)"
        case ZIP_ER_INCONS:
            "the zip archive is inconsistent: its central directory disagrees with its entries (truncated or altered)"
        case ZIP_ER_EOF, ZIP_ER_READ, ZIP_ER_SEEK:
            "the zip archive ends early: it is truncated"
        case ZIP_ER_MULTIDISK: "the zip archive spans several disks; a package is one file"
        default: "not a readable zip archive: \(reason)"
        }
    }

    static func entryReason(archiveError archive: OpaquePointer) -> String {
        reason(zip_get_error(archive))
    }

    static func entryReason(file: OpaquePointer) -> String {
        reason(zip_file_get_error(file))
    }

    private static func reason(_ error: UnsafeMutablePointer<zip_error_t>?) -> String {
        guard let error else { return "unknown error" }
        switch zip_error_code_zip(error) {
        case ZIP_ER_CRC: return "its bytes fail their CRC check (the archive is corrupt)"
        case ZIP_ER_ZLIB, ZIP_ER_COMPRESSED_DATA: return "its compressed data is corrupt"
        case ZIP_ER_EOF, ZIP_ER_READ, ZIP_ER_SEEK: return "the archive ends before its data (truncated)"
        case ZIP_ER_INCONS: return "its local header disagrees with the central directory (truncated or altered)"
        case ZIP_ER_ENCRNOTSUPP, ZIP_ER_NOPASSWD: return "it is encrypted"
        case ZIP_ER_COMPNOTSUPP: return "its compression method is not supported"
        default: return String(cString: zip_error_strerror(error))
        }
    }
}

/// The end-of-central-directory records of an archive, read before libzip builds anything from them.
private enum EndOfCentralDirectory {
    static let signature: [UInt8] = [0x50, 0x4b, 0x05, 0x06]
    static let zip64LocatorSignature: [UInt8] = [0x50, 0x4b, 0x06, 0x07]
    static let zip64Signature: [UInt8] = [0x50, 0x4b, 0x06, 0x06]
    static let length = 22
    static let maxCommentLength = 0xffff

    /// The largest entry count any end-of-central-directory record in the archive's tail declares (its Zip64
    /// record's when it has one), or nil when there is none. Every candidate counts: libzip may choose any of them.
    static func largestEntryCount(in bytes: UnsafeRawBufferPointer) -> UInt64? {
        guard bytes.count >= length else { return nil }
        let start = max(0, bytes.count - length - maxCommentLength)
        var largest: UInt64?
        for offset in stride(from: bytes.count - length, through: start, by: -1)
        where matches(signature, in: bytes, at: offset) {
            var count = UInt64(max(uint16(bytes, offset + 8), uint16(bytes, offset + 10)))
            let locator = offset - 20
            if locator >= 0, matches(zip64LocatorSignature, in: bytes, at: locator) {
                let record = uint64(bytes, locator + 8)
                if bytes.count >= 56, record <= UInt64(bytes.count - 56),
                    matches(zip64Signature, in: bytes, at: Int(record))
                {
                    count = max(count, uint64(bytes, Int(record) + 24), uint64(bytes, Int(record) + 32))
                }
            }
            largest = max(largest ?? 0, count)
        }
        return largest
    }

    private static func matches(_ signature: [UInt8], in bytes: UnsafeRawBufferPointer, at offset: Int) -> Bool {
        offset >= 0 && offset + signature.count <= bytes.count
            && signature.indices.allSatisfy { bytes[offset + $0] == signature[$0] }
    }

    private static func uint16(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt16 {
        UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }

    private static func uint64(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt64 {
        (0..<8).reduce(0) { $0 | UInt64(bytes[offset + $1]) << (8 * $1) }
    }
}
