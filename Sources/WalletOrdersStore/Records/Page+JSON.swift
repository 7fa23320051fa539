import WalletOrdersModel

extension Page where Record: Encodable {
    /// The page as every interface shows it: `{"<key>": [records…], "next": "<cursor>"}`, without `next` on the
    /// last page. The next page is asked for with `before=<cursor>`.
    public func json(_ key: String) throws -> JSONValue {
        var body: [String: JSONValue] = [key: try JSONValue.encoding(records)]
        if let next { body["next"] = .string(String(next)) }
        return .object(body)
    }
}
