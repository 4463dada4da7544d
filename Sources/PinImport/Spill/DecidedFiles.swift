import Foundation
import PinCore
import PinMetadata
import PinStore

/// The files of a run in report order, kept on disk (`ScratchFile`) as compact records, not in
/// memory: a first import of 1,000,000 photos holds none of them at once. Read as a sequence,
/// as many times as the writers need (the text report goes over the pins twice: widths, then
/// rows); the counts the reports print are kept as the records are written.
public struct DecidedFiles: Sequence, Sendable {
    private let file: ScratchFile?
    private let start: Int64, end: Int64
    /// Counts, kept as the records were written.
    private(set) var tally = Tally()

    struct Tally: Sendable, Equatable {
        /// Files per decision (the decisions counted at least once).
        var byDecision: [PhotoDecision: Int] {
            var counts: [PhotoDecision: Int] = [:]
            for (decision, count) in zip(ItemCodec.decisions, perDecision) where count > 0 { counts[decision] = count }
            return counts
        }
        /// Files with `decision`.
        func count(of decision: PhotoDecision) -> Int {
            perDecision[ItemCodec.decisions.firstIndex(of: decision)!]
        }
        /// The same by the decision's place in `ItemCodec.decisions`: counted per record written,
        /// so without hashing a decision each time.
        private var perDecision = [Int](repeating: 0, count: ItemCodec.decisions.count)
        /// Photos with a position, whatever their decision.
        var withLocation = 0
        /// `.notMedia` files that are neither a sidecar nor a video left out (see
        /// `ImportReport.notMedia`).
        var notMedia = 0
        var total = 0
        /// For the text report, kept as the accepted photos are written, so that it goes over
        /// them once (the rows), not three times (countries, widths, rows): pins per country
        /// code, pins at sea, and the widths of the pin table's columns but the last
        /// (`ImportReportText.pinCells`).
        var pinCountries: [String: Int] = [:]
        var pinsAtSea = 0
        var pinTableWidths: [Int] = []
        /// Photos skipped earlier for "no location" decided again for new or changed tracks,
        /// and those of them accepted.
        var retriedForTracks = 0
        var retriedAccepted = 0
        /// Photos with a position decided by the rules whose only time is the file's (issue 36
        /// item 2): left out of the interval rule, which the reports say.
        var datedByFile = 0
        /// Where the save stage will make its pins, in the order it makes them
        /// (`ImportItem.pinCoordinate`): a photo saved before its pin is made is linked to it
        /// when it is (`NearestPins`).
        var pinCoordinates: [Coordinate] = []

        mutating func count(_ item: ImportItem) {
            total += 1
            perDecision[ItemCodec.decisions.firstIndex(of: item.decision)!] += 1
            if item.coordinate != nil {
                withLocation += 1
                if item.isMedia, item.decision != .notMedia, item.decision != .unreadable, item.datedByFile { datedByFile += 1 }
            }
            if item.isRetriedForTracks {
                retriedForTracks += 1
                if item.decision == .accepted { retriedAccepted += 1 }
            }
            if item.decision == .notMedia && !item.isMedia
                && !Sidecars.isSidecarName(item.entry.relativePath.lastComponent) { notMedia += 1 }
            if let coordinate = item.pinCoordinate { pinCoordinates.append(coordinate) }
            if item.decision == .accepted {
                if let country = item.country { pinCountries[country, default: 0] += 1 } else { pinsAtSea += 1 }
                if let cells = ImportReportText.pinCells(item) {
                    if pinTableWidths.isEmpty { pinTableWidths = Array(repeating: 0, count: cells.count - 1) }
                    for c in pinTableWidths.indices { pinTableWidths[c] = Swift.max(pinTableWidths[c], ImportReportText.columns(cells[c])) }
                }
            }
        }
    }

    /// No file.
    init() {
        file = nil
        start = 0
        end = 0
    }

    /// `items`, in this order (tests, and runs small enough to say so).
    init(_ items: [ImportItem]) throws {
        var writer = Writer()
        for item in items { try writer.append(item) }
        self = try writer.finish()
    }

    private init(file: ScratchFile, start: Int64, end: Int64, tally: Tally) {
        self.file = file
        self.start = start
        self.end = end
        self.tally = tally
    }

    public var count: Int { tally.total }
    public var isEmpty: Bool { tally.total == 0 }
    public var first: ImportItem? {
        var files = makeIterator()
        return files.next()
    }

    public func makeIterator() -> Iterator { Iterator(self, only: nil) }

    /// The files with one of `decisions`, in report order; the others are skipped without being
    /// decoded.
    public func only(_ decisions: Set<PhotoDecision>) -> Filtered { Filtered(files: self, decisions: decisions) }

    public struct Filtered: Sequence, Sendable {
        let files: DecidedFiles
        let decisions: Set<PhotoDecision>
        public func makeIterator() -> Iterator { Iterator(files, only: decisions) }
        public var count: Int { decisions.reduce(0) { $0 + files.tally.count(of: $1) } }
        public var isEmpty: Bool { count == 0 }
    }

    public struct Iterator: IteratorProtocol {
        private var reader: RecordReader?
        /// Decision codes to keep; nil keeps all.
        private let keep: [Bool]?

        init(_ files: DecidedFiles, only decisions: Set<PhotoDecision>?) {
            reader = files.file.map { RecordReader($0, from: files.start, to: files.end) }
            keep = decisions.map { set in ItemCodec.decisions.map { set.contains($0) } }
        }

        public mutating func next() -> ImportItem? {
            guard reader != nil else { return nil }
            while true {
                let keep = self.keep
                guard let item = reader!.next({ body -> ImportItem? in
                    if let keep, !keep[Int(body[0])] { return nil }
                    return ItemCodec.decode(body)
                }) else { return nil }
                if let item { return item }
            }
        }
    }

    /// Appends items in report order, then `finish`es. The scratch file is made at the first
    /// item: a night with nothing to decide makes none.
    struct Writer {
        private var file: ScratchFile?
        var tally = Tally()

        init() {}

        mutating func append(_ item: ImportItem) throws {
            if file == nil { file = try ScratchFile(failure: ImportError.storage) }
            try file!.appendRecord { ItemCodec.encode(item, into: &$0) }
            tally.count(item)
        }

        func finish() throws -> DecidedFiles {
            guard let file else { return DecidedFiles() }
            try file.flush()
            return DecidedFiles(file: file, start: 0, end: file.end, tally: tally)
        }
    }
}
