import Foundation

/// The track formats read, how a file is recognised, and the one entry point that reads any of
/// them (the import's `--track`, the fuzzer).
public enum TrackFileFormat: String, Sendable, CaseIterable {
    case gpx = "GPX", kml = "KML", kmz = "KMZ", tcx = "TCX", nmea = "NMEA"
    case ownTracks = "OwnTracks", geoJSON = "GeoJSON", csv = "CSV"
    case googleRecords = "Google Records.json", googleSemantic = "Google Semantic Location History"
    case googlePhone = "Google Timeline export"
}

public enum TrackFiles {
    /// How many first bytes `sniff` looks at.
    public static let sniffBytes = 4096

    /// The format a file's name says, when it says one (`.json`, `.txt` and other names: nil).
    public static func format(name path: String) -> TrackFileFormat? {
        switch (path as NSString).pathExtension.lowercased() {
        case "gpx": return .gpx
        case "kml": return .kml
        case "kmz": return .kmz
        case "tcx": return .tcx
        case "nmea", "nma": return .nmea
        case "rec": return .ownTracks
        case "geojson": return .geoJSON
        case "csv": return .csv
        default: return nil
        }
    }

    /// The format of a file from its first bytes (nil: none read here). By content, so a track
    /// with another name (`track.txt`, `2024-05.json`, `log`) is still read.
    public static func sniff(_ head: [UInt8]) -> TrackFileFormat? {
        var i = 0
        if head.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
        if head.starts(with: [0x50, 0x4B, 0x03, 0x04]) { return .kmz }
        while i < head.count, head[i] == 0x20 || head[i] == 0x0A || head[i] == 0x0D || head[i] == 0x09 { i += 1 }
        guard i < head.count else { return nil }
        let text = String(decoding: head[i...], as: UTF8.self)
        switch head[i] {
        case 0x3C:  // <
            if text.contains("<gpx") { return .gpx }
            if text.contains("<kml") { return .kml }
            if text.contains("TrainingCenterDatabase") { return .tcx }
            return nil
        case 0x7B, 0x5B:  // { [
            if let google = GoogleTimeline.sniff(Array(head[i...])) {
                switch google {
                case .records: return .googleRecords
                case .semantic: return .googleSemantic
                case .phone: return .googlePhone
                }
            }
            return GeoJSONTrack.looksLike(text) ? .geoJSON : nil
        default:
            if OwnTracksTrack.looksLike(Array(head[i...])) { return .ownTracks }
            if CSVTrack.looksLike(Array(head[i...])) { return .csv }
            if text.contains("RMC,") || text.contains("GGA,") { return .nmea }
            return nil
        }
    }

    /// Reads a track file as `format`. Throws when the file cannot be read (whole, or from some
    /// byte on: the points before it have reached `sink`); what is unreadable inside it, record by
    /// record, is in `notes`.
    public static func read<Sink: TimelineSink>(path: String, format: TrackFileFormat, into sink: inout Sink, notes: inout TrackNotes) throws {
        if format == .kmz {
            let archive: ZipArchive
            do { archive = try ZipArchive(path: path) } catch let f as ZipArchive.Failure {
                throw FormatError(format: "KMZ", reason: "not a readable ZIP archive: \(f.reason)")
            }
            return try readKMZ(archive, into: &sink, notes: &notes)
        }
        try read(FileInput(path: path), format: format, into: &sink, notes: &notes)
    }

    /// The same for bytes in memory (tests, the fuzzer).
    public static func read<Sink: TimelineSink>(bytes: [UInt8], format: TrackFileFormat, into sink: inout Sink, notes: inout TrackNotes) throws {
        if format == .kmz {
            let archive: ZipArchive
            do { archive = try ZipArchive(bytes: bytes) } catch let f as ZipArchive.Failure {
                throw FormatError(format: "KMZ", reason: "not a readable ZIP archive: \(f.reason)")
            }
            return try readKMZ(archive, into: &sink, notes: &notes)
        }
        try read(MemoryInput(bytes), format: format, into: &sink, notes: &notes)
    }

    /// A KMZ (KML 2.2, OGC 07-147r2, annex C): a ZIP archive whose `doc.kml` (else its first
    /// `.kml`) is read as KML, inflated as it streams.
    static func readKMZ<Sink: TimelineSink>(_ archive: ZipArchive, into sink: inout Sink, notes: inout TrackNotes) throws {
        guard let entry = archive.kmlEntry else { throw FormatError(format: "KMZ", reason: "a ZIP archive without a .kml file (not a KMZ)") }
        do {
            try KMLTrack.read(try archive.contents(of: entry), into: &sink, notes: &notes)
        } catch let f as ZipArchive.Failure {
            throw FormatError(format: "KMZ", reason: "entry \(f.reason)")
        }
    }

    static func read<Sink: TimelineSink>(_ input: ByteInput, format: TrackFileFormat, into sink: inout Sink, notes: inout TrackNotes) throws {
        switch format {
        case .gpx: try GPXTrack.read(input, into: &sink, notes: &notes)
        case .kml: try KMLTrack.read(input, into: &sink, notes: &notes)
        case .kmz:
            // Reached only from a stream: a KMZ needs its central directory (the end of the file).
            throw FormatError(format: "KMZ", reason: "a KMZ is read from a file or from bytes")
        case .tcx: try TCXTrack.read(input, into: &sink, notes: &notes)
        case .nmea: try NMEATrack.read(input, into: &sink, notes: &notes)
        case .ownTracks: try OwnTracksTrack.read(input, into: &sink, notes: &notes)
        case .geoJSON: try GeoJSONTrack.read(input, into: &sink, notes: &notes)
        case .csv: try CSVTrack.read(input, into: &sink, notes: &notes)
        case .googleRecords: try GoogleTimeline.read(.records, input, into: &sink, notes: &notes)
        case .googleSemantic: try GoogleTimeline.read(.semantic, input, into: &sink, notes: &notes)
        case .googlePhone: try GoogleTimeline.read(.phone, input, into: &sink, notes: &notes)
        }
    }
}
