import Foundation

/// Writes a file so that a reader (a browser, a NAS web server, a script reading a report) never
/// sees half of it: the bytes go to a temporary file in the same folder, are flushed, and the
/// file is renamed over the target. On any failure the temporary file is removed and the old
/// file stays. The one atomic writer of the map page, `import --report` and `export --out`.
public enum AtomicFile {
    public struct WriteError: Error, CustomStringConvertible {
        public let path: String
        public let reason: String
        public var description: String { "cannot write \(path): \(reason)" }
    }

    private static func errorText() -> String {
        String(validatingCString: strerror(errno)) ?? "error \(errno)"
    }

    /// Writes `text` to `path` atomically.
    public static func write(_ text: String, to path: String) throws {
        try write(to: path) { fd in writeAll(fd, text) }
    }

    /// Writes what `body` writes to the descriptor it is given to `path` atomically. `body`
    /// returns false when one of its writes failed, with `errno` saying why.
    public static func write(to path: String, _ body: (Int32) -> Bool) throws {
        let folder = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        guard !name.isEmpty, name != ".", name != ".." else { throw WriteError(path: path, reason: "not a file name") }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw WriteError(path: path, reason: "it is a folder")
        }
        var template = Array(((folder.isEmpty ? "." : folder) + "/." + name + ".XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw WriteError(path: path, reason: errorText()) }
        let temporary = String(decoding: template.dropLast().map(UInt8.init(bitPattern:)), as: UTF8.self)
        var failure: String?
        if !body(fd) { failure = errorText() }
        // mkstemp makes the file 0600; a page or a report is for reading (a web server, another
        // user), as any file this user creates: 0666 less the umask.
        let mask = umask(0)
        umask(mask)
        if failure == nil, fchmod(fd, 0o666 & ~mask) != 0 { failure = errorText() }
        if failure == nil, fsync(fd) != 0 { failure = errorText() }
        if close(fd) != 0, failure == nil { failure = errorText() }
        if failure == nil, rename(temporary, path) != 0 { failure = errorText() }
        if let failure {
            unlink(temporary)
            throw WriteError(path: path, reason: failure)
        }
    }

    /// write(2) of all of `text`, again after EINTR; false on an error (`errno` says which).
    public static func writeAll(_ fd: Int32, _ text: String) -> Bool {
        var text = text
        return text.withUTF8 { writeAll(fd, UnsafeRawBufferPointer($0)) }
    }

    /// write(2) of all of `bytes`, again after EINTR; false on an error (`errno` says which).
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += n
        }
        return true
    }
}
