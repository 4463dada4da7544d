import Foundation
import PinCore
import PinStore

/// What `import-places` would otherwise hold per record, kept on disk: the timeline visits
/// waiting to be decided in time order, the keys of the records seen, and every record's outcome
/// in report order. One private SQLite scratch database (`ScratchSpool`, in PinStore): SQLite
/// makes its file only when the pages outgrow the cache (a few hundred records never touch the
/// disk) and unlinks it at once, so an import killed at any point leaves nothing behind. Sorting
/// the visits is SQLite's (ORDER BY, its external merge sort within the same cache): the import
/// of a 1 GB timeline holds no more than that of a 100 MB one (`scripts/bench-timeline`).
final class PlacesSpool: @unchecked Sendable {
    // One thread uses it: the import's, then the report writers'.
    let store: ScratchSpool
    /// The files of the import, in order (a stored record names its file by index).
    let files: [(path: String, kind: PlaceFileKind)]
    private(set) var tally = PlaceItems.Tally()

    /// SQLite's page cache for the scratch database (KiB).
    static let cacheKiB = 8 << 10

    init(files: [(path: String, kind: PlaceFileKind)]) throws {
        self.files = files
        store = try ScratchSpool(cacheKiB: Self.cacheKiB)
    }

    /// Keeps a visit until `visitsInTimeOrder`.
    func add(visit: PlacesImport.Pending) throws {
        var w = ByteWriter()
        w.u64(UInt64(visit.fileIndex))
        PlaceRecordCodec.encode(visit.record, into: &w)
        // NaN sorts nowhere: last, with the visits without a time.
        try store.addSorted(seq: visit.sequence, key: visit.instant, body: w.bytes)
    }

    /// The visits by start time, then file order, `size` at a time, to `body`.
    func visitsInTimeOrder(_ size: Int, _ body: ([PlacesImport.Pending]) throws -> Void) throws {
        var batch: [PlacesImport.Pending] = []
        try store.sorted { sequence, instant, raw in
            var r = ByteCursor(raw)
            let fileIndex = Int(r.u64())
            batch.append(PlacesImport.Pending(fileIndex: fileIndex, record: PlaceRecordCodec.decode(&r), sequence: sequence,
                                              instant: instant))
            if batch.count >= size {
                try body(batch)
                batch.removeAll(keepingCapacity: true)
            }
        }
        if !batch.isEmpty { try body(batch) }
    }

    /// True the first time `key` is given in this import.
    func firstSeen(_ key: String) throws -> Bool {
        try store.insertKey(key)
    }

    /// Keeps a record's outcome (in any order: they are read back by `sequence`).
    func add(_ item: PlaceItem) throws {
        var w = ByteWriter()
        PlaceItemCodec.encode(item, into: &w)
        try store.addLogged(seq: item.sequence, category: PlaceItems.decisions.firstIndex(of: item.decision)!, body: w.bytes)
        tally.add(item.decision, wanted: item.wanted)
    }

    /// The outcomes so far, in report order.
    var items: PlaceItems { PlaceItems(spool: self, tally: tally, only: nil) }
}

/// The records of an import in report order (files in order, records in file order), read from
/// its scratch database as a sequence, as many times as the writers need, never held.
public struct PlaceItems: Sequence, Sendable {
    static let decisions = PlaceDecision.allCases
    let spool: PlacesSpool?
    let tally: Tally
    /// Decision codes to read; nil reads all.
    let only: [Int]?

    /// Counts, kept as the outcomes were written.
    struct Tally: Sendable, Equatable {
        private var perDecision = [Int](repeating: 0, count: PlaceItems.decisions.count)
        private(set) var total = 0
        /// The created items whose pin is wanted.
        private(set) var wantedCreated = 0
        func count(_ decision: PlaceDecision) -> Int { perDecision[PlaceItems.decisions.firstIndex(of: decision)!] }
        mutating func add(_ decision: PlaceDecision, wanted: Bool) {
            perDecision[PlaceItems.decisions.firstIndex(of: decision)!] += 1
            total += 1
            if wanted, decision == .created { wantedCreated += 1 }
        }
    }

    /// None.
    init() {
        spool = nil
        tally = Tally()
        only = nil
    }

    init(spool: PlacesSpool, tally: Tally, only: [Int]?) {
        self.spool = spool
        self.tally = tally
        self.only = only
    }

    /// The records with one of `decisions`, in the same order.
    func only(_ decisions: [PlaceDecision]) -> PlaceItems {
        guard let spool else { return self }
        return PlaceItems(spool: spool, tally: tally, only: decisions.map { Self.decisions.firstIndex(of: $0)! })
    }

    var count: Int { only.map { $0.reduce(0) { $0 + tally.count(Self.decisions[$1]) } } ?? tally.total }
    var isEmpty: Bool { count == 0 }

    public func makeIterator() -> Iterator { Iterator(self) }

    public struct Iterator: IteratorProtocol {
        private let spool: PlacesSpool?
        private let cursor: ScratchSpool.Cursor?

        init(_ items: PlaceItems) {
            spool = items.spool
            guard let spool = items.spool else {
                cursor = nil
                return
            }
            cursor = Self.orEnd { try spool.store.logged(categories: items.only) }
        }

        public mutating func next() -> PlaceItem? {
            guard let spool, let cursor else { return nil }
            return Self.orEnd {
                try cursor.next { raw in
                    var r = ByteCursor(raw)
                    return PlaceItemCodec.decode(&r, files: spool.files)
                }
            }
        }

        /// The import's own scratch database, written moments ago: failing to read it back is the
        /// system's failure (an I/O error in TMPDIR), as for `ScratchFile`: the items end there,
        /// and the caller throws it once the report is written (`ScratchFile.checkReadBack`).
        private static func orEnd<T>(_ body: () throws -> T?) -> T? {
            do {
                return try body()
            } catch {
                ScratchFile.failReadBack(ScratchFailure("cannot read back the import's scratch database: \(error)"))
                return nil
            }
        }
    }
}

// MARK: codecs

extension ByteWriter {
    mutating func optionalF64(_ v: Double?) {
        u8(v == nil ? 0 : 1)
        if let v { f64(v) }
    }
    mutating func coordinate(_ c: Coordinate?) {
        u8(c == nil ? 0 : 1)
        if let c {
            f64(c.latitude)
            f64(c.longitude)
        }
    }
    /// Exactly the `Date` (its own Double, not one since 1970: a record's digest prints it).
    mutating func date(_ d: Date) { f64(d.timeIntervalSinceReferenceDate) }
    mutating func strings(_ v: [String]) {
        u64(UInt64(v.count))
        for s in v { string(s) }
    }
    /// A visit: its type's place in the registry, then each field's value by its kind.
    mutating func visit(_ v: VisitValues) {
        u8(UInt8(LocationTypeSelection.allCases.firstIndex(of: v.type)!))
        for (field, value) in v.fields {
            switch field.kind {
            case .text: optionalString(value?.text)
            case .number: optionalF64(value?.number)
            }
        }
    }
}

extension ByteCursor {
    mutating func optionalF64() -> Double? { u8() == 0 ? nil : f64() }
    mutating func coordinate() -> Coordinate? {
        guard u8() == 1 else { return nil }
        let latitude = f64()
        return Coordinate(latitude: latitude, longitude: f64())
    }
    mutating func date() -> Date { Date(timeIntervalSinceReferenceDate: f64()) }
    mutating func strings() -> [String] { (0..<Int(u64())).map { _ in string() } }
    mutating func visit() -> VisitValues {
        let type = LocationTypeSelection.allCases[Int(u8())]
        let values = type.visitFields.map { field -> VisitValue? in
            switch field.kind {
            case .text: optionalString().map(VisitValue.text)
            case .number: optionalF64().map(VisitValue.number)
            }
        }
        return VisitValues(type: type, values: values)
    }
}

/// A `PlaceRecord` as bytes, every field as read (decoded, it is equal to the record).
enum PlaceRecordCodec {
    static func encode(_ record: PlaceRecord, into w: inout ByteWriter) {
        w.string(record.position)
        w.optionalString(record.ownID)
        w.optionalString(record.title)
        w.coordinate(record.coordinate)
        w.optionalString(record.locationIssue)
        switch record.date {
        case nil: w.u8(0)
        case let .withOffset(d, offset)?:
            w.u8(1)
            w.date(d)
            w.i64(Int64(offset))
        case let .unknownOffset(d)?:
            w.u8(2)
            w.date(d)
        case let .utc(d)?:
            w.u8(3)
            w.date(d)
        case let .wallClock(text)?:
            w.u8(4)
            w.string(text)
        }
        w.optionalString(record.note)
        w.u8(record.tags == nil ? 0 : 1)
        if let tags = record.tags { w.strings(tags) }
        w.optionalString(record.color)
        w.visit(record.type)
        w.u8(record.visitCount == nil ? 0 : 1)
        if let count = record.visitCount { w.i64(Int64(count)) }
        w.strings(record.photoIDs)
        w.u8(record.edited ? 1 : 0)
        w.optionalString(record.textNote)
        w.u8(record.wanted ? 1 : 0)
    }

    static func decode(_ r: inout ByteCursor) -> PlaceRecord {
        var record = PlaceRecord(position: r.string())
        record.ownID = r.optionalString()
        record.title = r.optionalString()
        record.coordinate = r.coordinate()
        record.locationIssue = r.optionalString()
        switch r.u8() {
        case 1:
            let d = r.date()
            record.date = .withOffset(d, Int(r.i64()))
        case 2: record.date = .unknownOffset(r.date())
        case 3: record.date = .utc(r.date())
        case 4: record.date = .wallClock(r.string())
        default: record.date = nil
        }
        record.note = r.optionalString()
        record.tags = r.u8() == 1 ? r.strings() : nil
        record.color = r.optionalString()
        record.type = r.visit()
        record.visitCount = r.u8() == 1 ? Int(r.i64()) : nil
        record.photoIDs = r.strings()
        record.edited = r.u8() == 1
        record.textNote = r.optionalString()
        record.wanted = r.u8() == 1
        return record
    }
}

/// A `PlaceItem` as bytes; its file by index in the import's files.
enum PlaceItemCodec {
    static func encode(_ item: PlaceItem, into w: inout ByteWriter) {
        w.u64(UInt64(item.fileIndex))
        w.u64(UInt64(item.sequence))
        w.string(item.position)
        w.u8(UInt8(PlaceItems.decisions.firstIndex(of: item.decision)!))
        w.optionalString(item.detail)
        w.optionalString(item.title)
        w.coordinate(item.coordinate)
        w.optionalString(item.date)
        w.optionalString(item.country)
        w.u8(item.pinID == nil ? 0 : 1)
        if let id = item.pinID { withUnsafeBytes(of: id.uuid) { w.bytes.append(contentsOf: $0) } }
        w.u8(item.wanted ? 1 : 0)
    }

    static func decode(_ r: inout ByteCursor, files: [(path: String, kind: PlaceFileKind)]) -> PlaceItem {
        let fileIndex = Int(r.u64()), sequence = Int(r.u64())
        let position = r.string()
        var item = PlaceItem(file: files[fileIndex].path, kind: files[fileIndex].kind, position: position,
                             decision: PlaceItems.decisions[Int(r.u8())])
        item.fileIndex = fileIndex
        item.sequence = sequence
        item.detail = r.optionalString()
        item.title = r.optionalString()
        item.coordinate = r.coordinate()
        item.date = r.optionalString()
        item.country = r.optionalString()
        if r.u8() == 1 {
            item.pinID = UUID(uuid: r.base.loadUnaligned(fromByteOffset: r.at, as: uuid_t.self))
            r.at += 16
        }
        item.wanted = r.u8() == 1
        return item
    }
}
