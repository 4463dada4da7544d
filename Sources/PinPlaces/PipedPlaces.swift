import Foundation
import PinCore
import PinFormats
import PinStore

/// A place file that comes through a pipe: `pins import-places -` (standard input), or a path
/// given on the command line that is a FIFO or a character device (`<(unzip -p takeout.zip
/// Saved.json)` is `/dev/fd/63`, `/dev/stdin`). Its bytes are read once, before the run lock is
/// taken (a writer that never comes holds nothing; SIGINT and SIGTERM end the process as they
/// do any command), into a scratch file with no name (`ScratchFile`: nothing is left behind,
/// even by kill -9), at most `maxBytes`; the import then sniffs and reads that copy as a
/// regular file, through `/proc/self/fd`. A pipe cannot be read twice, so sniffing it and then
/// reading it from the start, as a file is, gave the wrong errors (issue 40 item 11).
struct PipedPlaces {
    /// As much as a pipe may bring: a place file bigger than this is a file to save first.
    static let maxBytes: Int64 = 1 << 30

    /// What the file is called in messages and the report: "standard input" for `-`.
    let name: String
    /// The copy, kept open for the run (its descriptor is its only name).
    let copy: ScratchFile
    /// Where the copy is opened for reading, as a regular file.
    var path: String { "/proc/self/fd/\(copy.fd)" }

    /// Whether `path` is read as a pipe: `-`, a FIFO or a character device. A terminal is not
    /// (`isPipe` throws: typing a place file is not what was meant).
    static func isPipe(_ path: String) throws -> Bool {
        if path == "-" {
            if isatty(0) != 0 {
                throw PlacesImportFailure("standard input is a terminal: pipe a place file into 'pins import-places -' "
                                          + "(curl ... | pins import-places -); nothing was imported", exitCode: ExitCode.usage)
            }
            return true
        }
        var st = stat()
        guard stat(path, &st) == 0 else { return false }  // missing: the regular open says so
        let type = st.st_mode & S_IFMT
        guard type == S_IFIFO || type == S_IFCHR else { return false }
        if type == S_IFCHR {
            let fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
            defer { if fd >= 0 { close(fd) } }
            if fd >= 0, isatty(fd) != 0 {
                throw PlacesImportFailure("cannot read \(path): a terminal, not a place file; nothing was imported", exitCode: ExitCode.usage)
            }
        }
        return true
    }

    /// Reads `path` (`-`: standard input) to its end into a scratch copy.
    init(_ path: String) throws {
        name = path == "-" ? "standard input" : path
        do {
            copy = try ScratchFile()
        } catch {
            throw PlacesImportFailure("cannot copy \(name): \(error); nothing was imported", exitCode: ExitCode.failure)
        }
        let fd: Int32
        if path == "-" {
            fd = 0
        } else {
            // O_NONBLOCK: a FIFO nobody has opened for writing is not waited for (issue 40 item
            // 8); it reads as empty. Then the reads block, as `cat`'s: a writer that is there
            // (`<(...)`, `/dev/stdin`) is waited for, before any lock, and a signal ends it.
            fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
            guard fd >= 0 else {
                throw PlacesImportFailure("cannot read \(path): \(String(cString: strerror(errno))); nothing was imported", exitCode: ExitCode.noInput)
            }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        }
        defer { if fd != 0 { close(fd) } }
        let total = try Self.copy(from: fd, to: copy.fd, name: name)
        guard total > 0 else {
            throw PlacesImportFailure("\(name): nothing came through the pipe (0 bytes); nothing was imported", exitCode: ExitCode.noInput)
        }
    }

    /// Copies `from` to its end into `to`; the bytes copied.
    private static func copy(from: Int32, to: Int32, name: String) throws -> Int64 {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var total: Int64 = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { read(from, $0.baseAddress!, $0.count) }
            if n == 0 { return total }
            if n < 0 {
                if errno == EINTR { continue }
                throw PlacesImportFailure("cannot read \(name): \(String(cString: strerror(errno))); nothing was imported", exitCode: ExitCode.ioError)
            }
            total += Int64(n)
            guard total <= maxBytes else {
                throw PlacesImportFailure("\(name): more than \(maxBytes >> 30) GiB came through the pipe, more than pins copies from one; "
                                          + "save it to a file and import that; nothing was imported", exitCode: ExitCode.dataError)
            }
            var done = 0
            while done < n {
                let w = buffer.withUnsafeBytes { write(to, $0.baseAddress! + done, n - done) }
                if w < 0 {
                    if errno == EINTR { continue }
                    throw PlacesImportFailure("cannot copy \(name) to a scratch file: \(String(cString: strerror(errno))) "
                                              + "(TMPDIR chooses the folder); nothing was imported", exitCode: ExitCode.ioError)
                }
                done += w
            }
        }
    }
}
