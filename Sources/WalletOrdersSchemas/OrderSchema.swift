import Foundation

/// The JSON Schema (draft 2020-12) of order.json, for merchants' editors and CI: the rules `OrderValidator`
/// applies, but for those listed in `OrderRule`.
public enum OrderSchema {
    /// Where the service serves the schema.
    public static let path = "/schemas/order.json"
    /// The media type to serve it with.
    public static let contentType = "application/schema+json"

    /// The schema's bytes, exactly as Sources/WalletOrdersSchemas/order.schema.json holds them.
    public static let data: Data = {
        guard let url = Bundle.module.url(forResource: "order.schema", withExtension: "json"),
            let data = try? Data(contentsOf: url)
        else {
            // The file is a resource of this module, so it is there unless the build is broken.
            fatalError("order.schema.json is missing from the WalletOrdersSchemas resources")
        }
        return data
    }()
}
