import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What a session may do: `full` reads and writes, `read` (the family's password) only looks.
public enum Role: String, Sendable {
    case full, read
}

/// The service's passwords, as Argon2id hashes (`Crypto.hash`), one line per role:
///
///     full $argon2id$v=19$m=65536,t=2,p=1$...
///     read $argon2id$v=19$m=65536,t=2,p=1$...
///
/// The file is the service user's alone (0600, as ssh asks of a key): pins refuses to start with
/// one that others may read, and writes it so, whole or not at all (a new file renamed over).
public struct PasswordFile: Sendable {
    public var hashes: [Role: String] = [:]

    public init(hashes: [Role: String] = [:]) { self.hashes = hashes }

    /// One Argon2id check at a time, process-wide: each takes 64 MiB, and a burst of logins
    /// then waits instead of taking the machine's memory.
    private static let checking = NSLock()

    /// The role whose password this is, or nil. Both hashes are checked whatever the first
    /// gives, so the time says nothing of which one matched.
    public func role(of password: String) -> Role? {
        Self.checking.lock()
        defer { Self.checking.unlock() }
        let full = hashes[.full].map { Crypto.verify(password: password, hash: $0) } ?? false
        let read = hashes[.read].map { Crypto.verify(password: password, hash: $0) } ?? false
        return full ? .full : read ? .read : nil
    }

    /// The file at `path`, or nil when there is none. A file others may read or write, a line
    /// that is not `full|read $argon2id$...`, is an error naming the file.
    public static func load(_ path: String) throws -> PasswordFile? {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return nil }
            throw ServerError(description: "cannot read the password file \(path): \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & S_IFMT == S_IFREG else { throw ServerError(description: "the password file \(path) is not a regular file") }
        guard info.st_mode & 0o077 == 0 else {
            throw ServerError(description: "the password file \(path) may be read by others (mode \(String(info.st_mode & 0o777, radix: 8))): "
                + "chmod 600 it, or set the password again (pins serve --set-password)")
        }
        guard let data = FileManager.default.contents(atPath: path), data.count < 4096 else {
            throw ServerError(description: "cannot read the password file \(path)")
        }
        var file = PasswordFile()
        for (number, line) in String(decoding: data, as: UTF8.self).split(separator: "\n").enumerated() where !line.hasPrefix("#") {
            let parts = line.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, let role = Role(rawValue: String(parts[0])), parts[1].hasPrefix("$argon2id$") else {
                throw ServerError(description: "\(path) line \(number + 1): not 'full|read $argon2id$...' (set the password again)")
            }
            file.hashes[role] = String(parts[1])
        }
        return file
    }

    /// Writes the file: a new file (0600 from its creation) beside it, synced, renamed over.
    public func save(_ path: String) throws {
        var text = "# pins serve: the passwords' Argon2id hashes (libsodium); set with pins serve --set-password\n"
        for role in [Role.full, .read] { if let hash = hashes[role] { text += "\(role.rawValue) \(hash)\n" } }
        let temporary = path + ".new"
        unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw ServerError(description: "cannot write \(temporary): \(String(cString: strerror(errno)))") }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd) == 0
        close(fd)
        guard written == bytes.count, synced, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw ServerError(description: "cannot write the password file \(path): \(String(cString: strerror(errno)))")
        }
    }
}
