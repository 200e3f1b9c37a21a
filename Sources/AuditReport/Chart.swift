import Foundation

/// Inline SVG charts (no script): every point or bar carries its values in `data-` attributes
/// and a `<title>`, so a reader can hover it and a test can read it.
enum Chart {
    static let width = 1000.0
    static let height = 220.0
    static let left = 44.0
    static let bottom = 24.0
    static let top = 10.0

    /// A step line of one value per day; `id` names the `<svg>`.
    static func steps(_ points: [(day: Int64, count: Int)], id: String, label: String) -> String {
        guard let first = points.first, let last = points.last else { return "<p class=\"muted\">No data.</p>" }
        let maximum = max(1, points.map(\.count).max() ?? 1)
        let span = max(1, Double(last.day - first.day))
        func x(_ day: Int64) -> Double { left + (width - left - 10) * Double(day - first.day) / span }
        func y(_ value: Int) -> Double { top + (height - top - bottom) * (1 - Double(value) / Double(maximum)) }
        var path = ""
        var previous: Double?
        for point in points {
            let px = x(point.day), py = y(point.count)
            if let previous { path += " L\(f(px)),\(f(previous))" } else { path += "M\(f(px)),\(f(py))" }
            path += " L\(f(px)),\(f(py))"
            previous = py
        }
        var svg = "<svg id=\"\(id)\" viewBox=\"0 0 \(f(width)) \(f(height))\" role=\"img\" aria-label=\"\(HTML.escape(label))\">"
        svg += axes(maximum: maximum, firstDay: first.day, lastDay: last.day)
        svg += "<path d=\"\(path)\" fill=\"none\" stroke=\"\(HTML.colours[0])\" stroke-width=\"2\"/>"
        let radius = points.count > 200 ? 1.5 : 3
        for point in points {
            svg += "<circle class=\"point\" data-day=\"\(HTML.day(point.day))\" data-count=\"\(point.count)\" cx=\"\(f(x(point.day)))\" cy=\"\(f(y(point.count)))\" r=\"\(radius)\" fill=\"\(HTML.colours[0])\"><title>\(HTML.day(point.day)): \(point.count)</title></circle>"
        }
        return svg + "</svg>"
    }

    /// Stacked bars: for each day, one segment per series (in `series` order).
    static func stacked(_ days: [(day: Int64, values: [Int])], series: [String], id: String, label: String) -> String {
        guard let first = days.first, let last = days.last else { return "<p class=\"muted\">No data.</p>" }
        let maximum = max(1, days.map { $0.values.reduce(0, +) }.max() ?? 1)
        let count = Double(last.day - first.day + 1)
        let slot = (width - left - 10) / count
        func y(_ value: Int) -> Double { (height - top - bottom) * Double(value) / Double(maximum) }
        var svg = "<svg id=\"\(id)\" viewBox=\"0 0 \(f(width)) \(f(height))\" role=\"img\" aria-label=\"\(HTML.escape(label))\">"
        svg += axes(maximum: maximum, firstDay: first.day, lastDay: last.day)
        for entry in days {
            var base = height - bottom
            let x0 = left + slot * Double(entry.day - first.day)
            for (index, value) in entry.values.enumerated() where value > 0 {
                let h = y(value)
                base -= h
                svg += "<rect class=\"bar\" data-day=\"\(HTML.day(entry.day))\" data-series=\"\(HTML.escape(series[index]))\" data-count=\"\(value)\" x=\"\(f(x0))\" y=\"\(f(base))\" width=\"\(f(max(0.5, slot * 0.85)))\" height=\"\(f(h))\" fill=\"\(HTML.colours[index % HTML.colours.count])\"><title>\(HTML.day(entry.day)) \(HTML.escape(series[index])): \(value)</title></rect>"
            }
        }
        return svg + "</svg>" + legend(series)
    }

    /// Marks on a time axis (e.g. seals by position over the log): `(x fraction 0…1, label)`.
    static func marks(_ marks: [(fraction: Double, label: String)], id: String, label: String) -> String {
        var svg = "<svg id=\"\(id)\" viewBox=\"0 0 \(f(width)) 50\" role=\"img\" aria-label=\"\(HTML.escape(label))\">"
        svg += "<line x1=\"\(f(left))\" y1=\"25\" x2=\"\(f(width - 10))\" y2=\"25\" stroke=\"#8c959f\"/>"
        for mark in marks {
            let x = left + (width - left - 10) * min(1, max(0, mark.fraction))
            svg += "<circle class=\"mark\" cx=\"\(f(x))\" cy=\"25\" r=\"5\" fill=\"\(HTML.colours[2])\"><title>\(HTML.escape(mark.label))</title></circle>"
        }
        return svg + "<text x=\"\(f(left))\" y=\"45\">position 1</text><text x=\"\(f(width - 10))\" y=\"45\" text-anchor=\"end\">head</text></svg>"
    }

    static func legend(_ series: [String]) -> String {
        var out = "<p class=\"legend\">"
        for (index, name) in series.enumerated() { out += "<span><i class=\"c\(index % HTML.colours.count)\"></i>\(HTML.user(name))</span>" }
        return out + "</p>"
    }

    private static func axes(maximum: Int, firstDay: Int64, lastDay: Int64) -> String {
        let base = height - bottom
        return "<line x1=\"\(f(left))\" y1=\"\(f(base))\" x2=\"\(f(width - 10))\" y2=\"\(f(base))\" stroke=\"#8c959f\"/>"
            + "<line x1=\"\(f(left))\" y1=\"\(f(top))\" x2=\"\(f(left))\" y2=\"\(f(base))\" stroke=\"#8c959f\"/>"
            + "<text x=\"\(f(left - 4))\" y=\"\(f(top + 8))\" text-anchor=\"end\">\(maximum)</text>"
            + "<text x=\"\(f(left - 4))\" y=\"\(f(base))\" text-anchor=\"end\">0</text>"
            + "<text x=\"\(f(left))\" y=\"\(f(height - 6))\">\(HTML.day(firstDay))</text>"
            + "<text x=\"\(f(width - 10))\" y=\"\(f(height - 6))\" text-anchor=\"end\">\(HTML.day(lastDay))</text>"
    }

    private static func f(_ value: Double) -> String { String(format: "%.1f", value) }
}
