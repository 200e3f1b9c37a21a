import Foundation
import TestSupport
import Testing

/// `import` and `export --format cloudevents` against the CloudEvents Python SDK (PyPI
/// `cloudevents`, in the tests' virtual environment made by scripts/python-env.sh).
@Suite("CloudEvents: events written by the Python SDK import; evtool's export validates with the SDK")
struct CloudEventsSDKTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The Python with the SDK (`$EVTOOL_TEST_PYTHON`, else made by scripts/python-env.sh).
    static func python() throws -> String {
        if let python = ProcessInfo.processInfo.environment["EVTOOL_TEST_PYTHON"], !python.isEmpty { return python }
        let made = try Processes.run("/bin/bash", [root.appendingPathComponent("scripts/python-env.sh").path])
        #expect(made.status == 0, "scripts/python-env.sh failed: \(made)")
        return made.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Writes CloudEvents with the SDK, one per line.
    static let writer = """
        import sys
        from datetime import datetime, timezone
        from cloudevents.core.v1.event import CloudEvent
        from cloudevents.core.formats.json import JSONFormat
        fmt = JSONFormat()
        events = [
            CloudEvent({"type": "com.example.order.placed", "source": "https://shop.example/orders", "id": "order-1",
                        "subject": "ada", "datacontenttype": "application/json", "shopregion": "eu",
                        "time": datetime(2026, 3, 4, 5, 6, 7, 250000, tzinfo=timezone.utc)},
                       {"total": 12.5, "items": ["ticket", "parking"], "note": "caf\\u00e9"}),
            CloudEvent({"type": "com.example.order.paid", "source": "https://shop.example/orders", "id": "order-1-paid",
                        "subject": "ada", "dataschema": "https://shop.example/schemas/paid.json"}, {"amount": 12.5}),
            CloudEvent({"type": "com.example.ping", "source": "/monitor", "subject": "bob"}),
        ]
        for event in events:
            sys.stdout.write(fmt.write(event).decode("utf-8") + "\\n")
        """

    /// Reads each line of standard input with the SDK (which validates the attributes) and
    /// prints what it read as one JSON object per line.
    static let reader = """
        import json, sys
        from cloudevents.core.formats.json import JSONFormat
        fmt = JSONFormat()
        for number, line in enumerate(sys.stdin, 1):
            if not line.strip():
                continue
            try:
                event = fmt.read(None, line.encode("utf-8"))
            except Exception as error:
                print(f"line {number}: {type(error).__name__}: {error}", file=sys.stderr)
                sys.exit(1)
            attributes = dict(event.get_attributes())
            attributes["time"] = attributes["time"].isoformat()
            print(json.dumps({"attributes": attributes, "data": event.get_data()}, sort_keys=True))
        """

    @Test("the SDK's events import (subject → stream, time, source/id/extensions in the metadata), once; evtool's export reads back with the SDK")
    func sdkRoundTrip() throws {
        let python = try Self.python()
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let cli = CLI(store: "sqlite:\(directory.path)/store.sqlite", directory: directory.path)

        let written = try Processes.run(python, ["-c", Self.writer])
        #expect(written.status == 0, "\(written)")
        let file = try cli.file("sdk.jsonl", written.output)
        var result = try cli.run("import", file)
        #expect(result.status == 0 && result.output.hasPrefix("imported 3 events, skipped 0 already present"), "\(result)")
        result = try cli.run("import", file)
        #expect(result.status == 0 && result.output.hasPrefix("imported 0 events, skipped 3 already present"), "\(result)")

        // Plain lines beside them, into another stream.
        let plain = try cli.file("plain.jsonl", #"{"stream":"cyd","type":"Noted","data":{"keyword":"jazz","multi":"line\nbreak"}}"# + "\n")
        #expect(try cli.run("import", plain).status == 0)

        let exported = try cli.run("export", "--format", "cloudevents")
        #expect(exported.status == 0, "\(exported)")
        let read = try Processes.run(python, ["-c", Self.reader], input: exported.output)
        #expect(read.status == 0, "the SDK refused evtool's export: \(read)")
        let events = try read.output.split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:] }
        #expect(events.count == 4, "\(read.output)")
        guard events.count == 4 else { return }
        let attributes = events.map { $0["attributes"] as? [String: Any] ?? [:] }
        #expect(attributes.map { $0["subject"] as? String } == ["ada", "ada", "bob", "cyd"])
        #expect(attributes.map { $0["type"] as? String } == ["com.example.order.placed", "com.example.order.paid", "com.example.ping", "Noted"])
        #expect(attributes.allSatisfy { $0["specversion"] as? String == "1.0" && $0["datacontenttype"] as? String == "application/json" })
        #expect(attributes.map { $0["evtoolversion"] as? Int } == [1, 2, 1, 1])
        #expect(attributes[0]["time"] as? String == "2026-03-04T05:06:07.250000+00:00")
        let first = events[0]["data"] as? [String: Any]
        #expect(first?["total"] as? Double == 12.5 && first?["note"] as? String == "café")
        #expect((events[3]["data"] as? [String: Any])?["multi"] as? String == "line\nbreak")
        // What the producer said beyond the mapped attributes is kept in the metadata.
        let metadata = try JSONSerialization.jsonObject(with: Data((attributes[0]["evtoolmetadata"] as? String ?? "").utf8)) as? [String: Any]
        let kept = metadata?["cloudevents"] as? [String: Any]
        #expect(kept?["source"] as? String == "https://shop.example/orders" && kept?["id"] as? String == "order-1" && kept?["shopregion"] as? String == "eu",
                "\(String(describing: metadata))")
        let paid = try JSONSerialization.jsonObject(with: Data((attributes[1]["evtoolmetadata"] as? String ?? "").utf8)) as? [String: Any]
        #expect((paid?["cloudevents"] as? [String: Any])?["dataschema"] as? String == "https://shop.example/schemas/paid.json")

        // evtool's own CloudEvents export imports into another store as the same log.
        let copy = CLI(store: "sqlite:\(directory.path)/copy.sqlite", directory: directory.path)
        #expect(try copy.run("import", "-", input: exported.output).status == 0)
        #expect(try copy.run("export").output == cli.run("export").output)
    }

    @Test("import: a CloudEvent the SDK accepts but evtool cannot keep is refused with its line and attribute, exit 65, nothing written")
    func refusedSDKEvent() throws {
        let python = try Self.python()
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let cli = CLI(store: "sqlite:\(directory.path)/store.sqlite", directory: directory.path)
        let script = """
            from cloudevents.core.v1.event import CloudEvent
            from cloudevents.core.formats.json import JSONFormat
            print(JSONFormat().write(CloudEvent({"type": "com.example.blob", "source": "/blobs", "subject": "ada"}, b"\\x00\\x01")).decode())
            """
        let written = try Processes.run(python, ["-c", script])
        #expect(written.status == 0 && written.output.contains("data_base64"), "\(written)")
        let result = try cli.run("import", "-", input: written.output)
        #expect(result.status == 65, "\(result)")
        #expect(result.errors == "Error: line 1: 'data_base64' (binary data) cannot be imported: evtool keeps JSON payloads (nothing from this line on was imported; 0 events were before it)\n", "\(result)")
        #expect(try cli.run("export").output.isEmpty)
    }
}
