import Foundation
import WalletOrdersModel
import WalletOrdersService

/// The merchant API's order bodies read into the service's values: order.json's members with per-order files in
/// `"assets": {"path": "<base64>"}`, and merge patches whose `assets` member adds, replaces and (with null) removes
/// files. Malformed bodies are refused here, with every problem and its path.
enum OrderBody {
    /// A body to create, validate or replace an order. With `assetsKeptWhenAbsent` (a replacement), a body without
    /// `assets` keeps the order's files; otherwise it has none.
    static func input(_ body: JSONValue, assetsKeptWhenAbsent: Bool = false) throws -> OrderInput {
        guard var fields = body.objectValue else { throw APIError(.badRequest, "the body must be a JSON object") }
        let assets = try fields.removeValue(forKey: "assets").map { try decodeAssets($0) }
        return OrderInput(fields: fields, assets: assets ?? (assetsKeptWhenAbsent ? nil : [:]))
    }

    /// `input` as a body `input(_:)` reads back: its fields, and its files (when it has any) in `assets`.
    static func json(_ input: OrderInput) -> JSONValue {
        var fields = input.fields
        if let assets = input.assets, !assets.isEmpty {
            fields["assets"] = .object(assets.mapValues { .string($0.base64EncodedString()) })
        }
        return .object(fields)
    }

    /// A JSON merge patch (RFC 7396) of an order.
    static func patch(_ body: JSONValue) throws -> OrderPatch {
        guard var changes = body.objectValue else { throw APIError(.badRequest, "a merge patch must be a JSON object") }
        guard let assetChanges = changes.removeValue(forKey: "assets") else { return OrderPatch(changes: changes) }
        guard let members = assetChanges.objectValue else {
            throw APIError(.badRequest, "assets must be an object of path to base64 data")
        }
        let removed = Set(members.filter { $0.value == .null }.keys)
        let added = try decodeAssets(.object(members.filter { $0.value != .null }))
        return OrderPatch(changes: changes, assets: added, removedAssets: removed)
    }

    /// `{"path": "<base64>"}` as files by path; `path` names the member in problems.
    static func decodeAssets(_ value: JSONValue, path member: String = "assets") throws -> [String: Data] {
        guard let members = value.objectValue else {
            throw APIError(.badRequest, "\(member) must be an object of path to base64 data")
        }
        var assets: [String: Data] = [:]
        var problems: [OrderProblem] = []
        for (path, encoded) in members.sorted(by: { $0.key < $1.key }) {
            guard let text = encoded.stringValue, let data = Data(base64Encoded: text) else {
                problems.append(OrderProblem(path: "\(member).\(path)", message: "must be base64 text"))
                continue
            }
            assets[path] = data
        }
        guard problems.isEmpty else {
            // With the service's own objections to the paths that did decode, so that one answer lists every problem.
            throw APIError(
                .badRequest,
                "the \(member) are not valid",
                problems: problems + (member == "assets" ? OrderService.assetProblems(assets.keys) : [])
            )
        }
        return assets
    }
}
