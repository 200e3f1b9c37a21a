import Audit
import AuditReport
import EvtoolKit
import Commands
import EventLog
import Foundation
import Projections
import StoreLocations

/// `evtool report`: the audit report as one self-contained HTML page (docs/explanation/audit.md).
enum ReportCommand {
    static let user = SharedOptions.user(help: "The user whose report to make")

    static let spec = CommandSpec(
        name: "report", summary: "Write an auditor's HTML page: one user's actions and trust, or the whole store",
        usage: "(--user U [--as-of POSITION|TIME] [--checkpoint FILE [--public-key KEY]] | --store-overview) [--out FILE] [--store STORE]",
        options: [
            user.declaration,
            .init(name: "store-overview", value: nil, help: "Make the page of the whole store instead"),
            .init(name: "out", value: "FILE", help: "Write the page to FILE (replaced whole, never half-written) instead of standard output"),
            .init(name: "checkpoint", value: "FILE", help: "Also check this checkpoint (from 'evtool seal --key') against the log and the user's last event"),
            .init(name: "public-key", value: "KEY", help: "Check the checkpoint's Ed25519 signature with this public key (PEM)"),
            SharedOptions.asOf.declaration, CommandSpec.storeOption,
        ],
        discussion: """
            The page needs nothing else: inline CSS and SVG, no script, and a Content-Security-Policy
            that forbids loading or running anything. Every string from the log is escaped.

            A user's page shows the counts by type, the timeline (the wording of 'evtool history'),
            favorites day by day, the favorites, recent searches and recently viewed lists (now or
            as of --as-of), the searches, and whether the user's hash chain verifies (checked while
            making the page) with the latest seal covering their last event. That seal is checked
            too: its hash recomputed from its fields and its link to the seals before it. With
            --checkpoint (and --public-key), also the log's event count up to the seal, the
            checkpoint's signature, its Merkle root against the log's first N events and that it
            covers the user's last event (these read the whole log). A failed check is shown on
            the page (the page is still written, exit 0).

            The store overview streams the log once: events per day by type, users and active
            users per day, the most favorited and viewed listings, seals, view checkpoints and
            their lag, and erasures.
            """,
        examples: [
            "evtool report --user ada --out ada.html",
            "evtool report --user ada --as-of 2026-03-01 --out ada-march.html",
            "evtool report --user ada --checkpoint checkpoint-1.txt --public-key keys/checkpoint-key.pub.pem --out ada.html",
            "evtool report --store-overview --out store.html --store postgres://auditor@db/evtool",
        ],
        run: { arguments, console in
            try arguments.expectPositional(atMost: 0)
            let overview = arguments.flag("store-overview")
            let user = try arguments.value(Self.user)
            if overview == (user != nil) {
                throw CLIError.usage("give either '--user U' or '--store-overview'", arguments.command)
            }
            if let user { try Rules.checkIdentifier(user, field: "user id") }
            let asOf = try TimeArgument.asOf(in: arguments)
            if overview, asOf != nil { throw CLIError.usage("'--as-of' goes with '--user', not '--store-overview'", arguments.command) }
            if overview, arguments.value("checkpoint") != nil {
                throw CLIError.usage("'--checkpoint' goes with '--user', not '--store-overview'", arguments.command)
            }
            if arguments.value("checkpoint") == nil, arguments.value("public-key") != nil {
                throw CLIError.usage("'--public-key' checks a '--checkpoint'", arguments.command)
            }
            let outPath = arguments.value("out")
            if let outPath, outPath.isEmpty { throw CLIError.usage("'--out' needs a file name", arguments.command) }
            let outside = try arguments.value("checkpoint").map { path in
                SealCheck.Outside(checkpoint: try AuditFiles.checkpoint(path), name: path,
                                  publicKey: try arguments.value("public-key").map { try AuditFiles.key($0, "public key") })
            }
            if let outPath { try AuditFiles.checkReplaceable(outPath, what: "report", earlier: .htmlPage) }
            let location = try StoreLocation.resolve(arguments)
            let store = try location.open(create: false)
            try Application.checkWithinLog(asOf, of: store)
            let options = AuditReport.Options(storeDescription: location.description, asOf: asOf, outside: outside)
            let page = try user.map { try AuditReport.userPage(user: try Application.userWithEvents(typed: $0, in: store), store: store, options: options) }
                ?? AuditReport.overviewPage(store: store, options: options)
            guard let outPath else {
                // The page ends with a newline; output(_:) adds one per line.
                return try console.output(String(page.dropLast()))
            }
            // The old file or the whole new page; never over a file that is not an earlier page.
            try AuditFiles.replace(outPath, with: page, what: "report", earlier: .htmlPage)
        })
}
