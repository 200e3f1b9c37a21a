import Commands
import EventLog
import Foundation

extension StoreOverview {
    /// The overview as one self-contained HTML page (a saved page: links stay within it).
    package var html: String { html(links: .none) }

    /// The overview as one self-contained HTML page, linking beyond itself where `links` says
    /// (users to their pages, positions to the log, listings to their cached details).
    package func html(links: AuditReport.Links) -> String {
        var body = "<header><h1>Audit overview of the store</h1>"
        body += "<p class=\"muted\">Made by evtool at \(HTML.escape(Timestamp.format(madeAt))) from \(HTML.user(storeDescription)).</p>"
        body += "<nav id=\"contents\"><h2>Contents</h2><ol>"
            + [("summary", "Summary"), ("verdict-section", "Does the whole log verify?"), ("per-day", "Activity per day"), ("users-section", "Users"),
               ("listings", "Listings"), ("seals-section", "Seals"), ("signed-checkpoints-section", "Signed checkpoints"),
               ("checkpoints-section", "View checkpoints"), ("erasures-section", "Erasures")]
                .map { "<li><a href=\"#\($0.0)\">\($0.1)</a></li>" }.joined()
            + "</ol></nav></header>"
        body += "<section id=\"summary\"><h2>Summary</h2>" + HTML.facts([
            ("Store", HTML.user(storeDescription)),
            ("Head position", "<span id=\"head\">\(headPosition)</span>"),
            ("Events", "<span id=\"event-count\">\(events)</span>"),
            ("Users", "<span id=\"user-count\">\(users)</span>"),
            ("Days with events", "<span id=\"day-count\">\(days.count)</span>" + (days.first.map { " (\(HTML.day($0.day)) – \(HTML.day(days.last?.day ?? $0.day)))" } ?? "")),
            ("Occurred far from when recorded", "<a href=\"#far-section\" id=\"far-count\">\(farEventCount.counted("event"))</a>"),
            ("Seals", "<span id=\"seal-count\">\(seals.count)</span>"),
            ("Erasures", "<span id=\"erasure-count\">\(erasures.count)</span>"),
        ], id: "facts") + "</section>"
        body += verdictSection + perDaySection(links) + usersSection(links) + listingsSection(links) + sealsSection(links) + signedCheckpointsSection
            + viewCheckpointsSection + erasuresSection(links)
        return HTML.page(title: "evtool audit overview", body: body)
    }

    private var verdictSection: String {
        var out = "<section id=\"verdict-section\"><h2>Does the whole log verify?</h2>"
        guard let verdict else { return out + "<p id=\"verdict\" class=\"muted\" data-status=\"not-checked\">Not checked: run <code>evtool verify</code>.</p></section>" }
        switch verdict.status {
        case .verified:
            out += "<p id=\"verdict\" class=\"ok\" data-status=\"verified\">\(HTML.escape(verdict.text))</p>"
        case .failed:
            out += "<p id=\"verdict\" class=\"bad\" data-status=\"failed\">FAILED: \(HTML.user(verdict.text))</p>"
        case .incompleteCopy:
            out += "<p id=\"verdict\" class=\"bad\" data-status=\"incomplete-copy\">Incomplete copy: \(HTML.user(verdict.text))</p>"
        case .empty:
            out += "<p id=\"verdict\" class=\"muted\" data-status=\"empty\">Nothing to verify: the store holds no events and no seals.</p>"
        }
        let checked: [String]
        if let report = verdict.report {
            checked = [
                "every event's hash, chained to the event before it in its stream, and every stream's versions: \(report.checkedEvents.counted("event")) in \(report.streams.counted("stream")) \(report.uncheckedArchivedEvents > 0 ? "from position \(HTML.count(report.firstCheckedPosition)) " : "")up to position \(HTML.count(report.head))"
                    + (report.erasedEvents > 0 ? " (\(report.erasedEvents.counted("erased event")) accepted by their kept digests)" : "")
                    + (report.uncheckedArchivedEvents > 0 ? "; not the \(report.uncheckedArchivedEvents.counted("archived event")) below position \(HTML.count(report.firstCheckedPosition)), whose files the store does not hold (<code>evtool verify --archive FILE</code> checks them)" : ""),
                "every seal: \(report.seals.counted("seal")), each hash recomputed from its fields, its link to the seal before it, its event count and the heads of every stream at its position",
                "the Merkle tree the store keeps, against the log's chain hashes",
                "every checkpoint the store recorded: \(verdict.recordedCheckpoints.counted("checkpoint")), each root against the log's first events",
            ]
        } else if verdict.status == .empty {
            checked = []
        } else {
            checked = ["in order: every event's hash and chain link and every stream's versions, every seal, the kept Merkle tree, the recorded checkpoints; the first problem is named above and nothing after it was checked"]
        }
        if !checked.isEmpty { out += "<ul id=\"verdict-checks\">" + checked.map { "<li>\($0)</li>" }.joined() + "</ul>" }
        return out + "<p class=\"muted\">The same check <code>evtool verify</code> makes, made while making this page (it reads the whole log).</p></section>"
    }

    /// The events that occurred far from when they were recorded: how many, and the first ones in log order.
    private func farSection(_ links: AuditReport.Links) -> String {
        var out = "<h3 id=\"far-section\">Occurred far from when recorded (\(farEventCount))</h3>"
        let rows = farEvents.map { event in
            "<tr><td class=\"n\">\(HTML.link(String(event.position), to: links.position?(event.position)))</td>"
                + "<td dir=\"auto\">\(HTML.link(HTML.user(event.stream), to: event.stream.hasPrefix("$") ? nil : links.user?(UserStream.userID(ofStream: event.stream))))</td>"
                + "<td dir=\"auto\">\(HTML.user(event.type))</td><td class=\"t\">\(Timestamp.format(event.recordedAt))</td><td class=\"t\">\(Timestamp.format(event.occurredAt))</td>"
                + "<td class=\"n\">\(HTML.daysApart(event.occurredAt, event.recordedAt))</td></tr>"
        }
        out += HTML.table(id: "far-events", columns: [("Position", true), ("Stream", false), ("Type", false), ("Recorded", false), ("Occurred", false), ("Days apart", true)],
                          rows: rows, none: "Every event occurred within 30 days of when the store recorded it.")
        if farEventCount > farEvents.count { out += "<p class=\"muted\">The first \(farEvents.count) in log order of \(farEventCount.counted("event")).</p>" }
        return out + "<p class=\"muted\">Each by its client's clock (<code>occurredAt</code>) more than 30 days before or after the store recorded it: a reset or wrong clock, or an app that synced very late. The charts show each on the day it says, as a bar of its own.</p>"
    }

    private func perDaySection(_ links: AuditReport.Links) -> String {
        let series = StoreOverview.chartedTypes + ["other"]
        var out = "<section id=\"per-day\"><h2>Activity per day</h2>"
        out += "<p class=\"muted\">By the day each action occurred (UTC; the client's <code>occurredAt</code>: when the user acted). The store records an action when it takes it; an app that syncs late sends older times. The table gives the events recorded each day too.</p>"
        let occurred = days.filter { $0.byType.contains { $0 > 0 } }
        out += DayBuckets.caption(chartSize, days: occurred.count)
        out += "<h3>Events per \(chartSize.name) by type (occurred)</h3>"
        out += Chart.stacked(DayBuckets.summed(occurred.map { ($0.day, $0.byType) }, chartSize), series: series, id: "events-chart",
                             label: "events per \(chartSize.name) they occurred (UTC), stacked by type")
        var rows: [String] = []
        for day in days {
            var row = "<tr><td class=\"t\">\(HTML.day(day.day))</td>"
            for value in day.byType { row += "<td class=\"n\">\(value)</td>" }
            rows.append(row + "<td class=\"n\">\(day.recorded)</td><td class=\"n\">\(day.activeUsers)</td><td class=\"n\">\(day.users)</td></tr>")
        }
        if !days.isEmpty {
            out += "<details><summary>Per day with events: events by type (occurred), events recorded, users and active users (\(days.count.counted("day")))</summary>"
            out += HTML.table(id: "days", columns: [("Day (UTC)", false)] + series.map { ($0, true) } + [("Recorded that day", true), ("Active users", true), ("Users so far", true)],
                              rows: rows, none: "No days.")
            out += "</details>"
        }
        out += "<h3>Active users per \(chartSize.name) (occurred)</h3>" + Chart.steps(activeUsersByBucket, id: "active-chart", label: "users with at least one action that occurred in each \(chartSize.name)")
        out += "<h3>Users seen so far (by their first action)</h3>" + Chart.steps(DayBuckets.lastLevel(occurred.map { ($0.day, $0.users) }, chartSize), id: "users-chart",
                                                                                 label: "users whose first action occurred on or before the end of each \(chartSize.name)")
        out += farSection(links)
        return out + "</section>"
    }

    private func usersSection(_ links: AuditReport.Links) -> String {
        var out = "<section id=\"users-section\"><h2>Users</h2>"
        let userRows = topUsers.map { count in
            "<tr><td dir=\"auto\">\(HTML.link(HTML.user(count.user), to: links.user?(count.user)))</td><td class=\"n\">\(count.events)</td></tr>"
        }
        out += HTML.rows(id: "users", className: "users", columns: [("User", false), ("Events", true)], rows: userRows, none: "No users.")
        if users > topUsers.count { out += "<p class=\"muted\">The \(topUsers.count.counted("user")) with the most events of \(users.counted("user")).</p>" }
        return out + "</section>"
    }

    private func listingsSection(_ links: AuditReport.Links) -> String {
        "<section id=\"listings\"><h2>Listings</h2>"
            + listingTable(mostFavorited, id: "most-favorited", title: "Most favorited", column: "Times favorited", none: "No listing was favorited.", links: links)
            + listingTable(mostViewed, id: "most-viewed", title: "Most viewed", column: "Times opened", none: "No listing's details were opened.", links: links)
            + "</section>"
    }

    private func sealsSection(_ links: AuditReport.Links) -> String {
        var out = "<section id=\"seals-section\"><h2>Seals (\(seals.count))</h2>"
        guard !seals.isEmpty else {
            return out + "<p id=\"seals\" class=\"muted none\">No seals: the log is covered only by its streams' hash chains until the first <code>evtool seal</code>.</p></section>"
        }
        out += Chart.marks(seals.map { (headPosition > 0 ? Double($0.position) / Double(headPosition) : 0, "seal \($0.number) at position \($0.position), \($0.sealedAt)") },
                           id: "seals-chart", label: "seals along the log's positions")
        let rows = seals.map { seal in
            "<tr id=\"seal-\(seal.number)\"><td class=\"n\">\(seal.number)</td><td class=\"n\">\(HTML.link(String(seal.position), to: links.position?(seal.position)))</td>"
                + "<td class=\"n\">\(seal.events)</td><td class=\"n\">\(seal.streams)</td>"
                + "<td class=\"t\">\(HTML.escape(seal.sealedAt))</td><td class=\"hash\">\(HTML.escape(seal.hash))</td></tr>"
        }
        out += HTML.table(id: "seals", columns: [("Seal", true), ("Position", true), ("Events", true), ("Streams", true), ("Sealed", false), ("Hash", false)],
                          rows: rows, none: "No seals.")
        return out + "<p class=\"muted\">Events after position \(seals.last?.position ?? 0) are covered only by their streams' hash chains until the next <code>evtool seal</code>.</p></section>"
    }

    private var signedCheckpointsSection: String {
        var out = "<section id=\"signed-checkpoints-section\"><h2>Signed checkpoints (\(signedCheckpoints.count))</h2>"
        let checkpointRows = signedCheckpoints.map { recorded in
            let keys = (try? EventLog.Checkpoint(text: recorded.note))?.signatures.map { "\($0.keyName) \($0.keyID.hexString)" }.joined(separator: ", ") ?? "-"
            let seal = seals.contains { $0.number == recorded.seal } ? "<a href=\"#seal-\(recorded.seal)\">\(recorded.seal)</a>" : "\(recorded.seal)"
            return "<tr><td class=\"n\">\(recorded.number)</td><td class=\"n\">\(seal)</td><td class=\"n\">\(recorded.size)</td>"
                + "<td class=\"t\">\(HTML.escape(recorded.recordedAt))</td><td>\(HTML.user(keys))</td></tr>"
        }
        out += HTML.rows(id: "signed-checkpoints", className: "checkpoints", columns: [("Checkpoint", true), ("Seal", true), ("Tree size", true),
                                                                                       ("Recorded", false), ("Signed by", false)], rows: checkpointRows,
                         none: "No checkpoints recorded (each evtool seal --key records one).")
        return out + "<p class=\"muted\">Each states the log's Merkle root at its size, signed by the key named; <code>evtool verify --checkpoint FILE --public-key KEY</code> checks one against the log, <code>evtool check-proof</code> an event against one.</p></section>"
    }

    private var viewCheckpointsSection: String {
        let rows = checkpoints.map { checkpoint in
            let status = checkpoint.status
            return "<tr><td>\(HTML.user(status.name))</td><td class=\"n\">\(status.generation)</td><td class=\"n\">\(status.version)</td><td class=\"n\">\(status.position)</td>"
                + "<td class=\"n\">\(checkpoint.lag)</td><td>\(status.isActive ? "yes" : "no (being rebuilt)")</td></tr>"
        }
        return "<section id=\"checkpoints-section\"><h2>View checkpoints</h2>"
            + HTML.table(id: "checkpoints", columns: [("View", false), ("Generation", true), ("Version", true), ("Position", true), ("Lag (events)", true), ("Active", false)],
                         rows: rows, none: "No view has a checkpoint yet (evtool project or any view read makes them).")
            + "</section>"
    }

    private func erasuresSection(_ links: AuditReport.Links) -> String {
        let rows = erasures.map { erasure in
            let user = UserStream.userID(ofStream: erasure.stream)
            return "<tr><td class=\"n\">\(HTML.link(String(erasure.position), to: links.position?(erasure.position)))</td><td class=\"t\">\(Timestamp.format(erasure.recordedAt))</td>"
                + "<td dir=\"auto\">\(HTML.link(HTML.user(erasure.stream), to: links.user?(user)))</td>"
                + "<td class=\"n\">\(erasure.events)</td><td dir=\"auto\">\(HTML.user(erasure.by))</td><td dir=\"auto\">\(HTML.user(erasure.reason))</td></tr>"
        }
        return "<section id=\"erasures-section\"><h2>Erasures (\(erasures.count))</h2>"
            + HTML.table(id: "erasures", columns: [("Position", true), ("Recorded", false), ("Stream", false), ("Events", true), ("By", false), ("Reason", false)],
                         rows: rows, none: "No user was erased.")
            + "</section>"
    }

    private func listingTable(_ listings: [ListingCount], id: String, title: String, column: String, none: String, links: AuditReport.Links) -> String {
        let rows = listings.map { listing in
            "<tr><td dir=\"auto\">\(HTML.link(HTML.user(listing.listingID), to: links.listing?(listing.listingID) ?? nil))</td><td dir=\"auto\">\(HTML.user(listing.name))</td><td class=\"n\">\(listing.count)</td></tr>"
        }
        return "<h3>\(HTML.escape(title))</h3>" + HTML.table(id: id, columns: [("Listing", false), ("Name (latest seen)", false), (column, true)], rows: rows, none: none)
    }
}
