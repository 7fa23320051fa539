import Foundation
import Mustache

/// A chart of day-by-day values drawn on the server as inline SVG (the console's template `chart`): no script,
/// nothing fetched. Bars (side by side or stacked) or lines, an axis with the largest value, a label every week, and
/// each point's value in its `<title>`, which a browser shows on hover.
struct SVGChart {
    /// One named row of values, one per day.
    struct Series {
        let name: String
        let color: Color
        /// nil where there is nothing to draw that day (a line then has a gap).
        let values: [Double?]
    }

    /// A series' color: a class of the console's stylesheet, which paints the series' swatch in the legend and its
    /// bars, lines and points.
    enum Color: String {
        case blue = "series-blue"
        case gray = "series-gray"
        case green = "series-green"
        case red = "series-red"
        case amber = "series-amber"
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

    /// The chart's HTML, from the template `chart`: this computes where everything goes, and the template writes it
    /// out with every name escaped.
    func html(_ template: MustacheTemplate) -> String {
        let plotWidth = Self.width - Self.left - 8
        let plotHeight = Self.height - Self.top - Self.bottom
        let slot = plotWidth / Double(max(days.count, 1))
        let largest = niceCeiling(maximum)
        func y(_ value: Double) -> Double { Self.top + plotHeight * (1 - value / largest) }
        func x(_ index: Int) -> Double { Self.left + slot * (Double(index) + 0.5) }
        var context: [String: Any] = [
            "title": title, "unit": unit, "width": "\(Self.width)", "height": "\(Self.height)",
            "left": "\(Self.left)", "right": "\(Self.width - 8)", "valueX": "\(Self.left - 4)",
            "zero": "\(y(0))", "top": "\(y(largest))", "middle": "\(y(largest / 2))",
            "zeroValueY": "\(y(0) + 4)", "topValueY": "\(y(largest) + 4)", "middleValueY": "\(y(largest / 2) + 4)",
            "largest": format(largest), "half": format(largest / 2),
            "legend": series.enumerated().map {
                ["first": $0.offset == 0, "name": $0.element.name, "color": $0.element.color.rawValue] as [String: Any]
            },
            // A label every week, the last on today.
            "days": days.enumerated().filter { (days.count - 1 - $0.offset) % 7 == 0 }.map {
                ["x": "\(x($0.offset))", "y": "\(Self.height - 6)", "label": Self.label($0.element)]
            },
        ]
        switch style {
        case .bars, .stackedBars:
            let stacked = style == .stackedBars
            let width = stacked ? slot * 0.7 : slot * 0.8 / Double(max(series.count, 1))
            var bars: [[String: Any]] = []
            for (index, day) in days.enumerated() {
                var base = 0.0
                for (number, row) in series.enumerated() {
                    let value = row.values[index] ?? 0
                    let left = Self.left + slot * Double(index) + slot * (stacked ? 0.15 : 0.1) + (stacked ? 0 : width * Double(number))
                    let bottom = stacked ? base : 0
                    if value > 0 {
                        bars.append([
                            "x": round(left), "y": round(y(bottom + value)), "width": round(max(width, 1)),
                            "height": round(max(y(bottom) - y(bottom + value), 0.5)), "color": row.color.rawValue,
                            "day": Self.label(day), "name": row.name, "value": format(value),
                        ])
                    }
                    base += value
                }
            }
            context["bars"] = bars
        case .lines:
            context["lines"] = series.map { row -> [String: Any] in
                // One polyline per run of days that have a value.
                var runs: [[String]] = [[]]
                for (index, value) in row.values.enumerated() {
                    if let value {
                        runs[runs.count - 1].append("\(round(x(index))),\(round(y(value)))")
                    } else if !runs[runs.count - 1].isEmpty {
                        runs.append([])
                    }
                }
                return [
                    "color": row.color.rawValue, "name": row.name,
                    "runs": runs.filter { $0.count > 1 }.map { ["coordinates": $0.joined(separator: " ")] },
                    "dots": row.values.enumerated().compactMap { index, value -> [String: Any]? in
                        value.map {
                            ["x": round(x(index)), "y": round(y($0)), "day": Self.label(days[index]), "value": format($0)]
                        }
                    },
                ]
            }
        }
        return template.render(context)
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

    /// `11-26` for a day.
    static func label(_ day: Int64) -> String {
        String(RFC3339Day.format(day).dropFirst(5))
    }
}
