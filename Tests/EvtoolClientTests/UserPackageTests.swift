import Foundation
import Testing
import TestSupport

/// A package of an app developer's own, depending on the EvtoolClient product alone, builds
/// (scripts/check-client-package.sh: a path dependency on this checkout, Examples/PhoneApp's
/// source as its program) and runs the example's flow: the walk with no server, the actions
/// waiting on the device, then sent once each when a real `evtool serve` is there.
@Suite(.serialized)
struct UserPackageTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func aPackageDependingOnEvtoolClientAloneBuildsAndRunsTheWalkOfflineThenSyncs() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let built = try Processes.run("/bin/bash", [Self.root.appendingPathComponent("scripts/check-client-package.sh").path, folder.path])
        #expect(built.status == 0, "\(built.errors.suffix(3_000))")
        let binary = built.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(binary == folder.path + "/.build/debug/MyPhoneApp")
        #expect(built.errors.contains("[details] tapped Remove: [Save Event]") && built.errors.contains("4 actions wait on this device"), "\(built.errors.suffix(2_000))")
        // Only EvtoolClient and its C library were built: no other module of evtool.
        let modules = try FileManager.default.contentsOfDirectory(atPath: folder.path + "/.build/debug/Modules").filter { $0.hasSuffix(".swiftmodule") }
        #expect(Set(modules) == ["EvtoolClient.swiftmodule", "MyPhoneApp.swiftmodule"], "\(modules)")

        let server = try Server(.sqlite)
        try server.start()
        let synced = try Processes.run(binary, ["sync"], environment: [
            "EVTOOL_SERVER": server.url.absoluteString, "EVTOOL_TOKEN": server.appToken, "EVTOOL_CLIENT_FILE": folder.path + "/offline.sqlite",
        ])
        #expect(synced.status == 0 && synced.output.contains("[sync] sent 4 actions; nothing waits") && synced.output.contains("[favorites] none"), "\(synced)")
        #expect(try server.history().map(\.type) == ["Searched", "Favorited", "DetailsViewed", "Unfavorited"])
    }
}
