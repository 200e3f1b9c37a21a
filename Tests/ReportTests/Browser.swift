import Foundation
import TestSupport

/// Loads a report page in headless Chromium through Tests/Browser/report_page.py (Selenium in
/// the venv scripts/python-env.sh makes) and returns what the browser shows.
enum Browser {
    /// What the page shows, as the script extracts it.
    struct Page: Decodable {
        struct Row: Decodable {
            var position: String?
            var erased: Bool
            var cells: [String]
        }
        struct Overview: Decodable {
            var events: String?
            var users: String?
            var days: [[String]]?
            var bars: [Bar]
            var mostFavorited: [[String]]?
            var mostViewed: [[String]]?
            var seals: [[String]]?
            var checkpoints: [[String]]?
            var erasures: [[String]]?
        }
        struct Bar: Decodable {
            var day: String
            var series: String
            var count: Int
            init(from decoder: Decoder) throws {
                var container = try decoder.unkeyedContainer()
                day = try container.decode(String.self)
                series = try container.decode(String.self)
                count = try container.decode(Int.self)
            }
        }
        struct Point: Decodable, Equatable, CustomStringConvertible {
            var day: String
            var count: Int
            init(day: String, count: Int) { self.day = day; self.count = count }
            init(from decoder: Decoder) throws {
                var container = try decoder.unkeyedContainer()
                day = try container.decode(String.self)
                count = try container.decode(Int.self)
            }
            var description: String { "\(day)=\(count)" }
        }
        struct LinkStatus: Decodable, CustomStringConvertible {
            var url: String
            var status: Int
            init(from decoder: Decoder) throws {
                var container = try decoder.unkeyedContainer()
                url = try container.decode(String.self)
                status = try container.decode(Int.self)
            }
            var description: String { "\(url) \(status)" }
        }
        struct Request: Decodable, CustomStringConvertible {
            var url: String
            var document: String
            var description: String { "\(url) (from \(document))" }
        }
        var title: String
        var pwned: String?
        var scripts: Int
        var images: Int
        var iframes: Int
        var onHandlers: [String]
        var styleApplied: String
        var scrollWidth: Int
        var clientWidth: Int
        var actionCount: String?
        var head: String?
        var chain: String?
        var seal: String?
        var sealCheck: String?
        var sealSteps: [[String]]
        var counts: [[String]]
        var timeline: [Row]
        var favorites: [[String]]?
        var recent: [[String]]?
        var viewed: [[String]]?
        var searches: [[String]]?
        var favoriteChanges: [[String]]?
        var points: [Point]
        var overview: Overview
        var verdict: [String]?
        var verdictChecks: [String]
        var activePoints: Int
        var usersPoints: Int
        var missingAnchors: [String]
        var inPageLinks: Int
        var otherLinks: [String]
        var emptyHeaders: [String]
        var linkStatuses: [LinkStatus]
        var bodyText: String
        var openSeconds: Double
        var requests: [Request]
        var console: [String]
    }

    /// The repository's root (this file is Tests/ReportTests/Browser.swift).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    /// A test's output folder, kept after the test (screenshots to look at): .build/test-output/report/NAME.
    static func outputFolder(_ name: String) throws -> String {
        let path = root + "/.build/test-output/report/" + name
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// The venv's python (created on first use).
    static func python() throws -> String {
        let result = try Processes.run(root + "/scripts/python-env.sh", [])
        guard result.status == 0 else { throw BrowserError("scripts/python-env.sh failed: \(result)") }
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Opens `page` (an HTML file, or an http:// URL sent with `bearer` as its token) and saves a screenshot as `screenshot`.
    static func load(_ page: String, screenshot: String, bearer: String? = nil) throws -> Page {
        let environment = bearer.map { ProcessInfo.processInfo.environment.merging(["EVTOOL_TEST_BEARER": $0]) { $1 } }
        let result = try Processes.run(try python(), [root + "/Tests/Browser/report_page.py", page, screenshot], environment: environment)
        guard result.status == 0 else { throw BrowserError("the browser script failed: \(result)") }
        return try JSONDecoder().decode(Page.self, from: Data(result.output.utf8))
    }

    /// The requests other than loading the page itself: any the page's document made, and any
    /// from any other document (the browser's own chrome:// pages, such as the first blank tab, aside).
    static func foreignRequests(_ page: Page, file: String) -> [Page.Request] {
        foreignRequests(page, own: ["file://" + file, URL(fileURLWithPath: file).absoluteString])
    }

    /// The same for a page loaded from `own` (its URL or URLs).
    static func foreignRequests(_ page: Page, own: [String]) -> [Page.Request] {
        page.requests.filter { request in
            if own.contains(request.url) { return false }
            if own.contains(request.document) { return true }
            return !request.url.hasPrefix("chrome://") && !request.document.hasPrefix("chrome://")
        }
    }
}

/// A served page for the browser tests: `evtool serve` on a free local port (TestSupport's ``LocalPort``).
enum LocalServer {
    static func freePort() throws -> UInt16 { try LocalPort.free() }
    static func waitUntilListening(_ port: UInt16, process: Processes.Running) throws {
        try LocalPort.waitUntilListening(port, process: process, seconds: 30)
    }
}

struct BrowserError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
