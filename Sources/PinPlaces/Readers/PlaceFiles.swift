import Foundation
import PinCore
import PinFormats

/// Finds what a place file is and reads its records.
public enum PlaceFiles {
    /// How many bytes the kind is told from.
    static let sniffBytes = 64 * 1024

    /// Nil when bytes starting with `head` are a place file pins reads; else why not, in the
    /// words `pins import-places` uses (`shown`: the file's name in messages; `path`: where
    /// `import --track` would read it). Also what `pins serve` answers to an upload before
    /// anything runs (and what its fuzz target checks).
    public static func refusal(_ shown: String, path: String, head: [UInt8]) -> String? {
        kind(ofHead: Array(head.prefix(sniffBytes))) != nil ? nil : notPlaceFile(shown, path: path, head: head)
    }

    /// Why bytes starting with `head` are refused (`refusal`'s words).
    static func notPlaceFile(_ shown: String, path: String, head: [UInt8]) -> String {
        // A track (Records.json, an OwnTracks log...) is read by `import --track`: say so.
        if let track = TrackFiles.sniff(head) {
            return "\(shown): a track (\(track.rawValue)), not a place file: its fixes give positions to photos "
                + "with 'pins import PHOTOS --track \(path)' (or see them with 'pins inspect PHOTOS --track'); nothing was imported"
        }
        return "\(shown): not a place file pins reads (\(head.isEmpty ? "empty" : "unknown content")); "
            + "it reads \(PlaceFileKind.readableDescription); nothing was imported"
    }

    /// The kind of a file from its first bytes, or nil when it is none pins reads.
    static func kind(ofHead head: [UInt8]) -> PlaceFileKind? {
        if head.starts(with: [0x50, 0x4B, 0x03, 0x04]) || head.starts(with: [0x50, 0x4B, 0x05, 0x06]) { return .kmz }
        var i = 0
        if head.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
        while i < head.count, [0x20, 0x09, 0x0A, 0x0D].contains(head[i]) { i += 1 }
        guard i < head.count else { return nil }
        let text = String(decoding: head[i...], as: UTF8.self)
        switch head[i] {
        case UInt8(ascii: "<"):
            switch rootElement(text) {
            case "kml": return .kml
            case "gpx": return .gpx
            default: return nil
            }
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            // The first key that names a structure decides (Google writes its arrays first).
            let marks: [(String, PlaceFileKind)] = [
                ("\"timelineObjects\"", .semanticHistory), ("\"semanticSegments\"", .timeline),
                ("\"features\"", .geojson), ("\"FeatureCollection\"", .geojson),
            ]
            let found = marks.compactMap { mark, kind in text.range(of: mark).map { ($0.lowerBound, kind) } }
                .min { $0.0 < $1.0 }
            if let kind = found?.1 {
                if kind == .geojson, text.contains("\"Google Maps URL\"") || text.contains("\"google_maps_url\"") { return .savedPlaces }
                return kind
            }
            // The phone's older export: a top-level array of segments with "visit" objects.
            if head[i] == UInt8(ascii: "["), text.contains("\"startTime\""), text.contains("\"visit\"") || text.contains("\"activity\"") || text.contains("\"timelinePath\"") {
                return .timeline
            }
            return nil
        default:
            return PlacesCSV.looksLikePlaces(Array(head[i...])) ? .csv : nil
        }
    }

    /// The name of the first element of an XML document (prefix dropped, lowercased): past the
    /// declaration, comments, processing instructions and a DOCTYPE.
    static func rootElement(_ text: String) -> String? {
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "<") {
            rest = rest[rest.index(after: open)...]
            if rest.hasPrefix("?") || rest.hasPrefix("!") {
                let close = rest.hasPrefix("!--") ? rest.range(of: "-->")?.upperBound : rest.firstIndex(of: ">").map { rest.index(after: $0) }
                guard let close else { return nil }
                rest = rest[close...]
                continue
            }
            let name = rest.prefix { !" \t\r\n/>".contains($0) }
            return String(name.split(separator: ":").last ?? name).lowercased()
        }
        return nil
    }

    /// The first `sniffBytes` of a file (fewer when it is shorter).
    static func head(of path: String) throws -> [UInt8] {
        let input = try FileInput(path: path)
        var head = [UInt8](repeating: 0, count: sniffBytes)
        var count = 0
        while count < head.count {
            let n = try head.withUnsafeMutableBytes { try input.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[count...])) }
            if n == 0 { break }
            count += n
        }
        return Array(head[0..<count])
    }

    /// Reads every record of `path` as `kind`, in file order, each `cleaned()`.
    static func read(path: String, kind: PlaceFileKind, head: [UInt8], emit: (PlaceReadEvent) throws -> Void) throws {
        let emit: (PlaceReadEvent) throws -> Void = { try emit($0.cleaned()) }
        if kind == .kmz {
            let archive: ZipArchive
            do {
                archive = try ZipArchive(path: path)
            } catch let failure as ZipArchive.Failure {
                throw PlaceFileError("not a readable KMZ: \(failure.reason)")
            }
            return try readKMZ(archive, emit: emit)
        }
        try read(try FileInput(path: path), kind: kind, head: head, emit: emit)
    }

    /// Reads bytes in memory as `kind` (the fuzzer; tests), each record `cleaned()`.
    static func read(bytes: [UInt8], kind: PlaceFileKind, emit: (PlaceReadEvent) throws -> Void) throws {
        let emit: (PlaceReadEvent) throws -> Void = { try emit($0.cleaned()) }
        if kind == .kmz {
            let archive: ZipArchive
            do {
                archive = try ZipArchive(bytes: bytes)
            } catch let failure as ZipArchive.Failure {
                throw PlaceFileError("not a readable KMZ: \(failure.reason)")
            }
            return try readKMZ(archive, emit: emit)
        }
        try read(MemoryInput(bytes), kind: kind, head: Array(bytes.prefix(sniffBytes)), emit: emit)
    }

    static func read(_ source: ByteInput, kind: PlaceFileKind, head: [UInt8], emit: (PlaceReadEvent) throws -> Void) throws {
        switch kind {
        case .csv: try PlacesCSV.read(source, head: head, emit: emit)
        case .kml, .gpx, .kmz: try readXML(source, kind: kind, emit: emit)
        case .geojson, .savedPlaces, .semanticHistory, .timeline: try readJSON(source, kind: kind, emit: emit)
        }
    }

    static func readKMZ(_ archive: ZipArchive, emit: (PlaceReadEvent) throws -> Void) throws {
        guard let entry = archive.kmlEntry else { throw PlaceFileError("a ZIP archive without a .kml file (not a KMZ)") }
        do {
            try readXML(try archive.contents(of: entry), kind: .kmz, emit: emit)
        } catch let failure as ZipArchive.Failure {
            throw PlaceFileError("KMZ entry \(failure.reason)")
        }
    }

    static func readXML(_ source: ByteInput, kind: PlaceFileKind, emit: (PlaceReadEvent) throws -> Void) throws {
        try PlacesXML.read(source, kind: kind, emit: emit)
    }

    static func readJSON(_ source: ByteInput, kind: PlaceFileKind, emit: (PlaceReadEvent) throws -> Void) throws {
        try PlacesJSON.read(source, kind: kind, emit: emit)
    }
}
