import EventLog
import Foundation
import Transfer

extension AuditFiles {
    /// What a file that already exists at an output path must hold for evtool to replace it.
    public enum EarlierOutput: Sendable {
        /// An HTML page (an earlier report).
        case htmlPage
        /// A checkpoint (an earlier one of `seal --checkpoint-out`).
        case checkpoint
    }

    /// The most of an existing file read to tell what it is.
    static let sniffedBytes = 64 * 1024

    /// Checks that `path` may take a new `what`: it does not exist yet (in a folder that does),
    /// is empty, or holds an earlier output of the same kind. Anything else is refused: a
    /// store (`report --out evtool.sqlite` would have replaced the log with a page), a key, a
    /// tokens file, a folder, a symbolic link. Called before the work, so that a refusal
    /// comes before anything is recorded.
    /// - Throws: ``OperationError/cannotWrite(_:)`` naming the path and what it holds.
    public static func checkReplaceable(_ path: String, what: String, earlier: EarlierOutput) throws {
        func refuse(_ reason: String) -> OperationError {
            OperationError.cannotWrite("will not write the \(what) to '\(path)': \(reason); nothing was written (give another path)")
        }
        var status = stat()
        guard lstat(path, &status) == 0 else {
            guard errno == ENOENT else { throw refuse(String(cString: strerror(errno))) }
            let folder = (path as NSString).deletingLastPathComponent
            var isFolder: ObjCBool = false
            if !folder.isEmpty, !(FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) && isFolder.boolValue) {
                throw refuse("the folder '\(folder)' does not exist")
            }
            try checkWritableFolder(of: path, refuse)
            return
        }
        switch status.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw refuse("it is a folder")
        case S_IFLNK: throw refuse("it is a symbolic link (evtool replaces only a plain file)")
        default: throw refuse("it is not a plain file")
        }
        guard status.st_size > 0 else { return try checkWritableFolder(of: path, refuse) }
        guard let handle = FileHandle(forReadingAtPath: path) else { throw refuse("it exists and cannot be read to tell what it holds") }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: sniffedBytes)) ?? Data()
        if head.starts(with: Array("SQLite format 3\0".utf8)) {
            throw refuse("it is an SQLite database (a store?)")
        }
        let holdsEarlier: Bool
        switch earlier {
        case .htmlPage:
            holdsEarlier = String(decoding: head.prefix(64), as: UTF8.self).drop { $0.isWhitespace }.lowercased().hasPrefix("<!doctype html")
        case .checkpoint:
            holdsEarlier = status.st_size <= sniffedBytes && (try? Checkpoint(note: [UInt8](head))) != nil
        }
        if !holdsEarlier { throw refuse("it exists and does not hold an earlier \(what)") }
        try checkWritableFolder(of: path, refuse)
    }

    /// The new file is made in the path's folder and renamed over the path: the folder must
    /// take it, checked now so that `seal` refuses before it seals.
    private static func checkWritableFolder(of path: String, _ refuse: (String) -> OperationError) throws {
        let folder = (path as NSString).deletingLastPathComponent
        guard access(folder.isEmpty ? "." : folder, W_OK | X_OK) == 0 else {
            throw refuse("this user may not write in the folder '\(folder.isEmpty ? "." : folder)' (\(String(cString: strerror(errno))))")
        }
    }

    /// Writes `text` to `path` as a whole: checked as ``checkReplaceable(_:what:earlier:)``
    /// does, written to a new file in the same folder (a name no one else has: created with
    /// `O_EXCL`, a random part in it), flushed to disk, given the old file's permissions (a
    /// report holds a person's history: one kept private stays private; a new file gets 0644
    /// less the umask), renamed over `path`, and the folder flushed, so the path holds the old
    /// file or the whole new one.
    /// - Throws: ``OperationError/cannotWrite(_:)``.
    public static func replace(_ path: String, with text: String, what: String, earlier: EarlierOutput) throws {
        try checkReplaceable(path, what: what, earlier: earlier)
        var old = stat()
        let oldMode: mode_t? = stat(path, &old) == 0 ? old.st_mode & 0o7777 : nil
        let folder = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        let temporary = (folder.isEmpty ? "" : folder + "/") + ".\(name).evtool-\(UUID().uuidString.prefix(8).lowercased()).tmp"
        func failure(_ reason: String) -> OperationError {
            unlink(temporary)
            return OperationError.cannotWrite("cannot write the \(what) to '\(path)': \(reason)")
        }
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, oldMode == nil ? 0o644 : 0o600)
        guard descriptor >= 0 else { throw OperationError.cannotWrite("cannot write the \(what) to '\(path)': \(String(cString: strerror(errno)))") }
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + offset, bytes.count - offset) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { let reason = String(cString: strerror(errno)); close(descriptor); throw failure(reason) }
            offset += written
        }
        if let oldMode, fchmod(descriptor, oldMode) != 0 { let reason = String(cString: strerror(errno)); close(descriptor); throw failure(reason) }
        guard fsync(descriptor) == 0 else { let reason = String(cString: strerror(errno)); close(descriptor); throw failure(reason) }
        close(descriptor)
        guard rename(temporary, path) == 0 else { throw failure(String(cString: strerror(errno))) }
        let directory = open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 { _ = fsync(directory); close(directory) }
    }
}
