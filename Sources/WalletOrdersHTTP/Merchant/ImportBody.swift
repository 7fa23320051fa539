import Foundation
import NIOCore
import WalletOrdersModel
import WalletOrdersService

/// An import's body read into the service's values as it arrives: each line of newline-delimited JSON the order it
/// holds, in the form `POST /orders` takes it, or the problems that keep it from holding one (not JSON, not an
/// object, assets that are not base64, longer than an order may be).
struct ImportBody<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable where Base.Element == ByteBuffer {
    typealias Element = ImportLine
    let lines: NDJSONLines<Base>

    /// The body `base`, each line at most `limit` bytes.
    init(_ base: Base, limit: Int) {
        lines = NDJSONLines(base, limit: limit)
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(lines: lines.makeAsyncIterator(), limit: lines.limit)
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        var lines: NDJSONLines<Base>.AsyncIterator
        let limit: Int

        mutating func next() async throws -> ImportLine? {
            try await lines.next().map { ImportBody.read($0, limit: limit) }
        }
    }

    /// One line of the body as an order, or as its problems.
    static func read(_ line: NDJSONLines<Base>.Line, limit: Int) -> ImportLine {
        func unreadable(_ id: String?, _ problems: [OrderProblem]) -> ImportLine {
            ImportLine(number: line.number, content: .unreadable(orderIdentifier: id, problems: problems))
        }
        switch line {
        case .tooLong:
            return unreadable(nil, [OrderProblem(path: "", message: "the line is longer than \(limit) bytes, the most an order may be")])
        case .text(_, let bytes):
            let json: JSONValue
            do {
                json = try JSONBody.parse(Data(buffer: bytes))
            } catch let error as APIError {
                // The parser speaks of a body; here the body is one line.
                let message = error.message.hasPrefix("the body ") ? "the line " + error.message.dropFirst(9) : error.message
                return unreadable(nil, error.problems.isEmpty ? [OrderProblem(path: "", message: message)] : error.problems)
            } catch {
                return unreadable(nil, [OrderProblem(path: "", message: "\(error)")])
            }
            do {
                return ImportLine(number: line.number, content: .order(try OrderBody.input(json)))
            } catch let error as APIError {
                return unreadable(
                    json["orderIdentifier"]?.stringValue,
                    error.problems.isEmpty ? [OrderProblem(path: "", message: error.message)] : error.problems
                )
            } catch {
                return unreadable(json["orderIdentifier"]?.stringValue, [OrderProblem(path: "", message: "\(error)")])
            }
        }
    }
}
