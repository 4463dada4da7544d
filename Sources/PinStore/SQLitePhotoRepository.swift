import Foundation
import PinCore

struct SQLitePhotoRepository: PhotoRepository {
    let db: Connection

    func knownFiles(under root: RawPath, unplaced: Bool) throws -> KnownFileCursor {
        // Paths are BLOBs: compare bytes, so names that are not UTF-8 match too. SQLite orders
        // BLOBs as memcmp does, the walk's order; the primary key's index gives that order.
        let (prefix, upper) = Self.pathRange(below: root)
        // A file recorded "unreadable" because it could not be opened (before issue 40 a failure
        // to open was a decision) is given size -1: never the file's, so it is read again.
        let statement = try db.prepare("""
            SELECT path, CASE WHEN decision = 'unreadable' AND detail LIKE 'cannot open:%'
                                   AND detail != 'cannot open: not a regular file' THEN -1 ELSE size END,
                   mtime_ns, inode, digest, missing\(unplaced ? ", decision = 'noLocation', " + Self.unplacedColumns : "")
            FROM photos WHERE path >= ? AND path < ? ORDER BY path
            """)
        try statement.bind([SQLValue.blob(prefix), SQLValue.blob(upper)])
        let skip = prefix.count
        return KnownFileCursor {
            guard try statement.step() else { return nil }
            var known = KnownPhoto(
                fingerprint: PhotoFingerprint(size: statement.int64(1), modificationNanoseconds: statement.int64(2),
                                              inode: UInt64(bitPattern: statement.int64(3))),
                storedDigest: statement.isNull(4) ? nil : statement.withText(4) { StoredDigest(utf8: $0) },
                missing: statement.int(5) != 0)
            // Photos skipped for "no location" carry their time: a new track may cover them.
            if unplaced, statement.int(6) != 0 {
                known.unplaced = try Self.unplacedPhoto(statement, from: 7)
            }
            return (RawPath(bytes: statement.blob(0, droppingFirst: skip)), known)
        }
    }

    func find(size: Int64, digest: String) throws -> PhotoRecord? {
        try db.query("""
            SELECT path, size, mtime_ns, inode, digest, format, taken_at, time_source, utc_offset, latitude, longitude,
                   decision, detail, location_id, position_source, clock_offset
            FROM photos WHERE size = ? AND digest = ? AND decision != 'notMedia' ORDER BY missing DESC, path LIMIT 1
            """, [size, digest]) { s in
            var record = PhotoRecord(
                path: RawPath(bytes: s.blob(0)),
                fingerprint: PhotoFingerprint(size: s.int64(1), modificationNanoseconds: s.int64(2), inode: UInt64(bitPattern: s.int64(3))),
                digest: s.optionalString(4), format: try s.optionalValue(5, as: FileKind.self),
                takenAt: s.optionalDouble(6).map(Date.init(timeIntervalSince1970:)), timeSource: try s.optionalValue(7, as: TimeSource.self),
                utcOffsetSeconds: s.isNull(8) ? nil : s.int(8),
                coordinate: s.isNull(9) ? nil : Coordinate(latitude: s.double(9), longitude: s.double(10)),
                decision: try s.value(11, as: PhotoDecision.self), detail: s.optionalString(12),
                locationID: s.optionalString(13).flatMap(UUID.init(uuidString:)),
                positionSource: try s.optionalValue(14, as: PositionSource.self))
            record.clockOffset = s.optionalDouble(15)
            return record
        }.first
    }

    func move(from old: RawPath, to new: PhotoRecord, runID: Int64?) throws {
        try db.run("DELETE FROM photos WHERE path = ?", [SQLValue.blob(old.bytes)])
        try save(new, runID: runID)
    }

    func refresh(_ path: RawPath, fingerprint: PhotoFingerprint) throws {
        try db.run("UPDATE photos SET size = ?, mtime_ns = ?, inode = ?, missing = 0 WHERE path = ?",
                   [fingerprint.size, fingerprint.modificationNanoseconds, Int64(bitPattern: fingerprint.inode), SQLValue.blob(path.bytes)])
    }

    func markMissing(_ paths: [RawPath]) throws {
        for path in paths {
            try db.run("UPDATE photos SET missing = 1 WHERE path = ?", [SQLValue.blob(path.bytes)])
        }
    }

    func acceptedPhotos() throws -> [AcceptedPhoto] {
        try db.query("SELECT taken_at, path FROM photos WHERE decision = 'accepted' AND taken_at IS NOT NULL AND (time_source IS NULL OR time_source <> 'fileModification') ORDER BY taken_at, path") {
            AcceptedPhoto(instant: $0.double(0), path: RawPath(bytes: $0.blob(1)))
        }
    }

    func save(_ r: PhotoRecord, runID: Int64?) throws {
        try saveAll([r], runID: runID)
    }

    /// Writes `records` in their order, each as an upsert by path (a record read again replaces
    /// the stored one), several rows to a statement (`rowsPerStatement`). Within a transaction
    /// SQLite journals each page a statement changes once per statement, so that the statement
    /// can be undone alone (the photo triggers make every upsert such a statement): one row to a
    /// statement copied about seven pages for every record (the table's, each index's: a
    /// photo's pin page `photos_pin` among them), a batch of rows copies each page it changes
    /// once. Rows go in and fire their triggers one after the other, as the same upserts one
    /// by one would: the same rows, rowids, links and log.
    ///
    /// In a write that names the pins of the rows it inserts at its end (`PinChangeLog.hold`),
    /// when every new row lands above the write's mark (SQLite gives a new row the largest rowid
    /// plus one: the largest is at the mark or above, unless the write deleted rows), the
    /// statements skip the photo insert triggers' question (`PinChangeLog.ownInsertReads`).
    func saveAll(_ records: [PhotoRecord], runID: Int64?) throws {
        guard !records.isEmpty else { return }
        var namedAtEnd = false
        if let mark = db.photoInsertsNamedAbove {
            let largest = try db.scalarInt("SELECT max(rowid) FROM photos") ?? 0
            namedAtEnd = largest >= mark && largest < Int64.max - Int64(records.count)
        }
        var start = records.startIndex
        for rows in Self.statementSizes(records.count, most: Int(db.variableLimit) / Self.columnsPerRow) {
            var values: [SQLBindable] = []
            values.reserveCapacity(rows * Self.columnsPerRow)
            for r in records[start..<(start + rows)] { try appendValues(of: r, runID: runID, to: &values) }
            if namedAtEnd {
                try db.run(Self.upsert(rows: rows), values, readingAsNull: PinChangeLog.ownInsertReads)
            } else {
                try db.run(Self.upsert(rows: rows), values)
            }
            start += rows
        }
    }

    /// The sizes of `rowsPerStatement` that write `count` records in turn: each the largest not
    /// more than are left nor than `most` (the rows whose values SQLite takes in one statement,
    /// `Connection.variableLimit`: 32,766 values since SQLite 3.32, 999 before).
    static func statementSizes(_ count: Int, most: Int) -> [Int] {
        var sizes: [Int] = []
        var left = count
        while left > 0 {
            let rows = rowsPerStatement.first { $0 <= left && $0 <= most } ?? 1
            sizes.append(rows)
            left -= rows
        }
        return sizes
    }

    /// How many rows one statement writes: a few fixed sizes, so that a few statements are
    /// prepared and kept (`prepare`'s cache is per SQL text).
    static let rowsPerStatement = [256, 64, 16, 4, 1]
    static let columnsPerRow = 18

    /// The upsert of `rows` records (its SQL made once for each of `rowsPerStatement`).
    static func upsert(rows: Int) -> String { upserts[rows] ?? upsertSQL(rows: rows) }

    private static let upserts: [Int: String] = Dictionary(uniqueKeysWithValues: rowsPerStatement.map { ($0, upsertSQL(rows: $0)) })

    private static func upsertSQL(rows: Int) -> String {
        let row = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?)"
        return """
            INSERT INTO photos (path, size, mtime_ns, inode, digest, format, taken_at, time_source, utc_offset,
                                latitude, longitude, decision, detail, location_id, run_id, missing, pin, position_source, clock_offset)
            VALUES \(Array(repeating: row, count: rows).joined(separator: ", "))
            ON CONFLICT(path) DO UPDATE SET size = excluded.size, mtime_ns = excluded.mtime_ns, inode = excluded.inode,
                digest = excluded.digest, format = excluded.format, taken_at = excluded.taken_at,
                time_source = excluded.time_source, utc_offset = excluded.utc_offset, latitude = excluded.latitude,
                longitude = excluded.longitude, decision = excluded.decision, detail = excluded.detail,
                location_id = excluded.location_id, run_id = excluded.run_id, missing = 0, pin = excluded.pin,
                position_source = excluded.position_source, clock_offset = excluded.clock_offset
            """
    }

    /// One record's `columnsPerRow` values, in the order of `upsertSQL`'s columns.
    private func appendValues(of r: PhotoRecord, runID: Int64?, to values: inout [SQLBindable]) throws {
        values.append(SQLValue.blob(r.path.bytes))
        values.append(r.fingerprint.size)
        values.append(r.fingerprint.modificationNanoseconds)
        values.append(Int64(bitPattern: r.fingerprint.inode))
        values.append(r.digest)
        values.append(r.format?.rawValue)
        values.append(r.takenAt?.timeIntervalSince1970)
        values.append(r.timeSource?.rawValue)
        values.append(r.utcOffsetSeconds)
        values.append(r.coordinate?.latitude)
        values.append(r.coordinate?.longitude)
        values.append(r.decision.rawValue)
        values.append(r.detail)
        values.append(r.locationID?.lowercasedText)
        values.append(runID)
        values.append(try (r.pinID ?? (r.decision == .accepted ? r.locationID : nil)).flatMap(db.pinRow))
        values.append(r.coordinate == nil ? nil : r.positionSource?.rawValue)
        values.append(r.clockOffset)
    }

    func unplacedPhotos(under root: RawPath, from: Double, to: Double) throws -> [(path: RawPath, known: KnownPhoto, takenAt: Double)] {
        let (prefix, upper) = Self.pathRange(below: root)
        return try db.query("""
            SELECT path, size, mtime_ns, inode, digest, taken_at FROM photos
            WHERE path >= ? AND path < ? AND decision = 'noLocation' AND missing = 0 AND taken_at BETWEEN ? AND ?
              AND time_source IS NOT NULL AND time_source NOT IN ('fileModification', 'none')
            ORDER BY path
            """, [SQLValue.blob(prefix), SQLValue.blob(upper), from, to]) { s in
            (RawPath(bytes: s.blob(0, droppingFirst: prefix.count)),
             KnownPhoto(fingerprint: PhotoFingerprint(size: s.int64(1), modificationNanoseconds: s.int64(2), inode: UInt64(bitPattern: s.int64(3))),
                        digest: s.optionalString(4), missing: false),
             s.double(5))
        }
    }

    /// A record with its own position and a capture time (not its file's), as a neighbour for
    /// the estimates: the one condition `recordedNeighbours` and the re-decision share.
    /// `alias` is the photos table's name in the query ("" or "n.").
    static func ownPosition(_ alias: String) -> String {
        """
        \(alias)latitude IS NOT NULL AND \(alias)longitude IS NOT NULL
          AND \(alias)time_source IS NOT NULL AND \(alias)time_source NOT IN ('fileModification', 'none')
          AND (\(alias)position_source NOT IN ('track', 'estimate')
               OR (\(alias)position_source IS NULL AND NOT EXISTS (SELECT 1 FROM tracks)))
        """
    }

    /// See `PhotoRepository.unplacedPhotosMissedByEstimates`: a neighbour within `reach` where
    /// the photo's run did not estimate, or the neighbour's did not and came after it.
    func unplacedPhotosMissedByEstimates(under root: RawPath, reach: Double) throws -> [(path: RawPath, known: KnownPhoto, takenAt: Double)] {
        let (prefix, upper) = Self.pathRange(below: root)
        return try db.query("""
            SELECT p.path, p.size, p.mtime_ns, p.inode, p.digest, p.taken_at FROM photos p LEFT JOIN runs pr ON pr.id = p.run_id
            WHERE p.path >= ? AND p.path < ? AND p.decision = 'noLocation' AND p.missing = 0
              AND p.time_source IS NOT NULL AND p.time_source NOT IN ('fileModification', 'none')
              AND EXISTS (SELECT 1 FROM photos n LEFT JOIN runs nr ON nr.id = n.run_id
                          WHERE n.taken_at BETWEEN p.taken_at - ? AND p.taken_at + ? AND \(Self.ownPosition("n."))
                            AND (coalesce(pr.estimates, 0) = 0
                                 OR (coalesce(nr.estimates, 0) = 0 AND coalesce(n.run_id, 0) > coalesce(p.run_id, 0))))
            ORDER BY p.path
            """, [SQLValue.blob(prefix), SQLValue.blob(upper), reach, reach]) { s in
            (RawPath(bytes: s.blob(0, droppingFirst: prefix.count)),
             KnownPhoto(fingerprint: PhotoFingerprint(size: s.int64(1), modificationNanoseconds: s.int64(2), inode: UInt64(bitPattern: s.int64(3))),
                        digest: s.optionalString(4), missing: false),
             s.double(5))
        }
    }

    func unplacedPhotosForTheCamera(under root: RawPath, clockOffset: Double,
                                    readAgainInAssumedZone: Bool) throws -> [(path: RawPath, known: KnownPhoto, photo: UnplacedPhoto)] {
        let (prefix, upper) = Self.pathRange(below: root)
        return try db.query("""
            SELECT path, size, mtime_ns, inode, digest, \(Self.unplacedColumns) FROM photos
            WHERE path >= ? AND path < ? AND decision = 'noLocation' AND missing = 0 AND taken_at IS NOT NULL
              AND ((? AND time_source = 'assumedZone')
                   OR (clock_offset IS NOT NULL AND clock_offset != ? AND time_source IS NOT NULL
                       AND time_source NOT IN ('fileModification', 'none')))
            ORDER BY path
            """, [SQLValue.blob(prefix), SQLValue.blob(upper), readAgainInAssumedZone, clockOffset]) { s in
            (RawPath(bytes: s.blob(0, droppingFirst: prefix.count)),
             KnownPhoto(fingerprint: PhotoFingerprint(size: s.int64(1), modificationNanoseconds: s.int64(2), inode: UInt64(bitPattern: s.int64(3))),
                        digest: s.optionalString(4), missing: false),
             try Self.unplacedPhoto(s, from: 5))
        }
    }

    func placedByTheCamerasClock(under root: RawPath) throws -> [(path: RawPath, photo: UnplacedPhoto)] {
        let (prefix, upper) = Self.pathRange(below: root)
        return try db.query("""
            SELECT path, \(Self.unplacedColumns) FROM photos
            WHERE path >= ? AND path < ? AND missing = 0 AND taken_at IS NOT NULL AND latitude IS NOT NULL
              AND position_source IN ('track', 'estimate')
              AND time_source IS NOT NULL AND time_source NOT IN ('fileModification', 'none')
            ORDER BY path
            """, [SQLValue.blob(prefix), SQLValue.blob(upper)]) { s in
            (RawPath(bytes: s.blob(0, droppingFirst: prefix.count)),
             try Self.unplacedPhoto(s, from: 1))
        }
    }

    /// What an `UnplacedPhoto` is read from, in `unplacedPhoto(_:from:)`'s order.
    static let unplacedColumns = "taken_at, time_source, utc_offset, run_id, clock_offset"

    /// The `UnplacedPhoto` of `unplacedColumns` read from column `k` on.
    static func unplacedPhoto(_ s: Statement, from k: Int32) throws -> UnplacedPhoto {
        UnplacedPhoto(takenAt: s.optionalDouble(k), timeSource: try s.optionalValue(k + 1, as: TimeSource.self),
                      utcOffsetSeconds: s.isNull(k + 2) ? nil : s.int(k + 2), runID: s.isNull(k + 3) ? nil : s.int64(k + 3),
                      clockOffset: s.optionalDouble(k + 4))
    }

    /// The paths below `root` (its bytes and '/') sort in [prefix, upper): '/' + 1 is '0'.
    static func pathRange(below root: RawPath) -> (prefix: [UInt8], upper: [UInt8]) {
        var prefix = root.bytes
        if prefix.last != UInt8(ascii: "/") { prefix.append(UInt8(ascii: "/")) }
        var upper = prefix
        upper[upper.count - 1] += 1
        return (prefix, upper)
    }

    /// Own positions: a source recorded that is neither `track` nor `estimate`. A record from
    /// before schema 12 (no source) counts only in a database that never had a track: there a
    /// position was the photo's own (estimates came with schema 12); where tracks were used, a
    /// photo a track placed and the rules skipped cannot be told from a phone's.
    func recordedNeighbours(from: Double, to: Double) throws -> [RecordedNeighbour] {
        try db.query("""
            SELECT taken_at, latitude, longitude, path FROM photos
            WHERE taken_at BETWEEN ? AND ? AND \(Self.ownPosition(""))
            ORDER BY taken_at, path
            """, [from, to]) {
            RecordedNeighbour(instant: $0.double(0), coordinate: Coordinate(latitude: $0.double(1), longitude: $0.double(2)),
                              path: RawPath(bytes: $0.blob(3)))
        }
    }
}

struct SQLiteRunRepository: RunRepository {
    let db: Connection

    func start(root: String, at date: Date) throws -> Int64 {
        try db.run("INSERT INTO runs (root, started_at, status) VALUES (?, ?, ?)",
                   [root, date.timeIntervalSince1970, RunStatus.running.rawValue])
        return db.lastInsertRowID
    }

    func finish(_ run: ImportRunRecord) throws {
        // A JSON object keyed by the reasons' raw values (an enum-keyed dictionary would encode
        // as an array): the text earlier versions stored.
        let counts = Dictionary(uniqueKeysWithValues: run.skipped.map { ($0.key.rawValue, $0.value) })
        let skipped = String(decoding: try JSONEncoder.sorted.encode(counts), as: UTF8.self)
        try db.run("""
            UPDATE runs SET finished_at = ?, status = ?, exit_code = ?, files = ?, photos = ?, created = ?, skipped = ?
            WHERE id = ?
            """, [run.finishedAt?.timeIntervalSince1970, run.status.rawValue, run.exitCode, run.files, run.photos, run.created, skipped, run.id])
    }

    func markEstimating(run: Int64) throws {
        try db.run("UPDATE runs SET estimates = 1 WHERE id = ?", [run])
    }

    func recordChange(run: Int64, before: Location, after: Location) throws {
        let encode = { (pin: Location) in String(decoding: try JSONEncoder.sorted.encode(pin), as: UTF8.self) }
        try db.run("""
            INSERT INTO run_changes (run_id, location_id, before, after) VALUES (?, ?, ?, ?)
            ON CONFLICT (run_id, location_id) DO UPDATE SET after = excluded.after
            """, [run, before.id.lowercasedText, try encode(before), try encode(after)])
    }

    func recent(limit: Int) throws -> [ImportRunRecord] {
        try db.query("""
            SELECT id, root, started_at, finished_at, status, exit_code, files, photos, created, skipped
            FROM runs ORDER BY id DESC LIMIT ?
            """, [limit]) { s in
            ImportRunRecord(
                id: s.int64(0), root: s.string(1), startedAt: Date(timeIntervalSince1970: s.double(2)),
                finishedAt: s.optionalDouble(3).map(Date.init(timeIntervalSince1970:)), status: try s.value(4, as: RunStatus.self),
                exitCode: s.isNull(5) ? nil : s.int(5), files: s.int(6), photos: s.int(7), created: s.int(8),
                skipped: try skippedCounts(s.optionalString(9)))
        }
    }

    /// The stored `skipped` object: a reason outside `PhotoDecision` is a read error naming the
    /// column, as for the other closed sets.
    private func skippedCounts(_ text: String?) throws -> [PhotoDecision: Int] {
        guard let counts = text.flatMap({ try? JSONDecoder().decode([String: Int].self, from: Data($0.utf8)) }) else { return [:] }
        var result: [PhotoDecision: Int] = [:]
        for (key, count) in counts {
            guard let reason = PhotoDecision(rawValue: key) else {
                throw StorageError(.read, path: db.path, reason: .unknownValue(column: "skipped", value: key))
            }
            result[reason] = count
        }
        return result
    }
}

extension JSONEncoder {
    static var sorted: JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys]
        return e
    }
}

struct SQLiteTrackRepository: TrackRepository {
    let db: Connection

    func all(root: RawPath) throws -> [TrackRecord] {
        try db.query("""
            SELECT path, size, mtime_ns, inode, format, points, first_at, last_at, read_run, seen_run
            FROM tracks WHERE root = ? ORDER BY path
            """, [SQLValue.blob(root.bytes)]) { s in
            TrackRecord(root: root, path: RawPath(bytes: s.blob(0)),
                        fingerprint: PhotoFingerprint(size: s.int64(1), modificationNanoseconds: s.int64(2),
                                                      inode: UInt64(bitPattern: s.int64(3))),
                        format: s.optionalString(4), points: s.int(5), first: s.optionalDouble(6), last: s.optionalDouble(7),
                        readRunID: s.isNull(8) ? nil : s.int64(8), seenRunID: s.isNull(9) ? nil : s.int64(9))
        }
    }

    func save(_ r: TrackRecord) throws {
        try db.run("""
            INSERT OR REPLACE INTO tracks (root, path, size, mtime_ns, inode, format, points, first_at, last_at, read_run, seen_run)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [SQLValue.blob(r.root.bytes), SQLValue.blob(r.path.bytes), r.fingerprint.size, r.fingerprint.modificationNanoseconds,
                  Int64(bitPattern: r.fingerprint.inode), r.format, r.points, r.first, r.last, r.readRunID, r.seenRunID])
    }
}
