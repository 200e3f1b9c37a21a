import EventLog
import Foundation
import Projections

extension UserReport {
    /// The report as one self-contained HTML page (a saved page: links stay within it).
    package var html: String { html(links: .none) }

    /// The report as one self-contained HTML page, linking beyond itself where `links` says.
    /// Positions of the user's events link to their timeline rows (`#event-POSITION`), listings
    /// to the user's last event about them.
    package func html(links: AuditReport.Links) -> String {
        var body = "<header><h1>Audit report: user \(HTML.user(user))</h1>"
        body += "<p class=\"muted\">Made by evtool at \(HTML.escape(Timestamp.format(madeAt))) from \(HTML.user(storeDescription))."
        if let overview = links.overview { body += " <a id=\"overview-link\" href=\"\(HTML.escape(overview))\">The store overview</a>." }
        body += "</p>"
        body += "<nav id=\"contents\"><h2>Contents</h2><ol>"
            + [("summary", "Who and what"), ("trust", "Can this log be trusted?"), ("favorites-over-time", "Favorites over time"),
               ("lists", "Lists"), ("searches-section", "Searches"), ("timeline-section", "Timeline")]
                .map { "<li><a href=\"#\($0.0)\">\($0.1)</a></li>" }.joined()
            + "</ol></nav></header>"
        body += summarySection + trustSection + favoritesSection + listsSection + searchesSection + timelineSection(links)
        return HTML.page(title: "evtool audit report: \(user)", body: body)
    }

    private var pointText: String {
        switch asOf {
        case nil: return "now (head position \(headPosition))"
        case .position(let position)?: return "as of position \(position) (the store's head was \(headPosition))"
        case .time(let time)?: return "as of \(Timestamp.format(time)) (the store's head was \(headPosition))"
        }
    }

    private var summarySection: String {
        var facts: [(String, String)] = [
            ("User", HTML.user(user)),
            ("Store", HTML.user(storeDescription)),
            ("Point in the log", "<span id=\"point\">\(HTML.escape(pointText))</span>"),
            ("Head position", "<span id=\"head\">\(headPosition)</span>"),
            ("Actions", "<span id=\"action-count\">\(rows.count)</span>"),
        ]
        if let period, let occurred = occurredPeriod {
            facts.append(("Period (occurred)", "<span id=\"occurred-period\">\(HTML.escape(Timestamp.format(occurred.first))) – \(HTML.escape(Timestamp.format(occurred.last)))</span>"))
            facts.append(("Period (recorded)", "<span id=\"period\">\(HTML.escape(Timestamp.format(period.first))) – \(HTML.escape(Timestamp.format(period.last)))</span>"))
            facts.append(("Occurred far from when recorded", "<a href=\"#far-section\" id=\"far-count\">\(farRows.count.counted("action"))</a>"))
        } else {
            facts.append(("Period", "<span id=\"period\">no actions</span>"))
        }
        let counts = HTML.table(id: "counts", columns: [("Type", false), ("Events", true)], rows: countsByType.sorted(by: { $0.key < $1.key }).map { type, count in
            "<tr><td dir=\"auto\">\(HTML.user(type))</td><td class=\"n\" data-type=\"\(HTML.escape(type))\">\(count)</td></tr>"
        }, none: "No actions.")
        return "<section id=\"summary\"><h2>Who and what</h2>" + HTML.facts(facts, id: "facts") + "<h3>Actions by type</h3>" + counts + "</section>"
    }

    private var trustSection: String {
        let chainText: String
        switch chain {
        case let .verified(events, erased):
            let erasedText = erased > 0 ? " (\(erased) erased, accepted by their kept digests)" : ""
            chainText = "<span class=\"ok\" id=\"chain\" data-status=\"verified\">verified: \(events.counted("event")) in the user's hash chain\(erasedText)</span>"
        case .failed(let reason):
            chainText = "<span class=\"bad\" id=\"chain\" data-status=\"failed\">does not verify: \(HTML.user(reason))</span>"
        case .empty:
            chainText = "<span class=\"muted\" id=\"chain\" data-status=\"empty\">the user has no events: nothing to verify</span>"
        }
        let sealText: String
        if let seal = coveringSeal {
            sealText = "<span id=\"seal\" data-number=\"\(seal.number)\">seal \(seal.number) at position \(seal.position), sealed \(HTML.escape(seal.sealedAt)): <span class=\"hash\">\(HTML.escape(seal.hash))</span></span>"
        } else {
            sealText = "<span id=\"seal\" class=\"bad\">no seal covers the user's last event yet (\(sealCount.counted("seal")) in the store): run <code>evtool seal</code></span>"
        }
        let facts = HTML.facts([("Hash chain (checked now)", chainText), ("Latest seal covering the last event", sealText),
                                ("That seal (checked now)", sealCheckText)], id: "trust-facts")
        return "<section id=\"trust\"><h2>Can this log be trusted?</h2>" + facts + sealStepsList
            + "<p>The chain check proves that each of the user's events is the one appended at its place (content, order, time), and a seal whose hash matches one kept outside the store proves that nothing up to its position was removed; neither proves the events were true when recorded, nor anything about an operator who can rewrite both the store and every copy of the seal hashes (the evtool documentation explains both: docs/explanation/audit.md, “Seals” and “evtool verify”, in its sources and installed documents).</p></section>"
    }

    private var sealCheckText: String {
        guard let check = sealCheck else {
            let checkpoint = uncheckedCheckpoint.map { "; the checkpoint ‘\(HTML.user($0))’ was not checked" } ?? ""
            return "<span id=\"seal-check\" class=\"muted\" data-status=\"none\">no seal to check\(checkpoint)</span>"
        }
        if check.passed {
            let checkpoint = check.steps.contains { $0.name == "root" } ? ", the log's event count up to it and the checkpoint given" : ""
            return "<span id=\"seal-check\" class=\"ok\" data-status=\"verified\">verified: its hash and its link to the seals before it\(checkpoint) (below)</span>"
        }
        let failed = check.steps.filter { $0.status == .failed }.map(\.name).joined(separator: ", ")
        return "<span id=\"seal-check\" class=\"bad\" data-status=\"failed\">FAILED (\(HTML.escape(failed))): do not rely on this seal; see below and run <code>evtool verify</code></span>"
    }

    private var sealStepsList: String {
        guard let check = sealCheck else { return "" }
        var out = "<h3>What was checked about the seal</h3><ul id=\"seal-checks\">"
        for step in check.steps {
            let mark = step.status == .passed ? "✓" : step.status == .failed ? "✗ FAILED:" : "– not checked:"
            let className = step.status == .passed ? "ok" : step.status == .failed ? "bad" : "muted"
            out += "<li class=\"\(className)\" data-check=\"\(HTML.escape(step.name))\" data-status=\"\(step.status.rawValue)\">\(mark) \(HTML.user(step.text))</li>"
        }
        out += "<li class=\"muted\" data-check=\"not-here\" data-status=\"not-checked\">– not checked here: the seal's heads digest (every stream's head at the seal, which <code>evtool verify</code> recomputes from the whole log), and whether the seal's hash is one kept outside the store (compare it with your copy"
        out += check.steps.contains { $0.name == "root" } ? ")</li>" : ", or give the signed checkpoint of that seal: <code>evtool report --checkpoint FILE --public-key KEY</code>)</li>"
        return out + "</ul>"
    }

    /// The link of a listing id (already HTML): the user's last event about it on this page.
    private func listing(_ id: String, _ text: String) -> String {
        HTML.link(text, to: lastEventOfListing[id].map { "#" + HTML.eventAnchor($0) })
    }

    private func timelineSection(_ links: AuditReport.Links) -> String {
        var out = "<section id=\"timeline-section\"><h2>Timeline (\(rows.count.counted("action")))</h2>"
        out += "<p class=\"muted\">Recorded: when the store took the event (its clock; the log's order). Occurred: when the user acted, by the client's clock (<code>occurredAt</code>); the charts above use it.</p>"
        var lines: [String] = []
        lines.reserveCapacity(rows.count)
        for row in rows {
            let entry = row.entry
            // The action's own time (X-Occurred-At, --occurred-at) beside the time the log recorded it.
            let head = "<td><a href=\"#\(HTML.eventAnchor(entry.position))\">\(entry.position)</a></td><td>\(Timestamp.format(entry.recordedAt))</td>"
                + "<td>\(entry.occurredAt.map(Timestamp.format) ?? "-")</td><td>\(HTML.cell(entry.type))</td>"
            if let erasure = row.erasure {
                let erasedAt = HTML.link(String(erasure.position), to: links.position?(erasure.position))
                lines.append("<tr id=\"\(HTML.eventAnchor(entry.position))\" class=\"erased\" data-position=\"\(entry.position)\">" + head
                    + "<td colspan=\"4\">erased at \(Timestamp.format(erasure.recordedAt)) by \(HTML.user(erasure.by)): \(HTML.user(erasure.reason)) (UserErased at position \(erasedAt))</td></tr>")
                continue
            }
            lines.append("<tr id=\"\(HTML.eventAnchor(entry.position))\" data-position=\"\(entry.position)\">" + head + "<td>\(HTML.cell(entry.summary))</td><td>\(HTML.cell(entry.source ?? "-"))</td>"
                + "<td>\(HTML.cell(entry.requestID ?? "-"))</td><td>\(HTML.cell(entry.correlationID ?? "-"))</td></tr>")
        }
        out += HTML.rows(id: "timeline", className: "timeline", columns: [
            ("Position", true), ("Recorded", false), ("Occurred", false), ("Type", false), ("What", false), ("Source", false), ("Request", false),
            ("Correlation", false),
        ], rows: lines, none: "No actions.")
        return out + "</section>"
    }

    /// The user's actions that occurred far from when they were recorded, each linked to its timeline row.
    private var farSection: String {
        let far = farRows
        let lines = far.map { row in
            "<tr><td class=\"n\"><a href=\"#\(HTML.eventAnchor(row.entry.position))\">\(row.entry.position)</a></td><td dir=\"auto\">\(HTML.user(row.entry.type))</td>"
                + "<td class=\"t\">\(Timestamp.format(row.entry.recordedAt))</td><td class=\"t\">\(Timestamp.format(row.entry.occurredAt ?? row.entry.recordedAt))</td>"
                + "<td class=\"n\">\(HTML.daysApart(row.entry.occurredAt ?? row.entry.recordedAt, row.entry.recordedAt))</td></tr>"
        }
        return "<h3 id=\"far-section\">Occurred far from when recorded (\(far.count))</h3>"
            + HTML.table(id: "far-events", columns: [("Position", true), ("Type", false), ("Recorded", false), ("Occurred", false), ("Days apart", true)],
                         rows: lines, none: "Every action occurred within 30 days of when the store recorded it.")
            + "<p class=\"muted\">Each by the client's clock (<code>occurredAt</code>) more than 30 days before or after the store recorded it: a reset or wrong clock, or an app that synced very late. The chart shows each on the day it says.</p>"
    }

    private var favoritesSection: String {
        var out = "<section id=\"favorites-over-time\"><h2>Favorites over time</h2>"
        out += "<p class=\"muted\">By the day each action occurred (UTC; the client's <code>occurredAt</code>): the favorites held after the last action that occurred that day.</p>"
        let size = DayBuckets.size(for: favoritesByDay.map(\.day))
        out += DayBuckets.caption(size, days: favoritesByDay.count)
        out += Chart.steps(DayBuckets.lastLevel(favoritesByDay, size), id: "favorites-chart", label: "favorites held at the end of each \(size.name) the actions occurred in (UTC)")
        out += farSection
        if !favoritesByDay.isEmpty {
            out += "<details><summary>Favorites held at the end of each day an action occurred (\(favoritesByDay.count.counted("day")))</summary>"
            out += HTML.table(id: "favorites-by-day", columns: [("Day (UTC)", false), ("Favorites", true)],
                              rows: favoritesByDay.map { "<tr><td class=\"t\">\(HTML.day($0.day))</td><td class=\"n\">\($0.count)</td></tr>" }, none: "No days.")
            out += "</details>"
        }
        out += "<h3>Each listing: added and removed (occurred)</h3>"
        let changes = favoriteChanges.map { change in
            "<tr><td>\(listing(change.listingID, HTML.cell(change.listingID)))</td><td>\(HTML.cell(change.name))</td><td>\(change.added.map(Timestamp.format) ?? "-")</td>"
                + "<td>\(change.removed.map(Timestamp.format) ?? "still held")</td></tr>"
        }
        out += HTML.rows(id: "favorite-changes", className: "changes", columns: [("Listing", false), ("Name", false), ("Added", false), ("Removed", false)], rows: changes,
                         none: "The user never favorited a listing.")
        return out + "</section>"
    }

    private var listsSection: String {
        var out = "<section id=\"lists\"><h2>Lists \(HTML.escape(asOf == nil ? "now" : pointText))</h2>"
        out += "<h3>Favorites (\(favorites?.items.count ?? 0))</h3>"
        if favorites?.items.isEmpty ?? true { out += "<p id=\"favorites\" class=\"muted\">No favorites.</p>" } else { out += "<table id=\"favorites\"><thead><tr><th>Listing</th><th>Name</th><th>Venue</th><th>Date</th><th>Category</th><th>Added</th></tr></thead><tbody>" }
        for item in favorites?.items ?? [] {
            out += "<tr data-listing=\"\(HTML.escape(item.listingID))\"><td dir=\"auto\">\(listing(item.listingID, HTML.user(item.listingID)))</td><td dir=\"auto\">\(HTML.user(item.summary.name))</td><td dir=\"auto\">\(HTML.user(item.summary.venue))</td>"
            out += "<td dir=\"auto\">\(HTML.user(item.summary.localDateTime))</td><td dir=\"auto\">\(HTML.user(item.summary.category))</td><td class=\"t\">\(Timestamp.format(item.addedAt))</td></tr>"
        }
        if !(favorites?.items.isEmpty ?? true) { out += "</tbody></table>" }
        out += "<h3>Recent searches (\(recentSearches?.items.count ?? 0))</h3>"
        if recentSearches?.items.isEmpty ?? true { out += "<p id=\"recent\" class=\"muted\">No recent searches.</p>" } else { out += "<table id=\"recent\"><thead><tr><th>Keyword</th><th>Category</th><th>Distance</th><th>Location</th><th class=\"n\">Results</th><th>Searched</th></tr></thead><tbody>" }
        for item in recentSearches?.items ?? [] {
            let place: String
            switch item.location {
            case let .current(latitude, longitude): place = String(format: "here (%.4f,%.4f)", latitude, longitude)
            case let .custom(text): place = text
            }
            out += "<tr><td dir=\"auto\" class=\"keyword\">\(HTML.user(item.keyword))</td><td>\(HTML.user(item.category.rawValue))</td><td>\(History.formatDistance(item.distance)) \(item.units.rawValue)</td>"
            out += "<td dir=\"auto\">\(HTML.user(place))</td><td class=\"n\">\(item.resultCount.map(String.init) ?? "-")</td><td class=\"t\">\(Timestamp.format(item.searchedAt))</td></tr>"
        }
        if !(recentSearches?.items.isEmpty ?? true) { out += "</tbody></table>" }
        out += "<h3>Recently viewed (\(recentlyViewed?.items.count ?? 0))</h3>"
        if recentlyViewed?.items.isEmpty ?? true { return out + "<p id=\"viewed\" class=\"muted\">Nothing viewed.</p></section>" }
        out += "<table id=\"viewed\"><thead><tr><th>Listing</th><th>Name</th><th>Viewed</th></tr></thead><tbody>"
        for item in recentlyViewed?.items ?? [] {
            out += "<tr data-listing=\"\(HTML.escape(item.listingID))\"><td dir=\"auto\">\(listing(item.listingID, HTML.user(item.listingID)))</td><td dir=\"auto\">\(HTML.user(item.name))</td><td class=\"t\">\(Timestamp.format(item.viewedAt))</td></tr>"
        }
        return out + "</tbody></table></section>"
    }

    private var searchesSection: String {
        let lines = searches.map { search in
            "<tr><td><a href=\"#\(HTML.eventAnchor(search.position))\">\(search.position)</a></td><td>\(Timestamp.format(search.recordedAt))</td><td>\(Timestamp.format(search.occurredAt))</td><td>\(HTML.cell(search.keyword))</td><td>\(HTML.cell(search.category))</td>"
                + "<td>\(HTML.escape(search.distance))</td><td>\(HTML.cell(search.location))</td><td>\(search.results.map(String.init) ?? "-")</td></tr>"
        }
        return "<section id=\"searches-section\"><h2>Searches (\(searches.count))</h2>" + HTML.rows(id: "searches", className: "searches", columns: [
            ("Position", true), ("Recorded", false), ("Occurred", false), ("Keyword", false), ("Category", false), ("Distance", false), ("Location", false),
            ("Results", true),
        ], rows: lines, none: "No searches.") + "</section>"
    }
}
