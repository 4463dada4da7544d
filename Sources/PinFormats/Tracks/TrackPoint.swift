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
public struct TrackPointArray: TrackSink {
    public var points: [TrackPoint] = []
    public init() {}
    public mutating func point(_ p: TrackPoint) { points.append(p) }
}

/// Times of track files: ISO 8601 / RFC 3339 as GPX, KML, TCX, GeoJSON and Google write them.
public enum TrackTime {
    /// `YYYY-MM-DD[T ]HH:MM[:SS[.fff]][Z|±HH:MM|±HHMM|±HH]`; no zone is read as UTC (as
    /// exiftool does). Nil when it is not such a time.
    public static func parse<S: StringProtocol>(_ text: S) -> Double? {
        if let v = text.utf8.withContiguousStorageIfAvailable({ parse(bytes: $0) }) { return v }
        return Array(text.utf8).withUnsafeBufferPointer { parse(bytes: $0) }
    }

    /// `parse` of UTF-8 bytes (white space around them ignored): the one ISO 8601 reader of the
    /// track formats, run on the bytes in a reader's window.
    public static func parse(bytes all: UnsafeBufferPointer<UInt8>) -> Double? {
        var n = all.count
        while n > 0, isSpace(all[n - 1]) { n -= 1 }
        var c = Cursor(b: all, i: 0, n: n)
        while c.i < n, isSpace(all[c.i]) { c.i += 1 }
        guard n > 0 else { return nil }
        guard let year = c.digits(4), c.expect(0x2D), let month = c.digits(2), c.expect(0x2D), let day = c.digits(2),
              c.expect(0x54) || c.expect(0x74) || c.expect(0x20),
              let hour = c.digits(2), c.expect(0x3A), let minute = c.digits(2) else { return nil }
        var second = 0
        var fraction = 0.0
        if c.expect(0x3A) {
            guard let s = c.digits(2) else { return nil }
            second = s
            if c.expect(0x2E) || c.expect(0x2C) {
                var scale = 0.1
                var any = false
                while c.i < n, all[c.i] >= 0x30 && all[c.i] <= 0x39 {
                    fraction += Double(all[c.i] - 0x30) * scale
                    scale /= 10
                    c.i += 1
                    any = true
                }
                guard any else { return nil }
            }
        }
        guard (1...12).contains(month), (1...31).contains(day), hour <= 24, minute <= 59, second <= 60,
              let offset = zoneOffset(&c), c.i == n else { return nil }
        let days = CivilDate.days(year: year, month: month, day: day)
        return Double(days * 86_400 + hour * 3600 + minute * 60 + second - offset) + fraction
    }

    /// The bytes of a time being read, up to `n` (its trailing white space cut).
    private struct Cursor {
        let b: UnsafeBufferPointer<UInt8>
        var i: Int
        let n: Int

        /// `count` decimal digits at `i` as a number, read past; nil when they are not there.
        @inline(__always)
        mutating func digits(_ count: Int) -> Int? {
            guard i + count <= n else { return nil }
            var v = 0
            for k in i..<(i + count) {
                let d = b[k] &- 0x30
                guard d <= 9 else { return nil }
                v = v * 10 + Int(d)
            }
            i += count
            return v
        }

        /// Whether byte `c` is at `i` (then read past).
        @inline(__always)
        mutating func expect(_ c: UInt8) -> Bool {
            guard i < n, b[i] == c else { return false }
            i += 1
            return true
        }
    }

    /// The zone after the time, in seconds east of UTC: none (UTC, as exiftool reads it), `Z`,
    /// `±HH`, `±HHMM` or `±HH:MM`; nil when it is something else.
    private static func zoneOffset(_ c: inout Cursor) -> Int? {
        guard c.i < c.n else { return 0 }
        if c.expect(0x5A) || c.expect(0x7A) { return 0 }
        let sign: Int
        if c.expect(0x2B) { sign = 1 } else if c.expect(0x2D) { sign = -1 } else { return nil }
        guard let h = c.digits(2) else { return nil }
        var m = 0
        if c.expect(0x3A) {
            guard let mm = c.digits(2) else { return nil }
            m = mm
        } else if let mm = c.digits(2) {
            m = mm
        }
        guard h <= 18, m <= 59 else { return nil }
        return sign * (h * 3600 + m * 60)
    }

    private static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 }
}
