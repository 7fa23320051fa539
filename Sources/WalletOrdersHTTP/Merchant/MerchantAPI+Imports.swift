import Foundation
import Hummingbird
import NIOCore
import WalletOrdersModel
import WalletOrdersService
import WalletOrdersStore

/// A merchant's orders in bulk, as newline-delimited JSON (one order per line) streamed both ways: imported from
/// its own systems or another server, idempotently by its own identifiers; exported in the form an import takes.
extension MerchantAPI {
    static let ndjson = "application/x-ndjson"
    /// Results and exported orders are sent in writes of about this many bytes, or as soon as they are in.
    static let streamChunkSize = 64 * 1_024

    /// `POST /orders/import`: one order per line, each the body `POST /orders` takes with its `orderIdentifier`;
    /// 200 with one result per line, in the lines' order, each as soon as it and those before it are in. The body is
    /// read as the lines are imported, a few at a time, so that neither it nor the answer is ever held whole.
    @Sendable func importOrders(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let merchant = try context.requireMerchant()
        guard Self.mediaType(of: request) == Self.ndjson else {
            throw APIError(.unsupportedMediaType, "an import takes one order per line (Content-Type: \(Self.ndjson))")
        }
        // The answer's head goes out before the body is read: let the body take as long as it keeps coming, then
        // ask for it (the connection hears of the first before it sends the second).
        context.channel.triggerUserOutboundEvent(StreamedBody(), promise: nil)
        await context.continueBeforeAnswering()
        let lines = ImportBody(request.body, limit: Self.bodyLimit)
        let service = self.service
        let logger = context.logger
        var headers = HTTPFields()
        headers[.contentType] = Self.ndjson
        return Response(
            status: .ok,
            headers: headers,
            body: ResponseBody { writer in
                var answered = 0
                do {
                    try await service.importOrders(lines, for: merchant) { results in
                        var buffer = ByteBuffer()
                        for result in results {
                            buffer.writeLine(Self.json(result))
                        }
                        try await writer.write(buffer)
                        answered = results.last?.line ?? answered
                    }
                } catch {
                    // The status went out with the head: say what happened in a last line, then cut the answer off
                    // so that the client sees it incomplete.
                    logger.error("import stopped", metadata: ["error": "\(String(reflecting: error))"])
                    let cause =
                        error as? StoreError == .diskFull ? "because the database's disk is full" : "on an error of the server's"
                    let message =
                        "the import stopped after line \(answered) \(cause): "
                        + "the lines answered above are done, the others were not read; run the import again"
                    var buffer = ByteBuffer()
                    buffer.writeLine(JSONValue.object(["error": .string(message)]))
                    try? await writer.write(buffer)
                    throw error
                }
                try await writer.finish(nil)
            }
        )
    }

    /// `GET /orders/export[?type=]`: the merchant's orders newest first (by when each was created), one per line, in
    /// the form `POST /orders/import` takes. Read from the store a page at a time as the answer goes out.
    @Sendable func exportOrders(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let merchant = try context.requireMerchant()
        let type = request.uri.queryParameters.get("type")
        let service = self.service
        var headers = HTTPFields()
        headers[.contentType] = Self.ndjson
        return Response(
            status: .ok,
            headers: headers,
            body: ResponseBody { writer in
                var buffer = ByteBuffer()
                // A failure midway cuts the answer off: the client sees it incomplete (curl exits with 18).
                try await service.exportOrders(type: type, for: merchant) { input in
                    buffer.writeLine(OrderBody.json(input))
                    if buffer.readableBytes >= Self.streamChunkSize {
                        try await writer.write(buffer)
                        buffer.clear()
                    }
                }
                if buffer.readableBytes > 0 { try await writer.write(buffer) }
                try await writer.finish(nil)
            }
        )
    }

    /// One line of an import's answer: `{"line", "orderIdentifier", "result", "problems"}`, `problems` always there
    /// (empty unless `invalid`) and `orderIdentifier` null when the line names none.
    static func json(_ result: ImportLineResult) -> JSONValue {
        .object([
            "line": .int(result.line),
            "orderIdentifier": result.orderIdentifier.map(JSONValue.string) ?? .null,
            "result": .string(result.result.rawValue),
            "problems": .array(
                result.problems.map {
                    .object(["path": .string(ErrorText.clipped($0.path)), "message": .string(ErrorText.clipped($0.message))])
                }
            ),
        ])
    }

    /// The request's media type, lower-cased, without parameters.
    static func mediaType(of request: Request) -> String? {
        guard let value = request.headers[.contentType] else { return nil }
        // By bytes: HTTP's optional whitespace is spaces and tabs (Foundation's trimming showed in every update's
        // profile).
        func isSpace(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        var type = value.utf8.prefix { $0 != UInt8(ascii: ";") }[...]
        while let first = type.first, isSpace(first) { type = type.dropFirst() }
        while let last = type.last, isSpace(last) { type = type.dropLast() }
        return String(decoding: type, as: UTF8.self).lowercased()
    }
}

extension ByteBuffer {
    /// `value` as one NDJSON line: its JSON and a newline.
    mutating func writeLine(_ value: JSONValue) {
        writeBytes(value.serialized())
        writeInteger(UInt8(ascii: "\n"))
    }
}
