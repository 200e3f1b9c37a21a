import EventLog
import Foundation
import Simulation
import TestSupport

/// How hard the fault suite pushes: quick by default (inside `swift test`), heavier through
/// the environment (`scripts/test-heavy.sh` sets these).
enum FaultSettings {
    static let environment = ProcessInfo.processInfo.environment

    /// Kills per crash scenario, and server crashes and restarts per server-fault test
    /// (`EVTOOL_FAULT_ITERATIONS`, default 2).
    static let iterations = number("EVTOOL_FAULT_ITERATIONS", default: 2)
    /// Events in the logs that import, migrate and rebuild are killed during (`EVTOOL_FAULT_EVENTS`, default 1,000).
    static let events = number("EVTOOL_FAULT_EVENTS", default: 1_000)
    /// How long the concurrent load runs, in seconds (`EVTOOL_LOAD_SECONDS`, default 2).
    static let loadSeconds = number("EVTOOL_LOAD_SECONDS", default: 2)
    /// Whether this is a heavy run (more than 3 kills per scenario): then the bad-input corpus
    /// tries every value on every option and every truncation of an import line, not a seeded sample.
    static var isHeavy: Bool { iterations > 3 }
    /// The first seed; each iteration uses the next one (`EVTOOL_FAULT_SEED`, default 1).
    /// A failure message names its seed, so the run can be repeated.
    static let seed = UInt64(number("EVTOOL_FAULT_SEED", default: 1))

    static func number(_ name: String, default value: Int) -> Int {
        environment[name].flatMap { Int($0) } ?? value
    }

    /// Prints a figure the heavy run collects (`FAULT-REPORT …` lines).
    static func report(_ line: String) {
        print("FAULT-REPORT \(line)")
    }
}

/// The seeded generator the suite draws kill moments and corpus samples from, so a seed
/// replays the same run.
typealias SeededRandom = SplitMix64

/// The programs under test: the debug builds beside the test bundle, or those in
/// `EVTOOL_FAULT_BINARIES` (the heavy run points it at a release build, for honest latencies).
enum Binaries {
    static let directory = FaultSettings.environment["EVTOOL_FAULT_BINARIES"].flatMap { $0.isEmpty ? nil : $0 }
    static let evtool = directory.map { $0 + "/evtool" } ?? Processes.evtool
    static let driver = directory.map { $0 + "/FaultDriver" } ?? Processes.built("FaultDriver")
}
