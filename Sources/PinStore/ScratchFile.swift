import CSupport
import Foundation
import Synchronization

/// Where a large run keeps what it decided: a file with no name (O_TMPFILE, or unlinked as soon
/// as it is made), so a run killed at any point leaves nothing behind, and its pages go back to
/// the system when the run ends. Written by appending, read back with `pread` from any offset
/// (any number of passes: the report writers go over the decided files more than once).
///
/// The folder is `$TMPDIR`, else `/tmp`, as for sort(1) (see `init()`): not beside the database, which a dry
/// run must not touch (and whose folder may not exist), and not the photo share, which may be
/// read-only or slow. A NAS whose `/tmp` is small RAM-backed tmpfs points TMPDIR at a volume.
/// A run of 1,000,000 --small files needed 272 MB there at its peak (the sorted runs and the
/// report's records, while the rules decide).
///
/// Shared by the photo import (PinImport: the walk's files, the decided files, the spilled
/// items) and import-places (PinPlaces: the copy of a piped place file); its failures are
/// errors of the caller's kind (`failure`: the import's `ImportError.storage`), so that the
/// caller's own handling of its storage errors sees them as before.
package final class ScratchFile: @unchecked Sendable {
    // Appends happen on one thread (the pipeline's); reads (pread) only once writing is done.
    package let fd: Int32
    package let folder: String
    /// Makes the error thrown (or kept, for a read-back) for a failure of this file, from its message.
    private let failure: @Sendable (String) -> any Error
    /// Bytes already in the file (not counting `pending`).
    private var written: Int64 = 0
    private var pending: [UInt8] = []
    private static let flushAt = 256 << 10

    /// In `$TMPDIR` when it is set (and only there: a folder the person chose); else in
    /// `/tmp`, else `/var/tmp`, else in memory (a system without a temporary folder, such as
    /// an empty chroot: the run works, but its records count as its memory).
    package convenience init(failure: @escaping @Sendable (String) -> any Error = ScratchFailure.init) throws {
        if let folder = ProcessInfo.processInfo.environment["TMPDIR"], !folder.isEmpty {
            try self.init(folder: folder, failure: failure)
            return
        }
        var firstError: Error?
        for folder in ["/tmp", "/var/tmp"] {
            do {
                try self.init(folder: folder, failure: failure)
                return
            } catch {
                firstError = firstError ?? error
            }
        }
        let fd = pins_open_memory_scratch()
        guard fd >= 0 else { throw firstError! }
        self.init(fd: fd, folder: "memory", failure: failure)
    }

    package convenience init(folder: String, failure: @escaping @Sendable (String) -> any Error = ScratchFailure.init) throws {
        let fd = pins_open_scratch(folder)
        guard fd >= 0 else {
            throw failure("cannot make a scratch file in \(folder): \(String(cString: strerror(errno))) "
                                      + "(TMPDIR chooses the folder)")
        }
        self.init(fd: fd, folder: folder, failure: failure)
    }

    private init(fd: Int32, folder: String, failure: @escaping @Sendable (String) -> any Error) {
        self.fd = fd
        self.folder = folder
        self.failure = failure
        pending.reserveCapacity(Self.flushAt + 4096)
    }

    deinit { close(fd) }

    /// The offset the next appended byte gets.
    package var end: Int64 { written + Int64(pending.count) }

    /// Appends one record: its length (4 bytes), then the bytes `encode` writes (straight into
    /// the buffer: no array per record).
    package func appendRecord(_ encode: (inout ByteWriter) -> Void) throws {
        var w = ByteWriter()
        swap(&w.bytes, &pending)
        let at = w.bytes.count
        w.bytes.append(contentsOf: [0, 0, 0, 0])
        encode(&w)
        let length = UInt32(w.bytes.count - at - 4).littleEndian
        w.bytes.withUnsafeMutableBytes { $0.storeBytes(of: length, toByteOffset: at, as: UInt32.self) }
        swap(&w.bytes, &pending)
        if pending.count >= Self.flushAt { try flush() }
    }

    /// Writes what is pending: call before reading back.
    package func flush() throws {
        var done = 0
        while done < pending.count {
            let n = pending.withUnsafeBytes { write(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0 {
                if errno == EINTR { continue }
                throw failure("cannot write the run's scratch file in \(folder): \(String(cString: strerror(errno))) "
                                          + "(TMPDIR chooses the folder)")
            }
            done += n
        }
        written += Int64(pending.count)
        pending.removeAll(keepingCapacity: true)
    }

    /// Reads up to `count` bytes at `offset` into `buffer`; returns how many (0 at the end).
    package func read(at offset: Int64, into buffer: UnsafeMutableRawPointer, count: Int) -> Int {
        while true {
            let n = pread(fd, buffer, count, off_t(offset))
            if n >= 0 { return n }
            if errno == EINTR { continue }
            // The run's own file, written moments ago: failing to read it back is the system's
            // failure (an I/O error on TMPDIR), not something the run can work around. The
            // records end here for the reader; the run throws it before its next write
            // (`checkReadBack`), so nothing is saved from a list cut short.
            Self.failReadBack(failure("cannot read back the run's scratch file in \(folder): "
                                                  + "\(String(cString: strerror(errno))) (TMPDIR chooses the folder)"))
            return 0
        }
    }

    /// The first read-back that failed in this process, until `checkReadBack` throws it. Kept
    /// for the process, not per file: the readers are iterators (`Sequence`), which cannot throw,
    /// and one import runs at a time in a process (the run lock holds one per database; the CLI
    /// runs one, and `pins serve` starts one at a time, dry runs included: its `ImportJobs`).
    private static let readFailure = Mutex<(any Error)?>(nil)

    package static func failReadBack(_ error: any Error) {
        readFailure.withLock { if $0 == nil { $0 = error } }
    }

    /// Throws (once) a read-back of the run's scratch records that failed: before the run saves
    /// what it decided from them, and after the report was written from them.
    package static func checkReadBack() throws {
        if let error = readFailure.withLock({ failure -> (any Error)? in
            defer { failure = nil }
            return failure
        }) { throw error }
    }
}

/// Reads the records of `file` between two offsets, in order, through a small buffer.
package struct RecordReader {
    package let file: ScratchFile
    private var offset: Int64
    private let end: Int64
    private var buffer: [UInt8]
    private var start = 0, count = 0

    package init(_ file: ScratchFile, from offset: Int64, to end: Int64, bufferSize: Int = 32 << 10) {
        self.file = file
        self.offset = offset
        self.end = end
        buffer = [UInt8](repeating: 0, count: bufferSize)
    }

    /// Makes sure `need` bytes are in the buffer from `start`; false at the end of the range.
    private mutating func fill(_ need: Int) -> Bool {
        if count >= need { return true }
        if start > 0 {
            buffer.withUnsafeMutableBytes { $0.baseAddress!.copyMemory(from: $0.baseAddress! + start, byteCount: count) }
            start = 0
        }
        if buffer.count < need { buffer += [UInt8](repeating: 0, count: need - buffer.count) }
        while count < need && offset < end {
            let want = Int(min(Int64(buffer.count - count), end - offset))
            let n = buffer.withUnsafeMutableBytes { file.read(at: offset, into: $0.baseAddress! + count, count: want) }
            if n == 0 { break }
            count += n
            offset += Int64(n)
        }
        return count >= need
    }

    /// The next record's bytes, to `body` (valid only inside it); nil at the end.
    package mutating func next<T>(_ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T? {
        guard fill(4) else { return nil }
        let length = Int(buffer.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: start, as: UInt32.self)) })
        guard fill(4 + length) else { return nil }
        let result = try buffer.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[(start + 4)..<(start + 4 + length)])) }
        start += 4 + length
        count -= 4 + length
        return result
    }
}

// MARK: bytes

/// Little-endian values and length-prefixed bytes, appended.
package struct ByteWriter {
    package var bytes: [UInt8] = []

    package init() {}

    package mutating func u8(_ v: UInt8) { bytes.append(v) }
    package mutating func u64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
    package mutating func i64(_ v: Int64) { u64(UInt64(bitPattern: v)) }
    package mutating func f64(_ v: Double) { u64(v.bitPattern) }
    package mutating func data(_ v: [UInt8]) {
        withUnsafeBytes(of: UInt32(v.count).littleEndian) { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: v)
    }
    package mutating func string(_ v: String) {
        var v = v
        v.withUTF8 { utf8 in
            withUnsafeBytes(of: UInt32(utf8.count).littleEndian) { bytes.append(contentsOf: $0) }
            bytes.append(contentsOf: utf8)
        }
    }
    package mutating func optionalString(_ v: String?) {
        if let v {
            u8(1)
            string(v)
        } else {
            u8(0)
        }
    }
}

/// Reads what `ByteWriter` wrote.
package struct ByteCursor {
    package let base: UnsafeRawBufferPointer
    package var at = 0

    package init(_ base: UnsafeRawBufferPointer) { self.base = base }

    package mutating func u8() -> UInt8 {
        defer { at += 1 }
        return base[at]
    }
    package mutating func u32() -> UInt32 {
        defer { at += 4 }
        return UInt32(littleEndian: base.loadUnaligned(fromByteOffset: at, as: UInt32.self))
    }
    package mutating func u64() -> UInt64 {
        defer { at += 8 }
        return UInt64(littleEndian: base.loadUnaligned(fromByteOffset: at, as: UInt64.self))
    }
    package mutating func i64() -> Int64 { Int64(bitPattern: u64()) }
    package mutating func f64() -> Double { Double(bitPattern: u64()) }
    package mutating func data() -> [UInt8] {
        let n = Int(u32())
        defer { at += n }
        return Array(UnsafeRawBufferPointer(rebasing: base[at..<(at + n)]))
    }
    package mutating func string() -> String {
        let n = Int(u32())
        defer { at += n }
        return String(decoding: UnsafeRawBufferPointer(rebasing: base[at..<(at + n)]), as: UTF8.self)
    }
    package mutating func optionalString() -> String? { u8() == 0 ? nil : string() }
}


/// A scratch file's failure, when the caller has no error of its own for it (PinPlaces): says
/// what went wrong, as the import's storage errors do (its description is the message).
package struct ScratchFailure: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
