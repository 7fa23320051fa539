import PostgresNIO
import WalletOrdersStore

/// A row's cells by column name, so reading a row never depends on the order of the SELECT list.
struct Columns {
    private let cells: PostgresRandomAccessRow

    init(_ row: PostgresRow) {
        cells = row.makeRandomAccess()
    }

    /// The cell of `name`, decoded; throws when the row has no such column or it does not decode.
    subscript<Value: PostgresDecodable>(_ name: String) -> Value {
        get throws {
            guard cells.contains(name) else { throw StoreError.unexpected("the result has no column \(name)") }
            return try cells[name].decode(Value.self)
        }
    }
}
