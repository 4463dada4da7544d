// Fuzz target: every track reader of `--track` (issue 29): GPX, KML, KMZ, TCX, NMEA, OwnTracks
// .rec, GeoJSON, CSV and Google's three location formats. The format is found from the bytes as
// `--track` finds it (TrackFiles.sniff) and read as that; then the first byte picks one reader
// to force (so a CSV reader sees JSON and the KMZ reader sees text), and the rest of the bytes
// are read as that format too.
@testable import PinFormats
@testable import PinGrammar

struct FuzzTrackSink: TimelineSink {
    var points = 0
    var visits = 0
    mutating func point(_ p: TrackPoint) {
        precondition(p.isValid, "a reader gave an invalid point")
        points += 1
    }
    mutating func visit(_ v: TimelineVisit) { visits += 1 }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTracks(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var sink = FuzzTrackSink()
    func read(_ input: [UInt8], as format: TrackFileFormat) {
        var notes = TrackNotes()
        do { try TrackFiles.read(bytes: input, format: format, into: &sink, notes: &notes) } catch {}
        _ = notes.summary
    }
    if let format = TrackFiles.sniff(Array(bytes.prefix(TrackFiles.sniffBytes))) { read(bytes, as: format) }
    if let first = bytes.first {
        let formats = TrackFileFormat.allCases
        read(Array(bytes.dropFirst()), as: formats[Int(first) % formats.count])
    }
    return sink.points < 0 ? 1 : 0
}
