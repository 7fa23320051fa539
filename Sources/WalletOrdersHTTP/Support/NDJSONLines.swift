import NIOCore

/// The lines of a body of newline-delimited JSON as the body arrives, one at a time: never more of it in memory
/// than the line being read, up to `limit` bytes, and the chunk it came in.
///
/// Lines end with `\n` (a `\r` before it is the line's, and JSON ignores it as it ignores spaces); the last line may
/// end without one. Blank lines (nothing but spaces, tabs and `\r`) are skipped but counted, so that numbers are
/// those an editor shows. A line longer than `limit` is not kept: its bytes are dropped as they come, and it is
/// answered `tooLong`.
struct NDJSONLines<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable where Base.Element == ByteBuffer {
    typealias Element = Line
    let base: Base
    let limit: Int

    enum Line: Equatable, Sendable {
        /// A line's bytes, without its `\n`.
        case text(number: Int, ByteBuffer)
        /// A line longer than the limit.
        case tooLong(number: Int)

        var number: Int {
            switch self {
            case .text(let number, _), .tooLong(let number): number
            }
        }
    }

    init(_ base: Base, limit: Int) {
        self.base = base
        self.limit = limit
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), limit: limit)
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        let limit: Int
        /// What is left of the last chunk read.
        private var chunk: ByteBuffer?
        /// The line read so far.
        private var line = ByteBuffer()
        /// The line read so far passed the limit: the rest of it is dropped.
        private var overflowed = false
        /// The number of the line being read.
        private var number = 1
        private var ended = false

        init(base: Base.AsyncIterator, limit: Int) {
            self.base = base
            self.limit = limit
        }

        mutating func next() async throws -> Line? {
            while true {
                if var rest = chunk {
                    chunk = nil
                    if let newline = rest.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) {
                        append(rest.readSlice(length: newline - rest.readerIndex)!)
                        rest.moveReaderIndex(forwardBy: 1)
                        if rest.readableBytes > 0 { chunk = rest }
                        if let ended = endLine() { return ended }
                    } else {
                        append(rest)
                    }
                    continue
                }
                if ended { return nil }
                guard let next = try await base.next() else {
                    ended = true
                    return endLine()
                }
                chunk = next
            }
        }

        private mutating func append(_ bytes: ByteBuffer) {
            guard !overflowed else { return }
            guard line.readableBytes + bytes.readableBytes <= limit else {
                overflowed = true
                // Let go of what was kept of it.
                line = ByteBuffer()
                return
            }
            var bytes = bytes
            line.writeBuffer(&bytes)
        }

        /// The line read so far, ended; nil when it is blank.
        private mutating func endLine() -> Line? {
            defer {
                number += 1
                overflowed = false
                line.clear()
            }
            if overflowed { return .tooLong(number: number) }
            let blank = line.readableBytesView.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0d }
            return blank ? nil : .text(number: number, line)
        }
    }
}
