import EventLog
import Foundation
import Transfer

/// Reading and writing the small files of the verifiable log: keys, checkpoints, proofs.
///
/// Every failure is an ``OperationError``: ``OperationError/invalid(_:)`` for a file that is
/// missing, unreadable or not what it should be, ``OperationError/cannotWrite(_:)`` for a key
/// file that cannot be created.
public enum AuditFiles {
    /// The largest key, checkpoint or proof file read (a proof is O(log n) lines: a few KiB).
    public static let maximumFileBytes = 1 << 20

    /// The text of a file given on the command line (`what` names it in the error): a plain
    /// file of at most ``maximumFileBytes`` (a third party's file is not read whole whatever
    /// its size).
    public static func text(_ path: String, _ what: String) throws -> String {
        String(decoding: try bytes(path, what), as: UTF8.self)
    }

    /// The bytes of a file given on the command line, as ``text(_:_:)`` reads it, unchanged (a
    /// checkpoint's signature covers its bytes, not a text repaired from them).
    public static func bytes(_ path: String, _ what: String) throws -> [UInt8] {
        let size = try requireRegularFile(path, what).st_size
        if size > maximumFileBytes {
            throw OperationError.invalid("the \(what) file '\(path)' is \(size) bytes: larger than any \(what) (at most \(maximumFileBytes))")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw OperationError.invalid("cannot read the \(what) file '\(path)'")
        }
        return [UInt8](data)
    }

    /// Refuses a path that is not a plain file (following symbolic links), naming what it is.
    /// - Returns: the file's status.
    /// - Throws: ``OperationError/invalid(_:)``.
    @discardableResult
    public static func requireRegularFile(_ path: String, _ what: String) throws -> stat {
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw OperationError.invalid("cannot read the \(what) file '\(path)': \(String(cString: strerror(errno)))")
        }
        switch status.st_mode & S_IFMT {
        case S_IFREG: return status
        case S_IFDIR: throw OperationError.invalid("the \(what) file '\(path)' is a folder, not a file")
        case S_IFIFO: throw OperationError.invalid("the \(what) file '\(path)' is a pipe (FIFO), not a file: give the file itself")
        default: throw OperationError.invalid("the \(what) file '\(path)' is not a plain file")
        }
    }

    /// An Ed25519 key from a PEM file.
    public static func key(_ path: String, _ what: String) throws -> Ed25519Key {
        do {
            return try Ed25519Key(pem: try text(path, what))
        } catch let error as Ed25519Error {
            throw OperationError.invalid("the \(what) file '\(path)' is not usable: \(error)")
        }
    }

    /// A checkpoint from its file, its bytes as they are (``Checkpoint/init(note:)``).
    public static func checkpoint(_ path: String) throws -> Checkpoint {
        do {
            return try Checkpoint(note: try bytes(path, "checkpoint"))
        } catch let error as CheckpointError {
            throw OperationError.invalid("'\(path)': \(error)")
        }
    }

    /// A proof from its file, in either form `evtool prove` prints (text, or `--json`).
    public static func proof(_ path: String) throws -> ProofDocument {
        do {
            return try ProofDocument(reading: try text(path, "proof"))
        } catch let error as MerkleProofError {
            throw OperationError.invalid("'\(path)' is not a proof: \(error)")
        }
    }

    /// Checks a checkpoint's signature with the public key at `path`, when one is given.
    /// - Returns: a note for the OK line ("signed by key …" or "unsigned: signature not checked").
    public static func checkSignature(_ checkpoint: Checkpoint, file: String, publicKey path: String?) throws -> String {
        try checkSignature(checkpoint, file: file, publicKeys: path.map { [$0] } ?? [])
    }

    /// Checks a checkpoint's signature with whichever of the public keys at `paths` signed it
    /// (across a key rotation, an old checkpoint is the old key's and a new one the new key's);
    /// with no key, nothing is checked.
    /// - Returns: a note for the OK line ("signed by key …" or "unsigned: signature not checked").
    public static func checkSignature(_ checkpoint: Checkpoint, file: String, publicKeys paths: [String]) throws -> String {
        guard !paths.isEmpty else {
            return checkpoint.signatures.isEmpty ? "unsigned" : "signature not checked (no --public-key)"
        }
        let keys = try paths.map { try key($0, "public key") }
        var failures: [String] = []
        for key in keys {
            do {
                try checkpoint.verifySignature(key)
                return "signed by key \(Checkpoint.keyID(of: key))"
            } catch {
                failures.append("\(error)")
            }
        }
        if keys.count == 1 { throw OperationError.invalid("checkpoint '\(file)': \(failures[0])") }
        let signers = checkpoint.signatures.isEmpty ? "it is unsigned" : "it has signatures by key " + checkpoint.signatures.map(\.keyID.hexString).joined(separator: ", ")
        throw OperationError.invalid("checkpoint '\(file)' is not signed by any of the \(keys.count) public keys given (\(keys.map(Checkpoint.keyID(of:)).joined(separator: ", "))); \(signers)")
    }

    /// Writes `text` to a new file at `path` with `mode`, refusing to replace one (O_EXCL), so a
    /// key is never overwritten and nobody else can read it between creation and chmod.
    public static func create(_ path: String, _ text: String, mode: mode_t) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard descriptor >= 0 else {
            let reason = errno == EEXIST ? "it exists (keys are never overwritten)" : String(cString: strerror(errno))
            throw OperationError.cannotWrite("cannot create '\(path)': \(reason)")
        }
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + offset, bytes.count - offset) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else {
                unlink(path)
                throw OperationError.cannotWrite("cannot write '\(path)': \(String(cString: strerror(errno)))")
            }
            offset += written
        }
        guard fchmod(descriptor, mode) == 0, fsync(descriptor) == 0 else {
            unlink(path)
            throw OperationError.cannotWrite("cannot write '\(path)': \(String(cString: strerror(errno)))")
        }
    }
}
