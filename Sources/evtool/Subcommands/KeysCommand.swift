import Audit
import EventLog
import Foundation

/// `evtool keys create`: an Ed25519 key pair for signing checkpoints (docs/explanation/audit.md).
enum KeysCommand {
    static let privateName = "checkpoint-key.pem"
    static let publicName = "checkpoint-key.pub.pem"

    static let spec = CommandSpec(
        name: "keys", summary: "Make an Ed25519 key pair for signing checkpoints ('keys create --out DIR')",
        usage: "create --out DIR",
        arguments: [("create", "Make a new key pair")],
        options: [.init(name: "out", value: "DIR", help: "The folder for \(privateName) (mode 0600) and \(publicName); made if missing")],
        discussion: """
            Writes the private key (PKCS #8 PEM, readable by its owner only) and the public key
            (PEM) into DIR, never over existing files, and prints the key id that signed
            checkpoints name. Keep the private key away from the store's administrators; hand
            the public key to auditors. 'openssl pkey -in DIR/\(privateName) -text' reads both.
            """,
        examples: ["evtool keys create --out ~/.evtool-keys"],
        run: { arguments, console in
            try arguments.expectPositional(atMost: 1)
            guard arguments.positional.first == "create" else {
                throw CLIError.usage("expected 'keys create'", arguments.command)
            }
            let directory = try arguments.required("out")
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: 0o700])
            } catch {
                let number = ((error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError).map { Int32($0.code) }
                throw CLIError(message: "cannot make the folder '\(directory)': \(error.localizedDescription)", code: ExitCode(fileError: number ?? EIO))
            }
            let key = try Ed25519Key.generate()
            let privatePath = directory + "/" + privateName, publicPath = directory + "/" + publicName
            if FileManager.default.fileExists(atPath: privatePath) || FileManager.default.fileExists(atPath: publicPath) {
                throw CLIError(message: "'\(directory)' already holds a key: keys are never overwritten", code: .invalidData)
            }
            try AuditFiles.create(privatePath, key.privatePEM ?? "", mode: 0o600)
            try AuditFiles.create(publicPath, key.publicPEM, mode: 0o644)
            try console.output("key \(Checkpoint.keyID(of: key)): private \(privatePath) (0600), public \(publicPath)")
        })
}
