// Fuzz target `windows` (issue 40: "window refills inside tokens"): the CSV, JSON, XML and line
// readers, every track reader of `--track` and every place-file reader of import-places, each
// read twice: with the default read window (64 KiB to 1 MiB) and with a window of 1 to 64 bytes
// (`ReadWindow.bytes`), so a refill falls inside every number, string, quoted field, XML name and
// line even of a short input. The two readings must give the same records, points and errors
// (the transcript below); a difference is a refill bug, reported as a crash with both.
//
// Input layout: byte 0 picks the small window ((b & 63) + 1 bytes) and, for the bare readers,
// how many bytes each read(2)-like call gives (b >> 6: all, 1, 7 or 64, as a pipe gives short
// reads); byte 1 the reader (`windowsReading`); the rest is the file.
import Foundation
@testable import PinFormats
@testable import PinGrammar

/// Everything the readers gave for one input: compared with ==, so an execution costs the
/// readings, not their text (String(describing:) of every record made the target ~100 times
/// slower). Text only to print a difference.
struct WindowsReading: Equatable {
    var csv: [[CSVReader.Record]] = []
    var json: [JSONItem] = []
    var xml: [XMLItem] = []
    var lines: [Line] = []
    var tracks: [TrackReading] = []
    var places: [[PlaceReadEvent]] = []
    /// Each reader's error, in order ("" for none).
    var errors: [String] = []

    struct JSONItem: Equatable { var token: JSONToken; var offset: Int64; var depth: Int; var text: String?; var bytes: [UInt8]; var number: [Int64?] }
    struct XMLItem: Equatable { var event: XMLEvent; var name: String; var depth: Int; var attributes: [XMLAttribute]; var text: String }
    struct Line: Equatable { var offset: Int64; var bytes: [UInt8] }
    struct TrackReading: Equatable { var points: [TrackPoint] = []; var visits: [TimelineVisit] = []; var notes = TrackNotes() }

    mutating func failed(_ body: () throws -> Void) {
        do { try body(); errors.append("") } catch { errors.append(String(describing: error)) }
    }
}

/// The readers, one per input (picked by its second byte): two CSV (`,` and `;`), JSON, XML,
/// lines, every track format, every place-file kind. One reader per execution, not all 26:
/// each is then fuzzed ~13 times as often for the same CPU.
let windowsReaders = 5 + TrackFileFormat.allCases.count + PlaceFileKind.allCases.count

/// Every record, point, visit, note and error of `bytes` through reader `reader`.
func windowsReading(_ bytes: [UInt8], chunk: Int, reader: Int) -> WindowsReading {
    var out = WindowsReading()
    switch reader {
    case 0, 1:
        var csv = CSVReader(MemoryInput(bytes, chunk: chunk), delimiter: reader == 0 ? UInt8(ascii: ",") : UInt8(ascii: ";"))
        var records: [CSVReader.Record] = []
        out.failed { while let r = try csv.nextRecord() { records.append(r) } }
        out.csv.append(records)
    case 2: readJSON(bytes, chunk: chunk, into: &out)
    case 3: readXML(bytes, chunk: chunk, into: &out)
    case 4:
        let lines = LineReader(input: MemoryInput(bytes, chunk: chunk))
        var found: [WindowsReading.Line] = []
        out.failed { while try lines.next({ found.append(.init(offset: lines.offset, bytes: Array($0))) }) {} }
        out.lines = found
    case 5 ..< 5 + TrackFileFormat.allCases.count:
        // Whole bytes through TrackFiles.read(bytes:), so `chunk` does not apply (nor to places).
        var sink = WindowsTrackSink()
        var notes = TrackNotes()
        out.failed { try TrackFiles.read(bytes: bytes, format: TrackFileFormat.allCases[reader - 5], into: &sink, notes: &notes) }
        sink.reading.notes = notes
        out.tracks.append(sink.reading)
    default:
        let kind = PlaceFileKind.allCases[reader - 5 - TrackFileFormat.allCases.count]
        var events: [PlaceReadEvent] = []
        out.failed { try PlaceFiles.read(bytes: bytes, kind: kind) { events.append($0) } }
        out.places.append(events)
    }
    return out
}

func readJSON(_ bytes: [UInt8], chunk: Int, into out: inout WindowsReading) {
    let reader = JSONReader(input: MemoryInput(bytes, chunk: chunk))
    var items: [WindowsReading.JSONItem] = []
    out.failed {
        while let token = try reader.next() {
            var item = WindowsReading.JSONItem(token: token, offset: reader.tokenOffset, depth: reader.depth, text: nil, bytes: [], number: [])
            switch token {
            case .key, .string: item.text = reader.string
            case .number: item.bytes = reader.withBytes { Array($0) }; item.number = [reader.double.map { Int64(bitPattern: $0.bitPattern) }, reader.int64]
            default: break
            }
            items.append(item)
        }
    }
    out.json = items
}

func readXML(_ bytes: [UInt8], chunk: Int, into out: inout WindowsReading) {
    let parser = XMLPullParser(input: MemoryInput(bytes, chunk: chunk))
    var items: [WindowsReading.XMLItem] = []
    out.failed {
        while let event = try parser.next() {
            // One run of text may come as several events (around comments, CDATA sections, and
            // where a refill falls): compared whole.
            if event == .text, let last = items.last, last.event == .text {
                items[items.count - 1].text += parser.text
                continue
            }
            items.append(.init(event: event, name: event == .text ? "" : parser.name, depth: parser.depth,
                               attributes: event == .startElement ? parser.attributes : [], text: event == .text ? parser.text : ""))
        }
    }
    out.xml = items
}

struct WindowsTrackSink: TimelineSink {
    var reading = WindowsReading.TrackReading()
    mutating func point(_ p: TrackPoint) {
        precondition(p.isValid, "a reader gave an invalid point")
        reading.points.append(p)
    }
    mutating func visit(_ v: TimelineVisit) { reading.visits.append(v) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWindows(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 1 else { return 0 }
    let first = Int(data[0])
    let reader = Int(data[1]) % windowsReaders
    let bytes = Array(UnsafeBufferPointer(start: data + 2, count: size - 2))
    let window = (first & 63) + 1
    let chunk = [Int.max, 1, 7, 64][first >> 6]
    let whole = windowsReading(bytes, chunk: .max, reader: reader)
    let small = ReadWindow.$bytes.withValue(window) { windowsReading(bytes, chunk: chunk, reader: reader) }
    // == first (cheap); a NaN in a visit is not == itself, so the text decides.
    if whole != small, String(describing: whole) != String(describing: small) {
        for (label, a, b) in [("csv", "\(whole.csv)", "\(small.csv)"), ("json", "\(whole.json)", "\(small.json)"),
                              ("xml", "\(whole.xml)", "\(small.xml)"), ("lines", "\(whole.lines)", "\(small.lines)"),
                              ("tracks", "\(whole.tracks)", "\(small.tracks)"), ("places", "\(whole.places)", "\(small.places)"),
                              ("errors", "\(whole.errors)", "\(small.errors)")] where a != b {
            print("windows: reader \(reader), \(label), default window: \(a.prefix(3000))\nwindows: \(label), \(window)-byte window, reads of \(chunk): \(b.prefix(3000))")
        }
        fatalError("a \(window)-byte read window read the input differently from the default one")
    }
    return 0
}
