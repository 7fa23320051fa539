import Foundation

/// A chart of day-by-day values drawn on the server as inline SVG: no script, nothing fetched. Bars (side by side or
/// stacked) or lines, an axis with the largest value, a label every week, and each point's value in its `<title>`,
/// which a browser shows on hover.
struct SVGChart {
    /// One named row of values, one per day.
    struct Series {
        let name: String
        /// A CSS color.
        let color: String
        /// nil where there is nothing to draw that day (a line then has a gap).
        let values: [Double?]
    }

    enum Style {
        case bars
        case stackedBars
        case lines
    }

    let title: String
    /// The days drawn, oldest first (UTC days since 1970-01-01).
    let days: [Int64]
    let series: [Series]
    let style: Style
    /// How values read: " orders", " s".
    var unit = ""

    static let width = 720.0
    static let height = 180.0
    static let left = 48.0
    static let bottom = 22.0
    static let top = 8.0

    /// The chart's HTML: a figure with its caption, legend and SVG. Names and titles are written escaped.
    var html: String {
        let plotWidth = Self.width - Self.left - 8
        let plotHeight = Self.height - Self.top - Self.bottom
        let slot = plotWidth / Double(max(days.count, 1))
        let largest = niceCeiling(maximum)
        func y(_ value: Double) -> Double { Self.top + plotHeight * (1 - value / largest) }
        var svg = """
            <svg class="chart" viewBox="0 0 \(Self.width) \(Self.height)" role="img" aria-label="\(escape(title))">
            <line x1="\(Self.left)" y1="\(y(0))" x2="\(Self.width - 8)" y2="\(y(0))" class="axis"/>
            <line x1="\(Self.left)" y1="\(y(largest))" x2="\(Self.width - 8)" y2="\(y(largest))" class="grid"/>
            <line x1="\(Self.left)" y1="\(y(largest / 2))" x2="\(Self.width - 8)" y2="\(y(largest / 2))" class="grid"/>
            <text x="\(Self.left - 4)" y="\(y(largest) + 4)" text-anchor="end">\(format(largest))</text>
            <text x="\(Self.left - 4)" y="\(y(largest / 2) + 4)" text-anchor="end">\(format(largest / 2))</text>
            <text x="\(Self.left - 4)" y="\(y(0) + 4)" text-anchor="end">0</text>

            """
        for (index, day) in days.enumerated() where (days.count - 1 - index) % 7 == 0 {
            let x = Self.left + slot * (Double(index) + 0.5)
            svg += #"<text x="\#(x)" y="\#(Self.height - 6)" text-anchor="middle">\#(Self.label(day))</text>"# + "\n"
        }
        switch style {
        case .bars, .stackedBars:
            let stacked = style == .stackedBars
            let width = stacked ? slot * 0.7 : slot * 0.8 / Double(max(series.count, 1))
            for (index, day) in days.enumerated() {
                var base = 0.0
                for (number, row) in series.enumerated() {
                    let value = row.values[index] ?? 0
                    let x = Self.left + slot * Double(index) + slot * (stacked ? 0.15 : 0.1) + (stacked ? 0 : width * Double(number))
                    let bottom = stacked ? base : 0
                    let height = y(bottom) - y(bottom + value)
                    if value > 0 {
                        svg += """
                            <rect x="\(round(x))" y="\(round(y(bottom + value)))" width="\(round(max(width, 1)))" \
                            height="\(round(max(height, 0.5)))" fill="\(row.color)"><title>\(Self.label(day)): \
                            \(escape(row.name)) \(format(value))\(escape(unit))</title></rect>

                            """
                    }
                    base += value
                }
            }
        case .lines:
            for row in series {
                // One polyline per run of days that have a value.
                var runs: [[String]] = [[]]
                for (index, value) in row.values.enumerated() {
                    if let value {
                        runs[runs.count - 1].append("\(round(Self.left + slot * (Double(index) + 0.5))),\(round(y(value)))")
                    } else if !runs[runs.count - 1].isEmpty {
                        runs.append([])
                    }
                }
                for points in runs where points.count > 1 {
                    svg += #"<polyline fill="none" stroke="\#(row.color)" stroke-width="2" points="\#(points.joined(separator: " "))"/>"#
                    svg += "\n"
                }
                for (index, value) in row.values.enumerated() {
                    guard let value else { continue }
                    svg += """
                        <circle cx="\(round(Self.left + slot * (Double(index) + 0.5)))" cy="\(round(y(value)))" r="2.5" \
                        fill="\(row.color)"><title>\(Self.label(days[index])): \(escape(row.name)) \
                        \(format(value))\(escape(unit))</title></circle>

                        """
                }
            }
        }
        svg += "</svg>"
        let legend = series.map {
            #"<span class="key"><i style="background:\#($0.color)"></i>\#(escape($0.name))</span>"#
        }.joined(separator: " ")
        return #"<figure><figcaption>\#(escape(title)) \#(legend)</figcaption>\#(svg)</figure>"#
    }

    /// The largest value the chart must reach: a stack's total, or the largest point.
    private var maximum: Double {
        guard !days.isEmpty else { return 0 }
        if style == .stackedBars {
            return days.indices.map { index in series.reduce(0) { $0 + ($1.values[index] ?? 0) } }.max() ?? 0
        }
        return series.flatMap { $0.values.compactMap { $0 } }.max() ?? 0
    }

    /// A round number at or above `value` (1, 2 or 5 times a power of ten), so the axis reads easily.
    private func niceCeiling(_ value: Double) -> Double {
        guard value > 0 else { return 1 }
        let power = pow(10, floor(log10(value)))
        for step in [1.0, 2, 5, 10] where step * power >= value { return step * power }
        return 10 * power
    }

    private func format(_ value: Double) -> String {
        value.rounded() == value ? String(Int(value)) : String(format: "%.1f", value)
    }

    private func round(_ value: Double) -> String { String(format: "%.1f", value) }

    private func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    /// `11-26` for a day.
    static func label(_ day: Int64) -> String {
        String(RFC3339Day.format(day).dropFirst(5))
    }
}
