import Foundation
import PackagePlugin

/// Writes `BuildCommit.swift` (the git commit the sources were built from) before every build
/// of the target that uses it, by running `scripts/build-commit.sh`: `git rev-parse HEAD` of
/// the package, or "unknown" outside a git checkout or without git. The file is rewritten only
/// when the commit changed, so an unchanged tree compiles nothing again.
@main
struct BuildCommit: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appending(path: "generated")
        let script = context.package.directoryURL.appending(path: "scripts/build-commit.sh")
        return [
            .prebuildCommand(
                displayName: "Recording the git commit of \(target.name)",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: [script.path, context.package.directoryURL.path, output.path],
                outputFilesDirectory: output),
        ]
    }
}
