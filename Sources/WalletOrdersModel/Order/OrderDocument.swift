import Foundation

/// An order.json exactly as the merchant wrote it, fields this service does not know included.
///
/// The document is the source of truth: it is what gets stored, patched and packaged, so nothing a merchant
/// sends is ever dropped. `typed()` gives the typed view of the fields Apple documents.
public struct OrderDocument: Sendable, Hashable {
    /// The top-level members of order.json.
    public private(set) var fields: [String: JSONValue]

    /// An order from its top-level members.
    public init(fields: [String: JSONValue]) {
        self.fields = fields
    }

    /// An order from a JSON value, which must be an object.
    public init(_ json: JSONValue) throws {
        guard let fields = json.objectValue else {
            throw JSONValue.ParseError(description: "an order must be a JSON object, not \(json.typeName)")
        }
        self.fields = fields
    }

    /// An order from JSON text.
    public init(data: Data) throws {
        try self.init(JSONValue.parse(data))
    }

    /// The member `key`; setting nil removes it.
    public subscript(key: String) -> JSONValue? {
        get { fields[key] }
        set { fields[key] = newValue }
    }

    /// The whole order as a JSON value.
    public var json: JSONValue { .object(fields) }

    /// order.json as it goes into a package: pretty-printed with sorted keys, so equal orders give equal bytes.
    public var serialized: Data { json.serialized(pretty: true) }

    public var orderTypeIdentifier: String? { fields["orderTypeIdentifier"]?.stringValue }
    public var orderIdentifier: String? { fields["orderIdentifier"]?.stringValue }
    public var authenticationToken: String? { fields["authenticationToken"]?.stringValue }
    public var webServiceURL: String? { fields["webServiceURL"]?.stringValue }
    public var createdAt: Date? { fields["createdAt"]?.stringValue.flatMap(RFC3339.parse) }
    public var updatedAt: Date? { fields["updatedAt"]?.stringValue.flatMap(RFC3339.parse) }

    /// Every problem with this order; see `OrderValidator.validate(_:files:allowHTTPWebService:skipping:)`.
    public func problems(files: Set<String>? = nil, allowHTTPWebService: Bool = false) -> [OrderProblem] {
        validate(files: files, allowHTTPWebService: allowHTTPWebService).problems
    }

    /// Every problem and warning with this order; see `OrderValidator.validate(_:files:allowHTTPWebService:skipping:)`.
    public func validate(files: Set<String>? = nil, allowHTTPWebService: Bool = false) -> OrderValidation {
        OrderValidator.validate(json, files: files, allowHTTPWebService: allowHTTPWebService)
    }

    /// This order laid over `defaults`: objects merge key by key, and the order's own values win.
    public func withDefaults(_ defaults: JSONValue) -> OrderDocument {
        // A field sent as null counts as left out: it takes the default, rather than deleting it as a merge
        // patch would (which left a stored order without the merchant its signed package has).
        OrderDocument(fields: defaults.merging(patch: .object(fields.filter { $0.value != .null })).objectValue ?? fields)
    }

    /// The typed view of the order. Throws when the order does not fit Apple's schema; validate first for a
    /// list of every problem.
    public func typed() throws -> Order {
        try JSONDecoder().decode(Order.self, from: json.serialized())
    }
}
