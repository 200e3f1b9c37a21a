import EventLog
import Foundation
import JSONKit

/// The one line per request on standard error: method, path, status, duration, request id,
/// and for a 503 or a 500 the store's reason (``HTTPAPI/HTTPResponse/logNote``, which the
/// client is not sent). Never a token, a header's value or a body.
package enum RequestLog {
    /// The text with control characters and non-ASCII bytes shown as `%HH`, so a hostile path
    /// cannot forge log lines or drive a terminal; spaces too, unless `keepingSpaces` (a
    /// note's sentence, after the line's last field).
    static func printable(_ text: String, keepingSpaces: Bool = false) -> String {
        let space = UInt8(ascii: " ")
        func plain(_ byte: UInt8) -> Bool { (byte > 0x20 && byte < 0x7F) || (keepingSpaces && byte == space) }
        // Most paths are plain: kept as they are, without a copy.
        if text.utf8.allSatisfy(plain) { return text }
        var out = ""
        for byte in text.utf8 {
            if plain(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }

    /// Writes a line to standard error in one call (lines of concurrent requests do not mix);
    /// a closed standard error drops it (never FileHandle.write, which traps then).
    package static func write(_ line: String) {
        let bytes = Array(line.utf8)
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = Glibc.write(2, raw.baseAddress! + offset, raw.count - offset)
                if written <= 0 { if errno == EINTR { continue }; break }
                offset += written
            }
        }
    }

    /// Milliseconds with one decimal, as `%.1f` prints them (without Foundation's formatter,
    /// which the log of every request paid for).
    static func tenths(_ milliseconds: Double) -> String {
        let tenths = Int((max(0, milliseconds) * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }

    /// The line as JSON (`--log-format json`).
    static func jsonLine(method: String, path: String, status: Int, milliseconds: Double, requestID: String, note: String? = nil) -> String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("time"); writer.date(Timestamp.now())
        writer.key("method"); writer.string(method)
        writer.key("path"); writer.string(path)
        writer.key("status"); writer.number(status)
        // Three decimals, as a number: written as text so that 2.0 stays 2.000.
        writer.key("durationMs"); writer.raw(String(format: "%.3f", milliseconds).utf8)
        writer.key("requestID"); writer.string(requestID)
        if let note { writer.key("note"); writer.string(note) }
        writer.endObject()
        return writer.text + "\n"
    }
}
