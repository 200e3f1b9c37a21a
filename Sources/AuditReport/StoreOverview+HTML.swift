import EventLog
import Foundation

extension StoreOverview {
    /// The overview as one self-contained HTML page.
    package var html: String { html(userLink: nil) }

    /// The overview as one self-contained HTML page, each listed user linked to `userLink` of
    /// their id when given.
    package func html(userLink: (@Sendable (String) -> String)?) -> String {
        var body = "<header><h1>Audit overview of the store</h1>"
        body += "<p class=\"muted\">Made by evtool at \(HTML.escape(Timestamp.format(madeAt))) from \(HTML.user(storeDescription)).</p>"
        body += "<nav id=\"contents\"><h2>Contents</h2><ol>"
            + [("summary", "Summary"), ("per-day", "Events per day by type"), ("users-section", "Users"), ("listings", "Listings"),
               ("seals-section", "Seals"), ("signed-checkpoints-section", "Signed checkpoints"), ("checkpoints-section", "View checkpoints"),
               ("erasures-section", "Erasures")]
                .map { "<li><a href=\"#\($0.0)\">\($0.1)</a></li>" }.joined()
            + "</ol></nav></header>"
        body += "<section id=\"summary\"><h2>Summary</h2>" + HTML.facts([
            ("Store", HTML.user(storeDescription)),
            ("Head position", "<span id=\"head\">\(headPosition)</span>"),
            ("Events", "<span id=\"event-count\">\(events)</span>"),
            ("Users", "<span id=\"user-count\">\(users)</span>"),
            ("Days", "<span id=\"day-count\">\(days.count)</span>" + (days.first.map { " (\(HTML.day($0.day)) – \(HTML.day(days.last?.day ?? $0.day)))" } ?? "")),
            ("Seals", "<span id=\"seal-count\">\(seals.count)</span>"),
            ("Erasures", "<span id=\"erasure-count\">\(erasures.count)</span>"),
        ], id: "facts") + "</section>"

        let series = StoreOverview.chartedTypes + ["other"]
        body += "<section id=\"per-day\"><h2>Events per day by type</h2>"
        body += Chart.stacked(days.map { ($0.day, $0.byType) }, series: series, id: "events-chart", label: "events per day (UTC), stacked by type")
        body += "<details><summary>Per day: events by type, users and active users (\(days.count.counted("day")))</summary><table id=\"days\"><thead><tr><th>Day (UTC)</th>"
        for name in series { body += "<th class=\"n\">\(HTML.escape(name))</th>" }
        body += "<th class=\"n\">Active users</th><th class=\"n\">Users so far</th></tr></thead><tbody>"
        for day in days {
            body += "<tr><td class=\"t\">\(HTML.day(day.day))</td>"
            for value in day.byType { body += "<td class=\"n\">\(value)</td>" }
            body += "<td class=\"n\">\(day.activeUsers)</td><td class=\"n\">\(day.users)</td></tr>"
        }
        body += "</tbody></table></details>"
        body += "<h3>Active users per day</h3>" + Chart.steps(days.map { ($0.day, $0.activeUsers) }, id: "active-chart", label: "users with at least one event per day")
        body += "<h3>Users seen so far</h3>" + Chart.steps(days.map { ($0.day, $0.users) }, id: "users-chart", label: "users seen on or before each day") + "</section>"

        body += "<section id=\"users-section\"><h2>Users</h2>"
        let userRows = topUsers.map { count in
            let name = HTML.user(count.user)
            let cell = userLink.map { "<a href=\"\(HTML.escape($0(count.user)))\">\(name)</a>" } ?? name
            return "<tr><td dir=\"auto\">\(cell)</td><td class=\"n\">\(count.events)</td></tr>"
        }
        body += HTML.rows(id: "users", className: "users", columns: [("User", false), ("Events", true)], rows: userRows)
        if users > topUsers.count { body += "<p class=\"muted\">The \(topUsers.count.counted("user")) with the most events of \(users.counted("user")).</p>" }
        body += "</section>"

        body += "<section id=\"listings\"><h2>Listings</h2>"
        body += listingTable(mostFavorited, id: "most-favorited", title: "Most favorited", column: "Times favorited")
        body += listingTable(mostViewed, id: "most-viewed", title: "Most viewed", column: "Times opened") + "</section>"

        body += "<section id=\"seals-section\"><h2>Seals (\(seals.count))</h2>"
        body += Chart.marks(seals.map { (headPosition > 0 ? Double($0.position) / Double(headPosition) : 0, "seal \($0.number) at position \($0.position), \($0.sealedAt)") },
                            id: "seals-chart", label: "seals along the log's positions")
        body += "<table id=\"seals\"><thead><tr><th class=\"n\">Seal</th><th class=\"n\">Position</th><th class=\"n\">Events</th><th class=\"n\">Streams</th><th>Sealed</th><th>Hash</th></tr></thead><tbody>"
        for seal in seals {
            body += "<tr><td class=\"n\">\(seal.number)</td><td class=\"n\">\(seal.position)</td><td class=\"n\">\(seal.events)</td><td class=\"n\">\(seal.streams)</td>"
            body += "<td class=\"t\">\(HTML.escape(seal.sealedAt))</td><td class=\"hash\">\(HTML.escape(seal.hash))</td></tr>"
        }
        body += "</tbody></table><p class=\"muted\">Events after position \(seals.last?.position ?? 0) are covered only by their streams' hash chains until the next <code>evtool seal</code>.</p></section>"

        body += "<section id=\"signed-checkpoints-section\"><h2>Signed checkpoints (\(signedCheckpoints.count))</h2>"
        let checkpointRows = signedCheckpoints.map { recorded in
            let keys = (try? EventLog.Checkpoint(text: recorded.note))?.signatures.map { "\($0.keyName) \($0.keyID.hexString)" }.joined(separator: ", ") ?? "-"
            return "<tr><td class=\"n\">\(recorded.number)</td><td class=\"n\">\(recorded.seal)</td><td class=\"n\">\(recorded.size)</td>"
                + "<td class=\"t\">\(HTML.escape(recorded.recordedAt))</td><td>\(HTML.user(keys))</td></tr>"
        }
        body += HTML.rows(id: "signed-checkpoints", className: "checkpoints", columns: [("Checkpoint", true), ("Seal", true), ("Tree size", true),
                                                                                       ("Recorded", false), ("Signed by", false)], rows: checkpointRows)
        body += "<p class=\"muted\">Each states the log's Merkle root at its size, signed by the key named; <code>evtool verify --checkpoint FILE --public-key KEY</code> checks one against the log, <code>evtool check-proof</code> an event against one.</p></section>"

        body += "<section id=\"checkpoints-section\"><h2>View checkpoints</h2><table id=\"checkpoints\"><thead><tr><th>View</th><th class=\"n\">Generation</th><th class=\"n\">Version</th><th class=\"n\">Position</th><th class=\"n\">Lag (events)</th><th>Active</th></tr></thead><tbody>"
        for checkpoint in checkpoints {
            let status = checkpoint.status
            body += "<tr><td>\(HTML.user(status.name))</td><td class=\"n\">\(status.generation)</td><td class=\"n\">\(status.version)</td><td class=\"n\">\(status.position)</td>"
            body += "<td class=\"n\">\(checkpoint.lag)</td><td>\(status.isActive ? "yes" : "no (being rebuilt)")</td></tr>"
        }
        body += "</tbody></table></section>"

        body += "<section id=\"erasures-section\"><h2>Erasures (\(erasures.count))</h2><table id=\"erasures\"><thead><tr><th class=\"n\">Position</th><th>Recorded</th><th>Stream</th><th class=\"n\">Events</th><th>By</th><th>Reason</th></tr></thead><tbody>"
        for erasure in erasures {
            body += "<tr><td class=\"n\">\(erasure.position)</td><td class=\"t\">\(Timestamp.format(erasure.recordedAt))</td><td dir=\"auto\">\(HTML.user(erasure.stream))</td>"
            body += "<td class=\"n\">\(erasure.events)</td><td dir=\"auto\">\(HTML.user(erasure.by))</td><td dir=\"auto\">\(HTML.user(erasure.reason))</td></tr>"
        }
        body += "</tbody></table></section>"
        return HTML.page(title: "evtool audit overview", body: body)
    }

    private func listingTable(_ listings: [ListingCount], id: String, title: String, column: String) -> String {
        var out = "<h3>\(HTML.escape(title))</h3><table id=\"\(id)\"><thead><tr><th>Listing</th><th>Name (latest seen)</th><th class=\"n\">\(HTML.escape(column))</th></tr></thead><tbody>"
        for listing in listings {
            out += "<tr><td dir=\"auto\">\(HTML.user(listing.listingID))</td><td dir=\"auto\">\(HTML.user(listing.name))</td><td class=\"n\">\(listing.count)</td></tr>"
        }
        return out + "</tbody></table>"
    }
}
