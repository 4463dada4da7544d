import Foundation
import PinCore
import PinStore

/// The files the walk found to read, each with its sidecars, kept on disk as they are found
/// (in the order the walk's folders end) and read back a chunk at a time: a first import of
/// 1,000,000 files does not hold the list. No file is made when there is nothing to read.
struct FilesToRead {
    private var file: ScratchFile?
    private(set) var count = 0
    var isEmpty: Bool { count == 0 }

    mutating func append(_ entry: FileEntry, sidecars: [RawPath]) throws {
        if file == nil { file = try ScratchFile(failure: ImportError.storage) }
        try file!.appendRecord { w in
            w.data(entry.relativePath.bytes)
            w.i64(entry.size)
            w.i64(entry.modificationNanoseconds)
            w.u64(entry.inode)
            w.u64(entry.device)
            w.u64(UInt64(sidecars.count))
            for sidecar in sidecars { w.data(sidecar.bytes) }
        }
        count += 1
    }

    /// After the last `append`, before reading.
    func finish() throws { try file?.flush() }

    /// The files in order, `size` at a time.
    func chunks(of size: Int) -> AnySequence<(entries: [FileEntry], sidecars: [[RawPath]])> {
        guard let file else { return AnySequence([]) }
        var reader = RecordReader(file, from: 0, to: file.end)
        let size = max(1, size)
        return AnySequence {
            AnyIterator {
                var entries: [FileEntry] = [], sidecars: [[RawPath]] = []
                while entries.count < size, let (entry, names) = reader.next({ body -> (FileEntry, [RawPath]) in
                    var r = ByteCursor(body)
                    let entry = FileEntry(relativePath: RawPath(bytes: r.data()), size: r.i64(), modificationNanoseconds: r.i64(),
                                          inode: r.u64(), device: r.u64())
                    return (entry, (0..<Int(r.u64())).map { _ in RawPath(bytes: r.data()) })
                }) {
                    entries.append(entry)
                    sidecars.append(names)
                }
                return entries.isEmpty ? nil : (entries, sidecars)
            }
        }
    }

    /// Every file, in order (tests).
    var entries: [FileEntry] { chunks(of: .max).flatMap(\.entries) }
    /// Every file's sidecars, in order (tests).
    var sidecars: [[RawPath]] { chunks(of: .max).flatMap(\.sidecars) }
}

extension ImportReport {
    /// Throws when the report's records could not all be read back from the run's scratch file
    /// (an I/O error in TMPDIR): call once the report is written, whose lists then end early.
    public func checkReadBack() throws { try ScratchFile.checkReadBack() }
}
