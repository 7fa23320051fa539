import Foundation

extension JSONValue {
    /// An `Encodable` value as JSON, dates as RFC 3339 text: how every interface shows a record.
    public static func encoding(_ value: some Encodable) throws -> JSONValue {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(RFC3339.format(date))
        }
        return try JSONValue.parse(encoder.encode(value))
    }
}
