import Foundation

/// docs/schema/sqlite.sql and docs/schema/postgres.sql: the schema of a new store, as the
/// store itself makes it, so a reader need not replay every migration. The tests that own
/// them compare each with a store made now, and fail when they drift;
/// `EVTOOL_WRITE_SCHEMA=1` (what scripts/schema.sh sets) writes them instead.
public enum SchemaFile {
    /// The repository's root folder.
    public static var root: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// The schema of the SQLite store at `path`: every `CREATE` statement SQLite keeps, in the
    /// order it was made, each ended with `;`.
    public static func sqlite(path: String) throws -> String {
        let result = try Processes.run(Processes.sqlite3, [path, "SELECT sql || ';' FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid;"])
        guard result.status == 0 else { throw SchemaFileError.tool("sqlite3 failed: \(result)") }
        return tidy(result.output)
    }

    /// The schema `schema` of the PostgreSQL database at `url`, as `pg_dump --schema-only`
    /// prints it (no owners, no privileges), named `evtool` whatever its name, without the
    /// lines that name the server's version or set the dump's session.
    public static func postgres(url: String, schema: String) throws -> String {
        let result = try Processes.run(pgDump, ["--schema-only", "--no-owner", "--no-privileges", "--schema=\(schema)", url])
        guard result.status == 0 else { throw SchemaFileError.tool("pg_dump failed: \(result)") }
        let kept = result.output.split(separator: "\n", omittingEmptySubsequences: false).filter { line in
            !(line.hasPrefix("\\restrict") || line.hasPrefix("\\unrestrict") || line.hasPrefix("-- Dumped from")
                || line.hasPrefix("-- Dumped by") || line.hasPrefix("SET ") || line.hasPrefix("SELECT pg_catalog.set_config"))
        }
        return tidy(kept.joined(separator: "\n").replacingOccurrences(of: schema, with: "evtool"))
    }

    /// Compares `text` with docs/schema/`name` under its header, or writes it there when
    /// `EVTOOL_WRITE_SCHEMA=1`. Returns nil when they agree (or it was written), else why not.
    public static func check(_ name: String, header: String, text: String) throws -> String? {
        let file = root.appendingPathComponent("docs/schema/\(name)")
        let expected = header.split(separator: "\n").map { "-- " + $0 }.joined(separator: "\n") + "\n\n" + text
        if ProcessInfo.processInfo.environment["EVTOOL_WRITE_SCHEMA"] == "1" {
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try expected.write(to: file, atomically: true, encoding: .utf8)
            return nil
        }
        guard FileManager.default.fileExists(atPath: file.path) else { return "docs/schema/\(name) is missing; run scripts/schema.sh" }
        let found = try String(contentsOf: file, encoding: .utf8)
        if found == expected { return nil }
        let expectedLines = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let foundLines = found.split(separator: "\n", omittingEmptySubsequences: false)
        let first = (0..<min(expectedLines.count, foundLines.count)).first { expectedLines[$0] != foundLines[$0] } ?? min(expectedLines.count, foundLines.count)
        let made = first < expectedLines.count ? String(expectedLines[first]) : "(end)"
        let kept = first < foundLines.count ? String(foundLines[first]) : "(end)"
        return "docs/schema/\(name) differs from a new store's schema at line \(first + 1): the store makes '\(made)', the file has '\(kept)'; run scripts/schema.sh"
    }

    /// `pg_dump` of the newest PostgreSQL installed, else the one on the PATH.
    static var pgDump: String {
        let root = "/usr/lib/postgresql"
        // No such folder (PostgreSQL installed elsewhere): the pg_dump on the PATH.
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: root) else { return "/usr/bin/pg_dump" }
        let versions = entries.compactMap(Int.init).sorted()
        for version in versions.reversed() where FileManager.default.isExecutableFile(atPath: "\(root)/\(version)/bin/pg_dump") {
            return "\(root)/\(version)/bin/pg_dump"
        }
        return "/usr/bin/pg_dump"
    }

    /// Lines without trailing spaces, no more than one blank line in a row, one final newline.
    static func tidy(_ text: String) -> String {
        var lines: [Substring] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.reversed().drop { $0 == " " }.reversed()
            let line = Substring(String(trimmed))
            if line.isEmpty && (lines.last?.isEmpty ?? true) { continue }
            lines.append(line)
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// A tool the schema files are made with failed.
public enum SchemaFileError: Error, CustomStringConvertible {
    /// The tool and what it printed.
    case tool(String)

    /// The failure, for the test's report.
    public var description: String {
        switch self {
        case .tool(let message): return message
        }
    }
}
