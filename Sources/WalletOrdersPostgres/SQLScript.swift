/// A migration file cut into its statements: PostgresNIO sends each query as one prepared statement, which
/// holds a single command.
enum SQLScript {
    /// The statements of `sql`, split at semicolons outside quotes and comments, comments dropped. Dollar-quoted
    /// bodies are not understood: migrations here have none.
    static func statements(_ sql: String) -> [String] {
        var statements: [String] = []
        var current = ""
        var quote: Character?
        var characters = sql.makeIterator()
        var pending: Character? = characters.next()
        while let character = pending {
            pending = characters.next()
            if let open = quote {
                current.append(character)
                if character == open { quote = nil }
                continue
            }
            switch character {
            case "'", "\"":
                quote = character
                current.append(character)
            case "-" where pending == "-":
                // A comment runs to the end of the line.
                while let next = pending, next != "\n" { pending = characters.next() }
            case ";":
                let statement = current.trimmingWhitespace
                if !statement.isEmpty { statements.append(statement) }
                current = ""
            default:
                current.append(character)
            }
        }
        let last = current.trimmingWhitespace
        if !last.isEmpty { statements.append(last) }
        return statements
    }
}

extension String {
    fileprivate var trimmingWhitespace: String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
