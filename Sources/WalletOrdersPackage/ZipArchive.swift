import CZip
import Foundation

/// A zip archive held in memory, written and read with libzip.
public enum ZipArchive {
    /// One file in an archive.
    public struct Entry: Sendable, Equatable {
        public let path: String
        public let data: Data

        public init(path: String, data: Data) {
            self.path = path
            self.data = data
        }
    }

    /// A failure reading or writing an archive.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    /// A deflated archive of `entries`, in the given order, every entry stamped `modified` (UTC), so the same
    /// entries and time always give the same bytes.
    public static func write(_ entries: [Entry], modified: Date) throws -> Data {
        var error = zip_error_t()
        zip_error_init(&error)
        defer { zip_error_fini(&error) }
        guard let source = zip_source_buffer_create(nil, 0, 0, &error) else {
            throw Failure(description: "creating an archive: \(String(cString: zip_error_strerror(&error)))")
        }
        // The archive takes the source; keeping a reference lets the bytes be read back after zip_close.
        zip_source_keep(source)
        defer { zip_source_free(source) }
        guard let archive = zip_open_from_source(source, ZIP_TRUNCATE, &error) else {
            zip_source_free(source)
            throw Failure(description: "creating an archive: \(String(cString: zip_error_strerror(&error)))")
        }
        let (time, date) = dosTimestamp(modified)
        for entry in entries {
            // libzip reads entry bytes at zip_close, so each gets a copy that libzip frees itself.
            let copy = malloc(max(entry.data.count, 1))!
            entry.data.copyBytes(to: copy.assumingMemoryBound(to: UInt8.self), count: entry.data.count)
            guard let entrySource = zip_source_buffer(archive, copy, zip_uint64_t(entry.data.count), 1) else {
                free(copy)
                zip_discard(archive)
                throw Failure(description: "adding \(entry.path) to the archive")
            }
            let index = zip_file_add(archive, entry.path, entrySource, ZIP_FL_ENC_UTF_8)
            guard index >= 0,
                  zip_file_set_dostime(archive, zip_uint64_t(index), time, date, 0) == 0,
                  zip_set_file_compression(archive, zip_uint64_t(index), ZIP_CM_DEFLATE, 0) == 0
            else {
                if index < 0 { zip_source_free(entrySource) }
                let reason = String(cString: zip_strerror(archive))
                zip_discard(archive)
                throw Failure(description: "adding \(entry.path) to the archive: \(reason)")
            }
        }
        guard zip_close(archive) == 0 else {
            let reason = String(cString: zip_strerror(archive))
            zip_discard(archive)
            throw Failure(description: "writing the archive: \(reason)")
        }
        return try readAll(source)
    }

    /// Every file in `data`, in archive order; directory entries are left out.
    ///
    /// Refuses archives with more than `maxEntries` entries or whose files add up to more than
    /// `maxUncompressedBytes` once inflated. libzip checks each file's CRC as it reads it.
    public static func read(_ data: Data, maxEntries: Int = 1_000, maxUncompressedBytes: Int = 64 << 20) throws -> [Entry] {
        try data.withUnsafeBytes { raw in
            var error = zip_error_t()
            zip_error_init(&error)
            defer { zip_error_fini(&error) }
            guard let source = zip_source_buffer_create(raw.baseAddress, zip_uint64_t(raw.count), 0, &error) else {
                throw Failure(description: "reading the archive: \(String(cString: zip_error_strerror(&error)))")
            }
            guard let archive = zip_open_from_source(source, ZIP_RDONLY | ZIP_CHECKCONS, &error) else {
                zip_source_free(source)
                throw Failure(description: "not a readable zip archive: \(String(cString: zip_error_strerror(&error)))")
            }
            defer { zip_discard(archive) }
            let count = zip_get_num_entries(archive, 0)
            guard count <= maxEntries else {
                throw Failure(description: "the archive has \(count) entries, more than the \(maxEntries) allowed")
            }
            var entries: [Entry] = []
            var total = 0
            for index in 0..<zip_uint64_t(max(count, 0)) {
                var stat = zip_stat_t()
                zip_stat_init(&stat)
                guard zip_stat_index(archive, index, 0, &stat) == 0, let namePointer = stat.name else {
                    throw Failure(description: "reading entry \(index) of the archive")
                }
                let name = String(cString: namePointer)
                if name.hasSuffix("/") { continue }
                total += Int(stat.size)
                guard total <= maxUncompressedBytes else {
                    throw Failure(description: "the archive inflates to more than \(maxUncompressedBytes) bytes")
                }
                guard let file = zip_fopen_index(archive, index, 0) else {
                    throw Failure(description: "opening \(name) in the archive: \(String(cString: zip_strerror(archive)))")
                }
                defer { zip_fclose(file) }
                var bytes = Data(count: Int(stat.size))
                let read = bytes.withUnsafeMutableBytes { zip_fread(file, $0.baseAddress, stat.size) }
                guard read == Int64(stat.size) else {
                    throw Failure(description: "reading \(name) in the archive: \(String(cString: zip_file_strerror(file)))")
                }
                // The CRC is only checked once the reader reaches the end of the file.
                var probe: UInt8 = 0
                guard zip_fread(file, &probe, 1) == 0 else {
                    throw Failure(description: "reading \(name) in the archive: \(String(cString: zip_file_strerror(file)))")
                }
                entries.append(Entry(path: name, data: bytes))
            }
            return entries
        }
    }

    private static func readAll(_ source: OpaquePointer) throws -> Data {
        guard zip_source_open(source) == 0 else { throw Failure(description: "reading back the archive") }
        defer { zip_source_close(source) }
        guard zip_source_seek(source, 0, SEEK_END) == 0 else { throw Failure(description: "reading back the archive") }
        let size = zip_source_tell(source)
        guard size >= 0, zip_source_seek(source, 0, SEEK_SET) == 0 else {
            throw Failure(description: "reading back the archive")
        }
        var data = Data(count: Int(size))
        let read = data.withUnsafeMutableBytes { zip_source_read(source, $0.baseAddress, zip_uint64_t(size)) }
        guard read == size else { throw Failure(description: "reading back the archive") }
        return data
    }

    /// MS-DOS time and date fields for `date` in UTC (two-second resolution, years 1980 to 2107).
    private static func dosTimestamp(_ date: Date) -> (UInt16, UInt16) {
        let text = RFC3339Parts(date)
        let year = min(max(text.year, 1980), 2107)
        let time = UInt16(text.hour << 11 | text.minute << 5 | text.second / 2)
        let day = UInt16((year - 1980) << 9 | text.month << 5 | text.day)
        return (time, day)
    }
}

/// The calendar fields of a UTC date.
private struct RFC3339Parts {
    let year, month, day, hour, minute, second: Int

    init(_ date: Date) {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        year = Int(parts.tm_year) + 1900
        month = Int(parts.tm_mon) + 1
        day = Int(parts.tm_mday)
        hour = Int(parts.tm_hour)
        minute = Int(parts.tm_min)
        second = Int(parts.tm_sec)
    }
}
