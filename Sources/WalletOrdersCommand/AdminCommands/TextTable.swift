import ArgumentParser
import Foundation
import Logging
import WalletOrdersApplication
import WalletOrdersModel
import WalletOrdersService
import WalletOrdersStore

/// Aligned columns for people: each cell shown as `TerminalText` shows text from outside, then cut to its column's
/// width with an ellipsis. Every table the command line prints for people is one of these.
struct TextTable {
    let text: String

    init(_ headers: [String], _ rows: [[String]], header: Bool = true, widths: [Int]? = nil) {
        let limits = widths ?? headers.map { _ in 48 }
        func cut(_ cell: String, _ column: Int) -> String {
            let flat = TerminalText.visible(cell)
            return flat.count > limits[column] ? String(flat.prefix(limits[column] - 1)) + "…" : flat
        }
        let body = rows.map { $0.enumerated().map { cut($1, $0) } }
        let all = (header ? [headers] : []) + body
        let columnWidths = headers.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        var lines = all.map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell.padding(toLength: columnWidths[column], withPad: " ", startingAt: 0)
            }.joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }
        if rows.isEmpty { lines.append("(none)") }
        text = lines.joined(separator: "\n") + "\n"
    }
}
