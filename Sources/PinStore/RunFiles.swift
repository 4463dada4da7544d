import Foundation
import PinCore

/// A file a run wrote beside the photos (`run_files`): its bytes before (nil: the run created
/// it) and after.
public struct RunFileWrite: Sendable, Hashable {
    public var path: RawPath
    public var before: [UInt8]?
    public var after: [UInt8]

    public init(path: RawPath, before: [UInt8]?, after: [UInt8]) {
        self.path = path
        self.before = before
        self.after = after
    }
}

/// A photo with a recorded position, as `pins sidecars` writes it out.
public struct PositionedPhoto: Sendable {
    public var path: RawPath
    public var coordinate: Coordinate
}

/// What `pins sidecars` reads and records (issue 36 item 6).
extension PinDatabase {
    /// The photos still there whose record holds a position, by path; with `all` false only
    /// those pins placed (a track's or an estimate's position).
    public func positionedPhotos(all: Bool) throws -> [PositionedPhoto] {
        let which = all ? "" : " AND position_source IN ('track', 'estimate')"
        return try read { _ in
            try connection.query("""
                SELECT path, latitude, longitude FROM photos
                WHERE latitude IS NOT NULL AND longitude IS NOT NULL AND missing = 0\(which) ORDER BY path
                """) { s in
                PositionedPhoto(path: RawPath(bytes: s.blob(0)), coordinate: Coordinate(latitude: s.double(1), longitude: s.double(2)))
            }
        }
    }

    /// Records, before they are written, the files run `run` is about to write.
    public func recordFileWrites(run: Int64, _ writes: [RunFileWrite]) throws {
        try write { _ in
            for w in writes {
                try connection.run("""
                    INSERT INTO run_files (run_id, path, before, after) VALUES (?, ?, ?, ?)
                    ON CONFLICT (run_id, path) DO UPDATE SET after = excluded.after
                    """, [run, SQLValue.blob(w.path.bytes), w.before.map { SQLValue.blob($0) } ?? .null, SQLValue.blob(w.after)])
            }
        }
    }

    /// Forgets files of run `run`: not written after all, or given back by an undo.
    public func forgetFileWrites(run: Int64, _ paths: [RawPath]) throws {
        try write { _ in
            for path in paths { try connection.run("DELETE FROM run_files WHERE run_id = ? AND path = ?", [run, SQLValue.blob(path.bytes)]) }
        }
    }

    /// The paths of the files run `id` wrote, by path, and whether it created each (`runs
    /// show`: without their bytes).
    public func writtenFiles(ofRun id: Int64) throws -> [(path: RawPath, created: Bool)] {
        try read { _ in
            try connection.query("SELECT path, before IS NULL FROM run_files WHERE run_id = ? ORDER BY path", [id]) {
                (RawPath(bytes: $0.blob(0)), $0.int(1) != 0)
            }
        }
    }

    /// The files run `id` wrote, by path.
    public func fileWrites(ofRun id: Int64) throws -> [RunFileWrite] {
        try read { _ in
            try connection.query("SELECT path, before, after FROM run_files WHERE run_id = ? ORDER BY path", [id]) { s in
                RunFileWrite(path: RawPath(bytes: s.blob(0)), before: s.isNull(1) ? nil : s.blob(1), after: s.blob(2))
            }
        }
    }

    /// Sidecars pins wrote (a folder's, in one transaction): the import is not to read their
    /// photos again for them. A record the file matched before the write (`before`; nil for a
    /// file pins created, which has none) takes the new file's state; a new file gets a record
    /// as a sidecar's (not media). A sidecar changed since the import read it keeps its stale
    /// record: the import reads it.
    public func noteWrittenSidecars(_ written: [(path: RawPath, before: PhotoFingerprint?, after: PhotoFingerprint)]) throws {
        guard !written.isEmpty else { return }
        try write { _ in
            for (path, before, after) in written {
                let values: [SQLBindable] = [after.size, after.modificationNanoseconds, Int64(bitPattern: after.inode), SQLValue.blob(path.bytes)]
                if let before {
                    try connection.run("UPDATE photos SET size = ?, mtime_ns = ?, inode = ? WHERE path = ? AND size = ? AND mtime_ns = ? AND inode = ? AND missing = 0",
                                       values + [before.size, before.modificationNanoseconds, Int64(bitPattern: before.inode)])
                } else {
                    try connection.run("""
                        INSERT INTO photos (path, size, mtime_ns, inode, decision) VALUES (?4, ?1, ?2, ?3, 'notMedia')
                        ON CONFLICT (path) DO NOTHING
                        """, values)
                }
            }
        }
    }

    /// Sidecars an undo removed: the records `noteWrittenSidecars` made go with them.
    public func forgetRemovedSidecars(_ paths: [RawPath]) throws {
        guard !paths.isEmpty else { return }
        try write { _ in
            for path in paths {
                try connection.run("DELETE FROM photos WHERE path = ? AND decision = 'notMedia' AND location_id IS NULL", [SQLValue.blob(path.bytes)])
            }
        }
    }

    /// Starts a run that is not an import (`root` says what it is), as `pins runs` lists it.
    public func startRun(root: String) throws -> Int64 {
        try write { repos in try repos.runs.start(root: root, at: Date()) }
    }

    /// Ends run `run` as completed (or failed), with its counts.
    public func finishRun(_ id: Int64, files: Int, photos: Int, exitCode: Int) throws {
        try write { repos in
            guard var run = try repos.runs.recent(limit: Int.max).first(where: { $0.id == id }) else { return }
            run.finishedAt = Date()
            run.status = .completed
            run.exitCode = exitCode
            run.files = files
            run.photos = photos
            try repos.runs.finish(run)
        }
    }
}

