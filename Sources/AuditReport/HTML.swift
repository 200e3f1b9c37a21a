import EventLog
import Foundation

/// Building blocks of the report pages: escaping, and a page skeleton with inline CSS under a
/// strict Content-Security-Policy (no script, no network, the stylesheet allowed by its hash).
enum HTML {
    /// `text` escaped for an HTML text node or a quoted attribute value (`& < > " '`, and NUL
    /// as U+FFFD). Works on UTF-8 bytes, as every character it replaces is ASCII; a string
    /// with none of them comes back as it is.
    static func escape(_ text: String) -> String {
        let special: (UInt8) -> Bool = { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 || $0 == 0x27 || $0 == 0 }
        guard text.utf8.contains(where: special) else { return text }
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count + 16)
        for byte in text.utf8 {
            switch byte {
            case 0x26: out.append(contentsOf: "&amp;".utf8)
            case 0x3C: out.append(contentsOf: "&lt;".utf8)
            case 0x3E: out.append(contentsOf: "&gt;".utf8)
            case 0x22: out.append(contentsOf: "&quot;".utf8)
            case 0x27: out.append(contentsOf: "&#39;".utf8)
            case 0: out.append(contentsOf: [0xEF, 0xBF, 0xBD])
            default: out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A string that came from users (keyword, id, name, source …): escaped and isolated in a
    /// `<bdi>`, so right-to-left text or a stray direction override cannot reorder what surrounds it.
    /// A string over 300 characters scrolls in a box of a few lines on screen (printed whole).
    static func user(_ text: String) -> String {
        (text.utf8.count > 300 && text.count > 300 ? "<bdi class=\"long\">" : "<bdi>") + escape(text) + "</bdi>"
    }

    /// A user string alone in a table cell of a long table: escaped, with no element of its own
    /// (a cell is its own bidirectional paragraph, and `.rows td` takes its direction from its
    /// text), except a string over 300 characters, which scrolls in a box as ``user(_:)`` makes it.
    static func cell(_ text: String) -> String {
        text.utf8.count > 300 && text.count > 300 ? user(text) : escape(text)
    }

    /// The rows a chunk of a long table holds (see ``rows(id:className:columns:rows:)``).
    static let chunkRows = 200

    /// A long table (timeline, searches) that opens fast: fixed column widths (`className`'s
    /// `col` rules), so the browser lays out a row without measuring the others, and its rows
    /// in tables of ``chunkRows`` inside `div.chunk` blocks that the browser lays out and paints
    /// only when they are scrolled near (`content-visibility: auto`; printing renders them all).
    /// `id` names the outer `div`; each `tr` is as the caller made it, `<tbody>` holds them.
    static func rows(id: String, className: String, columns: [(header: String, numeric: Bool)], rows: [String], none: String = "None.") -> String {
        // No header row over nothing: an empty list says so.
        guard !rows.isEmpty else { return "<p id=\"\(id)\" class=\"muted none\">\(escape(none))</p>" }
        let colgroup = "<colgroup>" + String(repeating: "<col>", count: columns.count) + "</colgroup>"
        var out = "<div id=\"\(id)\" class=\"rows \(className)\">"
        out += "<table class=\"fixed\">\(colgroup)<thead><tr>"
        for column in columns { out += column.numeric ? "<th class=\"n\">\(escape(column.header))</th>" : "<th>\(escape(column.header))</th>" }
        out += "</tr></thead></table>"
        var start = 0
        while start < rows.count {
            let end = min(rows.count, start + chunkRows)
            out += "<div class=\"chunk\"><table class=\"fixed\">\(colgroup)<tbody>"
            for row in rows[start..<end] { out += row }
            out += "</tbody></table></div>"
            start = end
        }
        return out + "</div>"
    }

    /// A short table: `columns`' headers over `rows` (each `tr` as the caller made it), or, with
    /// no rows, `none` in words in a paragraph of the same `id` (no header row over nothing).
    static func table(id: String, columns: [(header: String, numeric: Bool)], rows: [String], none: String) -> String {
        guard !rows.isEmpty else { return "<p id=\"\(id)\" class=\"muted none\">\(escape(none))</p>" }
        var out = "<table id=\"\(id)\"><thead><tr>"
        for column in columns { out += column.numeric ? "<th class=\"n\">\(escape(column.header))</th>" : "<th>\(escape(column.header))</th>" }
        return out + "</tr></thead><tbody>" + rows.joined() + "</tbody></table>"
    }

    /// `text` (already HTML) as a link to `href` when there is one.
    static func link(_ text: String, to href: String?) -> String {
        guard let href else { return text }
        return "<a href=\"\(escape(href))\">\(text)</a>"
    }

    /// The in-page anchor of the row of the event at `position` (user pages: the timeline's rows).
    static func eventAnchor(_ position: Int64) -> String { "event-\(position)" }

    /// The page's stylesheet (screen and print); allowed by its SHA-256 in the CSP.
    static let css = """
        :root{color-scheme:light;font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif;color:#1b1f24;background:#fff}
        body{margin:0 auto;max-width:1100px;padding:1.5rem;line-height:1.4}
        h1{font-size:1.6rem;margin:0 0 .3rem}h2{font-size:1.2rem;margin:2rem 0 .6rem;border-bottom:1px solid #d0d7de;padding-bottom:.2rem}
        bdi,td,th,dd,li,h1,p{overflow-wrap:anywhere;word-break:break-word}
        bdi{unicode-bidi:isolate}bdi.long{display:block;max-height:7.5em;overflow:auto}
        table{border-collapse:collapse;width:100%;font-size:.85rem;table-layout:auto}
        th,td{border:1px solid #d0d7de;padding:.25rem .4rem;text-align:start;vertical-align:top;max-width:32rem}
        th{background:#f3f5f7}tr:nth-child(even) td{background:#fafbfc}
        td.n,th.n{text-align:end;font-variant-numeric:tabular-nums;white-space:nowrap}
        td.t{white-space:nowrap;font-variant-numeric:tabular-nums}
        table.fixed{table-layout:fixed}table.fixed td,table.fixed th{max-width:none}
        .rows>table.fixed{margin:0}.rows .chunk{content-visibility:auto;contain-intrinsic-size:auto 340rem}
        .rows .chunk table{border-top:0}.rows td{unicode-bidi:plaintext}.rows td.n{unicode-bidi:isolate}
        .timeline col:nth-child(1){width:5em}.timeline col:nth-child(2){width:18.5em}.timeline col:nth-child(3){width:9.5em}
        .timeline col:nth-child(5){width:8em}.timeline col:nth-child(6){width:6em}.timeline col:nth-child(7){width:9em}
        .searches col:nth-child(1){width:5em}.searches col:nth-child(2),.searches col:nth-child(3){width:18.5em}.searches col:nth-child(5){width:8em}
        .searches col:nth-child(6){width:6.5em}.searches col:nth-child(8){width:5em}
        .changes col:nth-child(1){width:9em}.changes col:nth-child(3),.changes col:nth-child(4){width:18.5em}
        .rows td{font-variant-numeric:tabular-nums}.timeline td:nth-child(1),.searches td:nth-child(1),.searches td:nth-child(8){text-align:end}
        dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem;margin:0}
        dl.facts dt{font-weight:600}dl.facts dd{margin:0}
        .ok{color:#116329;font-weight:600}.bad{color:#a40e26;font-weight:600}#seal-checks li.ok{font-weight:400}
        .erased td{color:#6e7781;font-style:italic}
        .muted{color:#57606a}code,.hash{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:.8rem;overflow-wrap:anywhere}
        svg{max-width:100%;height:auto;border:1px solid #d0d7de;background:#fff}
        svg text{font-size:11px;fill:#57606a}
        .legend span{display:inline-block;margin-inline-end:1rem}.legend i{display:inline-block;width:.8rem;height:.8rem;margin-inline-end:.3rem;vertical-align:middle}
        .c0{background:#0969da}.c1{background:#bf3989}.c2{background:#1a7f37}.c3{background:#bc4c00}.c4{background:#8250df}.c5{background:#6e7781}
        details summary{cursor:pointer;color:#0969da}
        @media print{.rows .chunk{content-visibility:visible}body{max-width:none;padding:0;font-size:10pt}h2{break-after:avoid}tr,svg,dl{break-inside:avoid}bdi.long{max-height:none;overflow:visible}a{color:inherit}}
        """

    /// The colours of the charts' series, in order (the legend's `.c0` … classes match).
    static let colours = ["#0969da", "#bf3989", "#1a7f37", "#bc4c00", "#8250df", "#6e7781"]

    /// The Content-Security-Policy: nothing may load or run; only the page's own stylesheet applies.
    static var contentSecurityPolicy: String {
        let digest = Data(SHA256Hasher.digest(Data(css.utf8))).base64EncodedString()
        return "default-src 'none'; style-src 'sha256-\(digest)'; img-src 'none'; script-src 'none'; base-uri 'none'; form-action 'none'"
    }

    /// A whole page around `body` (already HTML).
    static func page(title: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta http-equiv="Content-Security-Policy" content="\(contentSecurityPolicy)">
        <meta name="referrer" content="no-referrer">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(escape(title))</title>
        <style>\(css)</style>
        </head>
        <body>
        \(body)
        </body>
        </html>

        """
    }

    /// A `<dl>` of label/value pairs (values already HTML).
    static func facts(_ pairs: [(String, String)], id: String) -> String {
        var out = "<dl class=\"facts\" id=\"\(id)\">"
        for (label, value) in pairs { out += "<dt>\(escape(label))</dt><dd>\(value)</dd>" }
        return out + "</dl>"
    }

    /// A whole number with thousands separators (1,234,567).
    static func count<I: BinaryInteger>(_ value: I) -> String {
        let digits = String(value.magnitude)
        var out = ""
        for (index, character) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(character)
        }
        return (value < 0 ? "-" : "") + out
    }

    /// A UTC day (days since 1970-01-01) as `YYYY-MM-DD`.
    static func day(_ day: Int64) -> String {
        String(Timestamp.format(Date(timeIntervalSince1970: Double(day) * 86_400)).prefix(10))
    }

    /// How many whole days `occurred` is after `recorded` (negative: before), grouped: `-20,517`, `+2,919,000`.
    static func daysApart(_ occurred: Date, _ recorded: Date) -> String {
        let days = Int64((occurred.timeIntervalSince(recorded) / 86_400).rounded(.towardZero))
        return (days > 0 ? "+" : "") + count(days)
    }

    /// The UTC day of a time (days since 1970-01-01).
    static func dayNumber(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 / 86_400).rounded(.down))
    }
}
