import Foundation

/// Writes the zip archive of a package from entries whose bytes are ready: local headers, entry bytes, central
/// directory and end record (PKWARE APPNOTE 6.3), nothing else, so the same entries and time always give the
/// same bytes.
///
/// Entries arrive compressed (a template's files once, when the template loads; order.json and manifest.json for
/// each package), so writing is copying bytes into one buffer. No Zip64, no extra fields, no comments: a package
/// stays far below 4 GiB and 65,535 entries, and Wallet needs none of them.
enum ZipWriter {
    /// One file's bytes as an archive holds them, with what its headers say about them.
    struct Body: Sendable, Equatable {
        /// The compression method: 0 stored, 8 deflated.
        let method: UInt16
        /// The CRC-32 of the file's bytes.
        let crc32: UInt32
        /// The file's size.
        let size: Int
        /// The bytes in the archive: the deflate stream, or the file itself when stored.
        let bytes: [UInt8]

        /// `data` deflated with `effort`, or stored when deflating would not make it smaller, as `zip` does (or
        /// when zlib cannot get the memory it needs).
        init(compressing data: Data, effort: Deflate.Effort) {
            let (crc, deflated) = data.withUnsafeBytes { raw in
                (Deflate.crc32(raw), Deflate.compress(raw, effort: effort))
            }
            self.init(crc32: crc, size: data.count, deflated: deflated, original: { [UInt8](data) })
        }

        /// A deflated body from deflate blocks made elsewhere, or stored when they are not smaller than the file.
        ///
        /// `runs` are the file's bytes in order, each paired with its blocks when they were compressed ahead
        /// (sync flushed, not final); runs without are written as stored blocks. Lets the part of a file that is
        /// the same in every package (the certificates in a signature) be compressed once.
        init(runs: [(bytes: [UInt8], deflated: [UInt8]?)]) {
            var crc: UInt32 = 0
            var size = 0
            var deflated: [UInt8] = []
            for (index, run) in runs.enumerated() {
                crc = run.bytes.withUnsafeBytes { Deflate.crc32($0, continuing: crc) }
                size += run.bytes.count
                let isLast = index == runs.count - 1
                if let blocks = run.deflated, !isLast {
                    deflated += blocks
                } else {
                    deflated += Deflate.stored(run.bytes, final: isLast)
                }
            }
            self.init(crc32: crc, size: size, deflated: deflated, original: { Array(runs.map(\.bytes).joined()) })
        }

        private init(crc32: UInt32, size: Int, deflated: [UInt8]?, original: () -> [UInt8]) {
            self.crc32 = crc32
            self.size = size
            if let deflated, deflated.count < size {
                method = 8
                bytes = deflated
            } else {
                method = 0
                bytes = original()
            }
        }
    }

    /// One entry: where it goes in the archive and its bytes.
    struct Member {
        let path: String
        let body: Body
    }

    /// The archive of `members`, in order, every entry stamped `modified` (UTC, to two seconds).
    static func write(_ members: [Member], modified: Date) throws -> Data {
        guard members.count <= 0xffff else { throw failure("the archive would have more than 65,535 entries") }
        let (time, date) = dosTimestamp(modified)
        let names = members.map { Array($0.path.utf8) }
        var total = 22
        for (member, name) in zip(members, names) {
            guard name.count <= 0xffff else { throw failure("the name \(member.path) is too long for a zip entry") }
            total += 30 + 46 + 2 * name.count + member.body.bytes.count
        }
        guard total <= Int(UInt32.max) else { throw failure("the archive would be larger than 4 GiB") }

        var out: [UInt8] = []
        out.reserveCapacity(total)
        var offsets: [Int] = []
        offsets.reserveCapacity(members.count)
        for (member, name) in zip(members, names) {
            offsets.append(out.count)
            out.le32(0x0403_4b50)
            fields(member.body, name: name, time: time, date: date, into: &out)
            out += name
            out += member.body.bytes
        }
        let directoryStart = out.count
        for ((member, name), offset) in zip(zip(members, names), offsets) {
            out.le32(0x0201_4b50)
            // Made by: Unix (3) and zip 2.0, so the external attributes below are Unix modes.
            out.le16(3 << 8 | 20)
            fields(member.body, name: name, time: time, date: date, into: &out)
            out.le16(0)  // comment length
            out.le16(0)  // disk number
            out.le16(0)  // internal attributes
            out.le32(0o100644 << 16)  // a regular file, rw-r--r--
            out.le32(UInt32(offset))
            out += name
        }
        let directorySize = out.count - directoryStart
        out.le32(0x0605_4b50)
        out.le16(0)  // this disk
        out.le16(0)  // the disk the directory starts on
        out.le16(UInt16(members.count))
        out.le16(UInt16(members.count))
        out.le32(UInt32(directorySize))
        out.le32(UInt32(directoryStart))
        out.le16(0)  // comment length
        return Data(out)
    }

    /// The fields the local header and the central directory share, from "version needed" to "extra field length".
    private static func fields(_ body: Body, name: [UInt8], time: UInt16, date: UInt16, into out: inout [UInt8]) {
        out.le16(body.method == 8 ? 20 : 10)  // version needed: 2.0 for deflate, 1.0 for stored
        // Bit 11: the name is UTF-8; set only when it is not plain ASCII, as libzip does.
        out.le16(name.allSatisfy { $0 < 0x80 } ? 0 : 1 << 11)
        out.le16(body.method)
        out.le16(time)
        out.le16(date)
        out.le32(body.crc32)
        out.le32(UInt32(body.bytes.count))
        out.le32(UInt32(body.size))
        out.le16(UInt16(name.count))
        out.le16(0)  // extra field length
    }

    private static func failure(_ description: String) -> ZipArchive.Failure {
        ZipArchive.Failure(description: description)
    }

    /// MS-DOS time and date fields for `date` in UTC (two-second resolution, years 1980 to 2107).
    static func dosTimestamp(_ date: Date) -> (time: UInt16, date: UInt16) {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let year = min(max(Int(parts.tm_year) + 1900, 1980), 2107)
        let time = UInt16(Int(parts.tm_hour) << 11 | Int(parts.tm_min) << 5 | Int(parts.tm_sec) / 2)
        let day = UInt16((year - 1980) << 9 | Int(parts.tm_mon + 1) << 5 | Int(parts.tm_mday))
        return (time, day)
    }
}

extension [UInt8] {
    fileprivate mutating func le16(_ value: UInt16) {
        append(UInt8(value & 0xff))
        append(UInt8(value >> 8))
    }

    fileprivate mutating func le32(_ value: UInt32) {
        append(UInt8(value & 0xff))
        append(UInt8(value >> 8 & 0xff))
        append(UInt8(value >> 16 & 0xff))
        append(UInt8(value >> 24))
    }
}
