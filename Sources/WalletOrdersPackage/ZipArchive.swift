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
            guard let copy = malloc(max(entry.data.count, 1)) else {
                zip_discard(archive)
                throw Failure(description: "no memory for \(entry.path)")
            }
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
