import CZip
import Foundation

/// Raw deflate (RFC 1951) and CRC-32 through zlib, for the entries of the packages `ZipWriter` writes.
enum Deflate {
    /// How hard zlib tries.
    enum Effort {
        /// Compressed once and kept (template files): zlib's best.
        case best
        /// Compressed for each package (order.json, manifest.json): zlib's default level with a window and hash
        /// no larger than the input needs, so a small file does not pay for a 256 KiB state.
        case perPackage
    }

    /// `bytes` as raw deflate blocks, or nil if zlib fails (it only fails for want of memory).
    ///
    /// With `final`, the blocks end the stream; without, they end with a sync flush (an empty stored block), byte
    /// aligned and not final, so more blocks can follow them in the same stream.
    static func compress(_ bytes: UnsafeRawBufferPointer, effort: Effort, final: Bool = true) -> [UInt8]? {
        let windowBits: Int32
        let memoryLevel: Int32
        let level: Int32
        switch effort {
        case .best:
            (level, windowBits, memoryLevel) = (9, 15, 9)
        case .perPackage:
            // A window as large as the input finds every match a 32 KiB one would.
            var bits: Int32 = 9
            while bits < 15 && 1 << bits < bytes.count { bits += 1 }
            (level, windowBits, memoryLevel) = (6, bits, min(8, bits - 6))
        }
        var stream = z_stream()
        // Negative window bits: raw deflate, no zlib header or trailer, as zip entries hold it.
        guard wo_deflateInit2(&stream, level, -windowBits, memoryLevel) == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        // deflateBound covers a finished stream; a sync flush adds at most an empty stored block and a partial byte.
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(bytes.count))) + 16)
        let (status, written) = output.withUnsafeMutableBufferPointer { out -> (Int32, Int) in
            stream.next_in = UnsafeMutablePointer(mutating: bytes.baseAddress?.assumingMemoryBound(to: Bytef.self))
            stream.avail_in = uInt(bytes.count)
            stream.next_out = out.baseAddress
            stream.avail_out = uInt(out.count)
            let status = deflate(&stream, final ? Z_FINISH : Z_SYNC_FLUSH)
            return (status, out.count - Int(stream.avail_out))
        }
        guard status == (final ? Z_STREAM_END : Z_OK), stream.avail_in == 0 else { return nil }
        output.removeLast(output.count - written)
        return output
    }

    /// `bytes` as stored (uncompressed) deflate blocks: each a byte-aligned header and up to 65,535 bytes as they
    /// are, so they can follow a sync flush without any compression work.
    static func stored(_ bytes: [UInt8], final: Bool) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + 5 * (bytes.count / 0xffff + 1))
        var start = 0
        repeat {
            let end = min(start + 0xffff, bytes.count)
            let length = UInt16(end - start)
            // BFINAL in bit 0, BTYPE 00 (stored) in bits 1 and 2, the rest of the byte padding (RFC 1951 3.2.4).
            output.append(final && end == bytes.count ? 1 : 0)
            output += [UInt8(length & 0xff), UInt8(length >> 8), UInt8(~length & 0xff), UInt8(~length >> 8)]
            output += bytes[start..<end]
            start = end
        } while start < bytes.count
        return output
    }

    /// The CRC-32 zip uses, continuing from `crc` (0 to start).
    static func crc32(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) -> UInt32 {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return crc }
        return UInt32(CZip.crc32_z(uLong(crc), base.assumingMemoryBound(to: Bytef.self), bytes.count))
    }
}
