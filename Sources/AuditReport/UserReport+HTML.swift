import EventLog
import Foundation
import Projections

extension UserReport {
    /// The report as one self-contained HTML page.
    public var html: String {
        var body = "<header><h1>Audit report: user \(HTML.user(user))</h1>"
        body += "<p class=\"muted\">Made by evtool at \(HTML.escape(Timestamp.format(madeAt))) from \(HTML.user(storeDescription)).</p></header>"
        body += summarySection + trustSection + favoritesSection + listsSection + searchesSection + timelineSection
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
        if let period {
            facts.append(("Period", "<span id=\"period\">\(HTML.escape(Timestamp.format(period.first))) – \(HTML.escape(Timestamp.format(period.last)))</span>"))
        } else {
            facts.append(("Period", "<span id=\"period\">no actions</span>"))
        }
        var counts = "<table id=\"counts\"><thead><tr><th>Type</th><th class=\"n\">Events</th></tr></thead><tbody>"
        for (type, count) in countsByType.sorted(by: { $0.key < $1.key }) {
            counts += "<tr><td dir=\"auto\">\(HTML.user(type))</td><td class=\"n\" data-type=\"\(HTML.escape(type))\">\(count)</td></tr>"
        }
        counts += "</tbody></table>"
        return "<section id=\"summary\"><h2>Who and what</h2>" + HTML.facts(facts, id: "facts") + "<h3>Actions by type</h3>" + counts + "</section>"
    }

    private var trustSection: String {
        let chainText: String
        switch chain {
        case let .verified(events, erased):
            let erasedText = erased > 0 ? " (\(erased) erased, accepted by their kept digests)" : ""
            chainText = "<span class=\"ok\" id=\"chain\" data-status=\"verified\">verified: \(events) events in the user's hash chain\(erasedText)</span>"
        case .failed(let reason):
            chainText = "<span class=\"bad\" id=\"chain\" data-status=\"failed\">does not verify: \(HTML.user(reason))</span>"
        case .empty:
            chainText = "<span class=\"muted\" id=\"chain\" data-status=\"empty\">the user has no events: nothing to verify</span>"
        }
        let sealText: String
        if let seal = coveringSeal {
            sealText = "<span id=\"seal\" data-number=\"\(seal.number)\">seal \(seal.number) at position \(seal.position), sealed \(HTML.escape(seal.sealedAt)): <span class=\"hash\">\(HTML.escape(seal.hash))</span></span>"
        } else {
            sealText = "<span id=\"seal\" class=\"bad\">no seal covers the user's last event yet (\(sealCount) seals in the store): run <code>evtool seal</code></span>"
        }
        let facts = HTML.facts([("Hash chain (checked now)", chainText), ("Latest seal covering the last event", sealText)], id: "trust-facts")
        return "<section id=\"trust\"><h2>Can this log be trusted?</h2>" + facts
            + "<p>The chain check proves that each of the user's events is the one appended at its place (content, order, time), and a seal whose hash matches one kept outside the store proves that nothing up to its position was removed; neither proves the events were true when recorded, nor anything about an operator who can rewrite both the store and every copy of the seal hashes (see <a href=\"docs/AUDIT.md#seals\">docs/AUDIT.md, “Seals” and “evtool verify”</a> in the evtool sources).</p></section>"
    }

    private var timelineSection: String {
        var out = "<section id=\"timeline-section\"><h2>Timeline (\(rows.count) actions)</h2>"
        out += "<table id=\"timeline\"><thead><tr><th class=\"n\">Position</th><th>Recorded</th><th>Type</th><th>What</th><th>Source</th><th>Request</th><th>Correlation</th></tr></thead><tbody>"
        for row in rows {
            let entry = row.entry
            if let erasure = row.erasure {
                out += "<tr class=\"erased\" data-position=\"\(entry.position)\"><td class=\"n\">\(entry.position)</td><td class=\"t\">\(Timestamp.format(entry.recordedAt))</td><td dir=\"auto\">\(HTML.user(entry.type))</td>"
                out += "<td dir=\"auto\" colspan=\"4\">erased at \(Timestamp.format(erasure.recordedAt)) by \(HTML.user(erasure.by)): \(HTML.user(erasure.reason)) (UserErased at position \(erasure.position))</td></tr>"
                continue
            }
            out += "<tr data-position=\"\(entry.position)\"><td class=\"n\">\(entry.position)</td><td class=\"t\">\(Timestamp.format(entry.recordedAt))</td>"
            out += "<td dir=\"auto\">\(HTML.user(entry.type))</td><td dir=\"auto\" class=\"what\">\(HTML.user(entry.summary))</td>"
            out += "<td dir=\"auto\">\(HTML.user(entry.source ?? "-"))</td><td dir=\"auto\">\(HTML.user(entry.requestID ?? "-"))</td><td dir=\"auto\">\(HTML.user(entry.correlationID ?? "-"))</td></tr>"
        }
        return out + "</tbody></table></section>"
    }

    private var favoritesSection: String {
        var out = "<section id=\"favorites-over-time\"><h2>Favorites over time</h2>"
        out += Chart.steps(favoritesByDay, id: "favorites-chart", label: "favorites held at the end of each day (UTC)")
        out += "<details><summary>Favorites held at the end of each day (\(favoritesByDay.count) days)</summary><table id=\"favorites-by-day\"><thead><tr><th>Day (UTC)</th><th class=\"n\">Favorites</th></tr></thead><tbody>"
        for point in favoritesByDay { out += "<tr><td class=\"t\">\(HTML.day(point.day))</td><td class=\"n\">\(point.count)</td></tr>" }
        out += "</tbody></table></details>"
        out += "<h3>Each listing: added and removed</h3><table id=\"favorite-changes\"><thead><tr><th>Listing</th><th>Name</th><th>Added</th><th>Removed</th></tr></thead><tbody>"
        for change in favoriteChanges {
            out += "<tr><td dir=\"auto\">\(HTML.user(change.listingID))</td><td dir=\"auto\">\(HTML.user(change.name))</td>"
            out += "<td class=\"t\">\(change.added.map(Timestamp.format) ?? "-")</td><td class=\"t\">\(change.removed.map(Timestamp.format) ?? "still held")</td></tr>"
        }
        return out + "</tbody></table></section>"
    }

    private var listsSection: String {
        var out = "<section id=\"lists\"><h2>Lists \(HTML.escape(asOf == nil ? "now" : pointText))</h2>"
        out += "<h3>Favorites (\(favorites?.items.count ?? 0))</h3><table id=\"favorites\"><thead><tr><th>Listing</th><th>Name</th><th>Venue</th><th>Date</th><th>Category</th><th>Added</th></tr></thead><tbody>"
        for item in favorites?.items ?? [] {
            out += "<tr data-listing=\"\(HTML.escape(item.listingID))\"><td dir=\"auto\">\(HTML.user(item.listingID))</td><td dir=\"auto\">\(HTML.user(item.summary.name))</td><td dir=\"auto\">\(HTML.user(item.summary.venue))</td>"
            out += "<td dir=\"auto\">\(HTML.user(item.summary.localDateTime))</td><td dir=\"auto\">\(HTML.user(item.summary.category))</td><td class=\"t\">\(Timestamp.format(item.addedAt))</td></tr>"
        }
        out += "</tbody></table>"
        out += "<h3>Recent searches (\(recentSearches?.items.count ?? 0))</h3><table id=\"recent\"><thead><tr><th>Keyword</th><th>Category</th><th>Distance</th><th>Location</th><th class=\"n\">Results</th><th>Searched</th></tr></thead><tbody>"
        for item in recentSearches?.items ?? [] {
            let place: String
            switch item.location {
            case let .current(latitude, longitude): place = String(format: "here (%.4f,%.4f)", latitude, longitude)
            case let .custom(text): place = text
            }
            out += "<tr><td dir=\"auto\" class=\"keyword\">\(HTML.user(item.keyword))</td><td>\(HTML.user(item.category.rawValue))</td><td>\(History.formatDistance(item.distance)) \(item.units.rawValue)</td>"
            out += "<td dir=\"auto\">\(HTML.user(place))</td><td class=\"n\">\(item.resultCount.map(String.init) ?? "-")</td><td class=\"t\">\(Timestamp.format(item.searchedAt))</td></tr>"
        }
        out += "</tbody></table>"
        out += "<h3>Recently viewed (\(recentlyViewed?.items.count ?? 0))</h3><table id=\"viewed\"><thead><tr><th>Listing</th><th>Name</th><th>Viewed</th></tr></thead><tbody>"
        for item in recentlyViewed?.items ?? [] {
            out += "<tr data-listing=\"\(HTML.escape(item.listingID))\"><td dir=\"auto\">\(HTML.user(item.listingID))</td><td dir=\"auto\">\(HTML.user(item.name))</td><td class=\"t\">\(Timestamp.format(item.viewedAt))</td></tr>"
        }
        return out + "</tbody></table></section>"
    }

    private var searchesSection: String {
        var out = "<section id=\"searches-section\"><h2>Searches (\(searches.count))</h2><table id=\"searches\"><thead><tr><th class=\"n\">Position</th><th>Recorded</th><th>Keyword</th><th>Category</th><th>Distance</th><th>Location</th><th class=\"n\">Results</th></tr></thead><tbody>"
        for search in searches {
            out += "<tr><td class=\"n\">\(search.position)</td><td class=\"t\">\(Timestamp.format(search.recordedAt))</td><td dir=\"auto\">\(HTML.user(search.keyword))</td><td>\(HTML.user(search.category))</td>"
            out += "<td>\(HTML.escape(search.distance))</td><td dir=\"auto\">\(HTML.user(search.location))</td><td class=\"n\">\(search.results.map(String.init) ?? "-")</td></tr>"
        }
        return out + "</tbody></table></section>"
    }
}
