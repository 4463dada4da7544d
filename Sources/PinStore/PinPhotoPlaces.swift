import Foundation
import PinCore

/// Where the photo that made a pin is: what the map page shows in a pin's popup.
public struct PinPhotoPlace: Sendable, Hashable {
    /// The photo's absolute path bytes.
    public var path: RawPath
    /// The imported folder it lies in (the deepest recorded run root above it), if any.
    public var root: RawPath?
    /// The photo's own UTC offset, when its metadata gave one.
    public var utcOffsetSeconds: Int?
    /// The file as recorded: a file at `path` with another size or time is another photo.
    public var fingerprint: PhotoFingerprint

    /// The path relative to the imported folder; the whole path when it is not below it.
    public var relativePath: RawPath {
        guard let root, !root.bytes.isEmpty else { return path }
        var prefix = root.bytes
        if prefix.last != UInt8(ascii: "/") { prefix.append(UInt8(ascii: "/")) }
        guard path.bytes.starts(with: prefix) else { return path }
        return RawPath(bytes: Array(path.bytes.dropFirst(prefix.count)))
    }
}

extension PinDatabase {
    /// The photo behind each imported pin, keyed by pin id (a present file before a missing
    /// one, then the first by path, when several records point at one pin, as after a copy).
    /// Its folder is the deepest imported folder (run root) above it: records do not all name
    /// their run.
    public func photoPlaces() throws -> [UUID: PinPhotoPlace] {
        var out: [UUID: PinPhotoPlace] = [:]
        try connection.readTransaction {
            let roots = try importedFolders().map(RawPath.init).sorted { $0.bytes.count > $1.bytes.count }
            let rows = try connection.query("""
                SELECT location_id, path, utc_offset, size, mtime_ns, inode FROM photos
                WHERE location_id IS NOT NULL AND decision = 'accepted' ORDER BY missing, path
                """) { s in
                (s.string(0), RawPath(bytes: s.blob(1)), s.isNull(2) ? nil : s.int(2),
                 PhotoFingerprint(size: s.int64(3), modificationNanoseconds: s.int64(4), inode: UInt64(bitPattern: s.int64(5))))
            }
            for (id, path, offset, fingerprint) in rows {
                guard let uuid = UUID(uuidString: id), out[uuid] == nil else { continue }
                let root = roots.first { root in
                    path.bytes.count > root.bytes.count && path.bytes.starts(with: root.bytes)
                        && (root.bytes.last == UInt8(ascii: "/") || path.bytes[root.bytes.count] == UInt8(ascii: "/"))
                }
                out[uuid] = PinPhotoPlace(path: path, root: root, utcOffsetSeconds: offset, fingerprint: fingerprint)
            }
        }
        return out
    }

    /// Every folder an import run was made on (`runs.root`), each once.
    public func importedFolders() throws -> [String] {
        try connection.query("SELECT DISTINCT root FROM runs WHERE root != '' ORDER BY root") { $0.string(0) }
    }
}
