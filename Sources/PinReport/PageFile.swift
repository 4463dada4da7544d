import Foundation

/// Writes a page so that a reader (a browser, a NAS web server) never sees half of it: the
/// bytes go to a temporary file in the same folder, are flushed, and the file is renamed over
/// the target. On any failure the temporary file is removed and the old page stays.
public enum PageFile {
    public struct WriteError: Error, CustomStringConvertible {
        public let path: String
        public let reason: String
        public var description: String { "cannot write \(path): \(reason)" }
    }

    private static func errorText() -> String {
        String(validatingCString: strerror(errno)) ?? "error \(errno)"
    }

    public static func write(_ text: String, to path: String) throws {
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
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = errorText()
                    return
                }
                offset += n
            }
        }
        // mkstemp makes the file 0600; a page is for reading (a web server, another user),
        // as any file this user creates: 0666 less the umask.
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
}
