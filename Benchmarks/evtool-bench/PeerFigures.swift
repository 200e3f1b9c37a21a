import Foundation
import EventLog

/// The peers' figures that ../shared/bench (`peers.sh`) wrote on this machine, read so that
/// `bench postgres` and `bench sqlite` can print them beside evtool's own same-run figures.
///
/// `peers.sh` writes `results.json` under `$ESBENCH_OUT/<N>/` (default `/tmp/esbench/results`).
/// Only results written in the last `maximumAge` are used: older ones come from another
/// load, another build, perhaps another machine.
struct PeerFigures {
    /// One measurement of the peers' harness: its median rate and what it measured.
    struct Figure {
        var name: String
        var eventsPerSecond: Double
        var events: Int
        var load: Double
        var what: String
    }

    var figures: [Figure]
    var path: String
    var measuredAt: String

    /// The newest results under the peers' output directory, if any are recent enough.
    static func latest(maximumAge: TimeInterval = 6 * 3600, environment: [String: String] = ProcessInfo.processInfo.environment) -> PeerFigures? {
        let root = environment["ESBENCH_OUT"] ?? "/tmp/esbench/results"
        let files = FileManager.default
        guard let sizes = try? files.contentsOfDirectory(atPath: root) else { return nil }
        var newest: (path: String, date: Date)?
        for size in sizes {
            let path = "\(root)/\(size)/results.json"
            guard let date = (try? files.attributesOfItem(atPath: path))?[.modificationDate] as? Date else { continue }
            if newest.map({ date > $0.date }) ?? true { newest = (path, date) }
        }
        guard let newest, Date().timeIntervalSince(newest.date) <= maximumAge,
              let data = files.contents(atPath: newest.path) else { return nil }
        return parse(data, path: newest.path)
    }

    /// Reads `results.json` as bench.py writes it; nil when it is not that shape.
    static func parse(_ data: Data, path: String) -> PeerFigures? {
        guard let root = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
              let measurements = root["measurements"] as? [[String: Any]] else { return nil }
        var figures: [Figure] = []
        for measurement in measurements {
            guard let name = measurement["name"] as? String,
                  let runs = measurement["runs"] as? [[String: Any]], !runs.isEmpty else { continue }
            let rates = runs.compactMap { ($0["events_per_s"] as? NSNumber)?.doubleValue }.sorted()
            guard !rates.isEmpty else { continue }
            let median = rates.count % 2 == 1 ? rates[rates.count / 2] : (rates[rates.count / 2 - 1] + rates[rates.count / 2]) / 2
            let events = (runs.first?["events"] as? NSNumber)?.intValue ?? 0
            let load = runs.compactMap { ($0["load1"] as? NSNumber)?.doubleValue }.max() ?? 0
            figures.append(Figure(name: name, eventsPerSecond: median, events: events, load: load,
                                  what: measurement["what"] as? String ?? ""))
        }
        let environment = root["environment"] as? [String: Any]
        return PeerFigures(figures: figures, path: path, measuredAt: environment?["when"] as? String ?? "?")
    }

    /// The figures whose names start with one of `prefixes`, in the harness's order.
    func matching(_ prefixes: [String]) -> [Figure] {
        figures.filter { figure in prefixes.contains { figure.name.hasPrefix($0) } }
    }

    /// Report lines: each peer figure, and evtool's same-operation figure as a multiple of it.
    static func lines(prefixes: [String], ours: [String: Double], targets: [String: Double] = [:]) -> [String] {
        guard let peers = latest() else {
            return ["peers: no recent ../shared/bench results (run ../shared/bench/peers.sh first to print them here)"]
        }
        let chosen = peers.matching(prefixes)
        guard !chosen.isEmpty else { return ["peers: \(peers.path) has none of \(prefixes.joined(separator: ", "))"] }
        var lines = ["peers (../shared/bench, \(peers.path), measured \(peers.measuredAt); another run, so read these ratios loosely):"]
        for figure in chosen {
            var line = "  " + figure.name.padded(to: 24) + (String(Int(figure.eventsPerSecond.rounded())).groupedThousands + "/s").leftPadded(to: 12, with: " ")
                + "  N = \(figure.events), load1 \(String(format: "%.1f", figure.load))"
            if let key = ours.keys.first(where: { figure.name.hasPrefix($0) }), let rate = ours[key] {
                let ratio = rate / figure.eventsPerSecond
                line += "; evtool \(String(Int(rate.rounded())).groupedThousands)/s = \(String(format: "%.2f", ratio))×"
                if let target = targets[key] {
                    line += ratio >= target ? " (≥ \(String(format: "%.2f", target)) ok)" : " (< \(String(format: "%.2f", target)) MISSED)"
                }
            }
            lines.append(line + "  — \(figure.what)")
        }
        return lines
    }
}
