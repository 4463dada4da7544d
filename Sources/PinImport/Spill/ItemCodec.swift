import Foundation
import PinCore
import PinMetadata
import PinStore

/// One `ImportItem` as bytes: its decision code first (so a filter reads one byte), then the
/// file, the metadata the import keeps, the error, the pin plan and the verdict.
enum ItemCodec {
    static let decisions = PhotoDecision.allCases
    private static let formats = FileKind.allCases
    private static let positionSources = PositionSource.allCases
    private static let timeSources = TimeSource.allCases

    static func encode(_ item: ImportItem, into w: inout ByteWriter) {
        w.u8(UInt8(decisions.firstIndex(of: item.decision)!))
        let e = item.entry
        w.data(e.relativePath.bytes)
        w.i64(e.size)
        w.i64(e.modificationNanoseconds)
        w.u64(e.inode)
        w.u64(e.device)
        if let k = item.keptMetadata {
            w.u8(1)
            w.u8(UInt8(formats.firstIndex(of: k.format)!))
            w.u8(k.positionSource.map { UInt8(positionSources.firstIndex(of: $0)! + 1) } ?? 0)
            w.u8(UInt8(timeSources.firstIndex(of: k.timeSource)!))
            w.u8(k.flags)
            w.optionalString(k.locationIssue)
            w.optionalString(k.otherDigest)
            w.optionalString(k.trackFile)
            if k.trackFile != nil { w.f64(k.secondsToTrackFix) }
            w.f64(k.latitude)
            w.f64(k.longitude)
            w.f64(k.takenAtSeconds)
            w.i64(Int64(k.offset))
            w.u64(k.digest)
        } else {
            w.u8(0)
        }
        w.optionalString(item.error)
        if let pin = item.pin {
            w.u8(1)
            withUnsafeBytes(of: pin.id.uuid) { w.bytes.append(contentsOf: $0) }
            w.optionalString(pin.country)
            w.string(pin.title)
            // The place id as text: the record has strings and floats, and an id is short.
            w.optionalString(pin.place.placeID.map(String.init))
            w.optionalString(pin.place.place)
            w.optionalString(pin.place.region)
            w.optionalString(pin.place.regionCode)
        } else {
            w.u8(0)
        }
        switch item.verdict {
        case nil: w.u8(0)
        case .accepted?: w.u8(1)
        case let .noLocation(reason)?:
            w.u8(2)
            w.string(reason)
        case let .interval(seconds, previous)?:
            w.u8(3)
            w.f64(seconds)
            w.string(previous)
        case let .distance(km, radians, pin, at)?:
            w.u8(4)
            w.f64(km)
            w.f64(radians)
            w.string(pin)
            w.f64(at.latitude)
            w.f64(at.longitude)
        case let .visits(km, radians, pin, at, id)?:
            w.u8(5)
            w.f64(km)
            w.f64(radians)
            w.string(pin)
            w.f64(at.latitude)
            w.f64(at.longitude)
            w.string(id.lowercasedText)
        }
    }

    static func decode(_ body: UnsafeRawBufferPointer) -> ImportItem {
        var r = ByteCursor(body)
        let decision = decisions[Int(r.u8())]
        let path = RawPath(bytes: r.data())
        let entry = FileEntry(relativePath: path, size: r.i64(), modificationNanoseconds: r.i64(), inode: r.u64(), device: r.u64())
        var kept: KeptMetadata?
        if r.u8() == 1 {
            let format = formats[Int(r.u8())]
            let source = Int(r.u8())
            var k = KeptMetadata(format: format, timeSource: timeSources[Int(r.u8())])
            k.positionSource = source == 0 ? nil : positionSources[source - 1]
            k.flags = r.u8()
            k.locationIssue = r.optionalString()
            k.otherDigest = r.optionalString()
            k.trackFile = r.optionalString()
            if k.trackFile != nil { k.secondsToTrackFix = r.f64() }
            k.latitude = r.f64()
            k.longitude = r.f64()
            k.takenAtSeconds = r.f64()
            k.offset = Int(r.i64())
            k.digest = r.u64()
            kept = k
        }
        let error = r.optionalString()
        var pin: PinPlan?
        if r.u8() == 1 {
            // The 16 bytes as they were written (not `UUID().uuid` overwritten: on Linux each
            // `UUID()` opens and reads /dev/urandom, once per pin per pass of a report).
            let id = body.loadUnaligned(fromByteOffset: r.at, as: uuid_t.self)
            r.at += 16
            let country = r.optionalString()
            let title = r.string()
            let placeID = r.optionalString().flatMap { Int($0) }
            let place = r.optionalString(), region = r.optionalString()
            pin = PinPlan(id: UUID(uuid: id), country: country, title: title,
                          place: PinPlace(placeID: placeID, place: place, region: region, regionCode: r.optionalString()))
        }
        var verdict: ImportRules.Verdict?
        switch r.u8() {
        case 1: verdict = .accepted
        case 2: verdict = .noLocation(reason: r.string())
        case 3:
            let seconds = r.f64()
            verdict = .interval(seconds: seconds, previous: r.string())
        case 4:
            let km = r.f64(), radians = r.f64(), pin = r.string()
            verdict = .distance(kilometres: km, radians: radians, pin: pin,
                                pinCoordinate: Coordinate(latitude: r.f64(), longitude: r.f64()))
        case 5:
            let km = r.f64(), radians = r.f64(), pin = r.string()
            let at = Coordinate(latitude: r.f64(), longitude: r.f64())
            // Written from a UUID by `encode`: always one.
            verdict = .visits(kilometres: km, radians: radians, pin: pin, pinCoordinate: at, pinID: UUID(uuidString: r.string())!)
        default: verdict = nil
        }
        return ImportItem(entry: entry, kept: kept, error: error, pin: pin, decision: decision, verdict: verdict)
    }
}

/// The items of a run sorted into report order without holding them: the photos the rules
/// decide by capture instant then path (the rules' order), then the rest (unreadable files, not
/// media) by path. Items are kept in memory `runLength` at a time; each full batch is sorted and
/// written to a scratch file as a run, and the runs are merged as they are read back (at most
/// `fanIn` at once, each through a 32 KiB buffer; more runs are first merged into longer ones).
/// Memory stays the same at 100,000 and 1,000,000 files.
struct ItemSorter {
    /// Whether the rules decide this item (else it goes after them, by path).
    let isCandidate: (ImportItem) -> Bool
    let runLength: Int
    let fanIn: Int
    private var batch: [ImportItem] = []
    /// For each of `batch`: its sort key and index (sorted instead of the items themselves).
    private var keys: [(candidate: Bool, instant: Double, index: Int32)] = []
    private var file: ScratchFile?
    private var runs: [(start: Int64, end: Int64)] = []

    init(runLength: Int = 16384, fanIn: Int = 64, isCandidate: @escaping (ImportItem) -> Bool) {
        self.runLength = max(1, runLength)
        self.fanIn = max(2, fanIn)
        self.isCandidate = isCandidate
    }

    mutating func add(_ item: consuming ImportItem) throws {
        let candidate = isCandidate(item)
        keys.append((candidate, candidate ? item.takenAt.timeIntervalSince1970 : 0, Int32(batch.count)))
        batch.append(item)
        if batch.count >= runLength { try spill() }
    }

    /// Sorts the keys of the batch into report order.
    private mutating func sortKeys() {
        let batch = self.batch
        keys.sort { a, b in
            if a.candidate != b.candidate { return a.candidate }
            if a.candidate, a.instant != b.instant { return a.instant < b.instant }
            return batch[Int(a.index)].entry.relativePath < batch[Int(b.index)].entry.relativePath
        }
    }

    private mutating func spill() throws {
        guard !batch.isEmpty else { return }
        if file == nil { file = try ScratchFile(failure: ImportError.storage) }
        let start = file!.end
        sortKeys()
        // Through a buffer pointer: each item is encoded where it is, not copied out first.
        try batch.withUnsafeBufferPointer { batch in
            for key in keys { try file!.appendRecord { ItemCodec.encode(batch[Int(key.index)], into: &$0) } }
        }
        runs.append((start, file!.end))
        self.batch.removeAll(keepingCapacity: true)
        keys.removeAll(keepingCapacity: true)
    }

    /// The items in report order, each with whether it is a candidate.
    mutating func sorted() throws -> Merge {
        guard file != nil else {
            sortKeys()
            let batch = self.batch
            let sorted = keys.map { ($0.candidate, $0.instant, batch[Int($0.index)]) }
            self.batch = []
            keys = []
            return Merge(memory: sorted, file: nil, runs: [], isCandidate: isCandidate)
        }
        try spill()
        batch = []
        keys = []
        // Longer runs until at most fanIn remain: each pass reads and writes every item once.
        while runs.count > fanIn {
            var longer: [(start: Int64, end: Int64)] = []
            for group in stride(from: 0, to: runs.count, by: fanIn) {
                let part = Array(runs[group..<min(runs.count, group + fanIn)])
                try file!.flush()
                var merge = Merge(memory: [], file: file, runs: part, isCandidate: isCandidate)
                let start = file!.end
                while let entry = merge.nextEntry() { try file!.appendRecord { ItemCodec.encode(entry.item, into: &$0) } }
                longer.append((start, file!.end))
            }
            runs = longer
        }
        try file!.flush()
        defer { runs = [] }
        return Merge(memory: [], file: file, runs: runs, isCandidate: isCandidate)
    }

    /// The k-way merge of sorted runs (or one sorted batch in memory).
    struct Merge: Sequence, IteratorProtocol {
        private var memory: [(candidate: Bool, instant: Double, item: ImportItem)]
        private var memoryAt = 0
        private var readers: [RecordReader] = []
        /// Each run's next item and its sort key (apart, so that comparing two heads copies
        /// neither item).
        private var heads: [ImportItem?] = []
        private var keys: [(candidate: Bool, instant: Double)] = []
        /// Run indices ordered as a binary min-heap of their heads.
        private var heap: [Int] = []
        private let isCandidate: (ImportItem) -> Bool

        init(memory: [(candidate: Bool, instant: Double, item: ImportItem)], file: ScratchFile?,
             runs: [(start: Int64, end: Int64)], isCandidate: @escaping (ImportItem) -> Bool) {
            self.memory = memory
            self.isCandidate = isCandidate
            guard let file else { return }
            for run in runs {
                readers.append(RecordReader(file, from: run.start, to: run.end))
                heads.append(nil)
                keys.append((false, 0))
                if advance(readers.count - 1) { push(readers.count - 1) }
            }
        }

        /// Reads run `run`'s next item into its head; false at the run's end.
        private mutating func advance(_ run: Int) -> Bool {
            guard let item = readers[run].next(ItemCodec.decode) else {
                heads[run] = nil
                return false
            }
            let candidate = isCandidate(item)
            keys[run] = (candidate, candidate ? item.takenAt.timeIntervalSince1970 : 0)
            heads[run] = item
            return true
        }

        /// Report order: candidates first, by (instant, path bytes); then the rest by path bytes.
        private func less(_ i: Int, _ j: Int) -> Bool {
            let a = heap[i], b = heap[j]
            let ka = keys[a], kb = keys[b]
            if ka.candidate != kb.candidate { return ka.candidate }
            if ka.candidate, ka.instant != kb.instant { return ka.instant < kb.instant }
            return heads[a]!.entry.relativePath < heads[b]!.entry.relativePath
        }

        private mutating func push(_ run: Int) {
            heap.append(run)
            var k = heap.count - 1
            while k > 0, less(k, (k - 1) / 2) {
                heap.swapAt(k, (k - 1) / 2)
                k = (k - 1) / 2
            }
        }

        private mutating func siftDown() {
            var k = 0
            while true {
                let l = 2 * k + 1, r = l + 1
                var m = k
                if l < heap.count, less(l, m) { m = l }
                if r < heap.count, less(r, m) { m = r }
                if m == k { return }
                heap.swapAt(k, m)
                k = m
            }
        }

        mutating func nextEntry() -> (candidate: Bool, instant: Double, item: ImportItem)? {
            if readers.isEmpty {
                guard memoryAt < memory.count else {
                    memory = []
                    return nil
                }
                defer { memoryAt += 1 }
                return memory[memoryAt]
            }
            guard let run = heap.first else { return nil }
            // The head is moved out, not copied.
            let item = heads[run].take()!
            let key = keys[run]
            if !advance(run) {
                heap[0] = heap[heap.count - 1]
                heap.removeLast()
            }
            if !heap.isEmpty { siftDown() }
            return (key.candidate, key.instant, item)
        }

        mutating func next() -> (candidate: Bool, item: ImportItem)? {
            nextEntry().map { ($0.candidate, $0.item) }
        }
    }
}
