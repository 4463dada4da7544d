import PinGrammar

/// What a reader noticed while reading one file, apart from its points: records it could not
/// read (counted, the first few named with their reason) and things it ignores on purpose.
public struct TrackNotes: Sendable, Hashable {
    /// The first `keep` notes, each one line ("point at byte 512: latitude 91 out of range").
    public private(set) var lines: [String] = []
    /// How many notes there were in all (the lines beyond `keep` are only counted).
    public private(set) var count = 0
    public static let keep = 5

    public init() {}

    public mutating func add(_ line: String) {
        count += 1
        if lines.count < TrackNotes.keep { lines.append(line) }
    }

    /// One line for a report: the first notes and how many more.
    public var summary: String? {
        guard count > 0 else { return nil }
        let more = count - lines.count
        return lines.joined(separator: "; ") + (more > 0 ? "; and \(more) more" : "")
    }
}

/// Where a track reader sends what it reads.
public protocol TrackSink {
    mutating func point(_ p: TrackPoint)
}

/// Collects the points in an array (tests, small files).
struct TrackPointArray: TrackSink {
    var points: [TrackPoint] = []
    init() {}
    mutating func point(_ p: TrackPoint) { points.append(p) }
}

/// Times of track files: ISO 8601 / RFC 3339 as GPX, KML, TCX, GeoJSON and Google write them.
public enum TrackTime {
    /// `YYYY-MM-DD[T ]HH:MM[:SS[.fff]][Z|±HH:MM|±HHMM|±HH]` (`DateTimeText`); no zone is read
    /// as UTC (as exiftool does). Nil when it is not such a time.
    public static func parse<S: StringProtocol>(_ text: S) -> Double? {
        if let v = text.utf8.withContiguousStorageIfAvailable({ parse(bytes: $0) }) { return v }
        return Array(text.utf8).withUnsafeBufferPointer { parse(bytes: $0) }
    }

    /// `parse` of UTF-8 bytes (white space around them ignored), run on the bytes in a reader's
    /// window: `DateTimeText` with a time; a zone's hours at most 18.
    public static func parse(bytes all: UnsafeBufferPointer<UInt8>) -> Double? {
        var start = 0, end = all.count
        while end > 0, isSpace(all[end - 1]) { end -= 1 }
        while start < end, isSpace(all[start]) { start += 1 }
        guard let f = DateTimeText.scan(UnsafeBufferPointer(rebasing: all[start..<end]), .iso8601), f.hasTime else { return nil }
        let offset = f.offset ?? 0
        guard abs(offset) < 19 * 3_600 else { return nil }
        return Double(f.clockSeconds - offset) + f.fraction
    }

    private static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 }
}
