import Foundation

/// Inline SVG charts (no script): every point or bar carries its values in `data-` attributes
/// and a `<title>`, so a reader can hover it and a test can read it.
enum Chart {
    static let width = 1000.0
    static let height = 220.0
    static let left = 44.0
    static let bottom = 24.0
    static let top = 10.0

    /// A step line of one level per bucket (``DayBuckets``: a day while few days hold events);
    /// `id` names the `<svg>`. Each bucket with a level has a slot, side by side, whatever time
    /// lies between them; a gap between slots is marked (``gaps(_:slot:)``).
    static func steps(_ points: [(bucket: DayBuckets.Bucket, count: Int)], id: String, label: String) -> String {
        guard let first = points.first, let last = points.last else { return "<p class=\"muted\">No data.</p>" }
        let maximum = max(1, points.map(\.count).max() ?? 1)
        let slot = (width - left - 10) / Double(max(1, points.count - 1))
        func x(_ index: Int) -> Double { points.count == 1 ? left : left + slot * Double(index) }
        func y(_ value: Int) -> Double { top + (height - top - bottom) * (1 - Double(value) / Double(maximum)) }
        var path = ""
        var previous: Double?
        for (index, point) in points.enumerated() {
            let px = x(index), py = y(point.count)
            if let previous { path += " L\(f(px)),\(f(previous))" } else { path += "M\(f(px)),\(f(py))" }
            path += " L\(f(px)),\(f(py))"
            previous = py
        }
        var svg = "<svg id=\"\(id)\" viewBox=\"0 0 \(f(width)) \(f(height))\" role=\"img\" aria-label=\"\(HTML.escape(label))\">"
        svg += axes(maximum: maximum, first: first.bucket, last: last.bucket)
        svg += gaps(points.map(\.bucket)) { x($0) - slot / 2 }
        svg += "<path d=\"\(path)\" fill=\"none\" stroke=\"\(HTML.colours[0])\" stroke-width=\"2\"/>"
        let radius = points.count > 200 ? 1.5 : 3
        for (index, point) in points.enumerated() {
            svg += "<circle class=\"point\" \(attributes(point.bucket)) data-count=\"\(point.count)\" cx=\"\(f(x(index)))\" cy=\"\(f(y(point.count)))\" r=\"\(radius)\" fill=\"\(HTML.colours[0])\"><title>\(HTML.escape(point.bucket.label)): \(point.count)</title></circle>"
        }
        return svg + "</svg>"
    }

    /// Stacked bars: for each bucket with events (``DayBuckets``), one segment per series (in
    /// `series` order); the bars side by side, a gap between buckets marked.
    static func stacked(_ bars: [(bucket: DayBuckets.Bucket, values: [Int])], series: [String], id: String, label: String) -> String {
        guard let first = bars.first, let last = bars.last else { return "<p class=\"muted\">No data.</p>" }
        let maximum = max(1, bars.map { $0.values.reduce(0, +) }.max() ?? 1)
        let slot = (width - left - 10) / Double(bars.count)
        func y(_ value: Int) -> Double { (height - top - bottom) * Double(value) / Double(maximum) }
        var svg = "<svg id=\"\(id)\" viewBox=\"0 0 \(f(width)) \(f(height))\" role=\"img\" aria-label=\"\(HTML.escape(label))\">"
        svg += axes(maximum: maximum, first: first.bucket, last: last.bucket)
        // A gap's mark stands between the two bars, at the start of the later one's slot less a little.
        svg += gaps(bars.map(\.bucket)) { left + slot * Double($0) - slot * 0.075 }
        for (index, entry) in bars.enumerated() {
            var base = height - bottom
            let x0 = left + slot * Double(index)
            for (kind, value) in entry.values.enumerated() where value > 0 {
                let h = y(value)
                base -= h
                svg += "<rect class=\"bar\" \(attributes(entry.bucket)) data-series=\"\(HTML.escape(series[kind]))\" data-count=\"\(value)\" x=\"\(f(x0))\" y=\"\(f(base))\" width=\"\(f(max(0.5, slot * 0.85)))\" height=\"\(f(h))\" fill=\"\(HTML.colours[kind % HTML.colours.count])\"><title>\(HTML.escape(entry.bucket.label)) \(HTML.escape(series[kind])): \(value)</title></rect>"
            }
        }
        return svg + "</svg>" + legend(series)
    }

    /// A dashed line before each slot whose bucket does not follow the one before it, titled
    /// with the days between them: what the chart leaves out, said where it is left out.
    /// `x` gives the line's position before the slot at an index.
    private static func gaps(_ buckets: [DayBuckets.Bucket], x: (Int) -> Double) -> String {
        var out = ""
        for index in buckets.indices.dropFirst() {
            let missing = buckets[index].first - buckets[index - 1].last - 1
            guard missing > 0 else { continue }
            let at = f(x(index))
            out += "<line class=\"gap\" data-days=\"\(missing)\" x1=\"\(at)\" y1=\"\(f(top))\" x2=\"\(at)\" y2=\"\(f(height - bottom))\" stroke=\"#8c959f\" stroke-dasharray=\"3,3\">"
                + "<title>\(HTML.count(missing)) \(missing == 1 ? "day" : "days") without events between \(HTML.escape(buckets[index - 1].label)) and \(HTML.escape(buckets[index].label))</title></line>"
        }
        return out
    }

    /// A bar's or point's `data-` attributes: its first day (`data-day`), last day and size.
    private static func attributes(_ bucket: DayBuckets.Bucket) -> String {
        "data-day=\"\(HTML.day(bucket.first))\" data-last-day=\"\(HTML.day(bucket.last))\" data-bucket=\"\(bucket.size.name)\""
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

    private static func axes(maximum: Int, first: DayBuckets.Bucket, last: DayBuckets.Bucket) -> String {
        let base = height - bottom
        return "<line x1=\"\(f(left))\" y1=\"\(f(base))\" x2=\"\(f(width - 10))\" y2=\"\(f(base))\" stroke=\"#8c959f\"/>"
            + "<line x1=\"\(f(left))\" y1=\"\(f(top))\" x2=\"\(f(left))\" y2=\"\(f(base))\" stroke=\"#8c959f\"/>"
            + "<text x=\"\(f(left - 4))\" y=\"\(f(top + 8))\" text-anchor=\"end\">\(maximum)</text>"
            + "<text x=\"\(f(left - 4))\" y=\"\(f(base))\" text-anchor=\"end\">0</text>"
            + "<text x=\"\(f(left))\" y=\"\(f(height - 6))\">\(HTML.escape(first.label))</text>"
            + "<text x=\"\(f(width - 10))\" y=\"\(f(height - 6))\" text-anchor=\"end\">\(HTML.escape(last.label))</text>"
    }

    private static func f(_ value: Double) -> String { String(format: "%.1f", value) }
}
