import Foundation
import PinGrammar

/// OwnTracks Recorder `.rec` files: one line per message the recorder stored, written with its
/// `RECFORMAT` `"%s\t%-18s\t%s\n"` (owntracks/recorder, storage.c): the time it was stored (ISO
/// 8601, UTC), the topic suffix (`*` for the device's own topic, padded with spaces to 18), and
/// the message's JSON payload. A `"_type": "location"` payload carries `lat`, `lon` (degrees)
/// and `tst` (Unix seconds of the fix; booklet, "JSON", `_type=location`): the fix is at `tst`,
/// not at the line's storage time. Other `_type`s (`lwt`, `transition`, `waypoint`, `cmd`, ...)
/// are not fixes and are skipped. A line that is not such a record is named (line and byte) in
/// the notes and the lines after it are read.
public enum OwnTracksTrack {
    public static func read<Sink: TrackSink>(_ input: ByteInput, into sink: inout Sink, notes: inout TrackNotes) throws {
        let lines = LineReader(input: input)
        var number = 0
        while try lines.next({ raw in
            number += 1
            let at = lines.offset
            func bad(_ why: String) { notes.add("line \(number) (byte \(at)): \(why)") }
            var end = raw.count
            while end > 0, raw[end - 1] == 0x20 || raw[end - 1] == 0x09 { end -= 1 }
            guard end > 0 else { return }  // a blank line
            guard let brace = raw[..<end].firstIndex(of: 0x7B) else { return bad("no JSON payload") }
            // The payload must follow a tab (the record's third field).
            guard brace > 0, raw[..<brace].contains(0x09) else { return bad("not 'time<TAB>topic<TAB>{json}'") }
            let json = Array(raw[brace..<end])
            let r = JSONReader(input: MemoryInput(json), bufferSize: max(64, json.count + 1))
            var type: String?, lat: Double?, lon: Double?, tst: Double?
            do {
                guard try r.next() == .objectStart else { return bad("the payload is not a JSON object") }
                try GoogleTimeline.members(r) {
                    if r.matches("_type") { _ = try r.next(); type = r.token == .string ? r.string : nil }
                    else if r.matches("lat") { _ = try r.next(); lat = r.token == .number ? r.double : nil }
                    else if r.matches("lon") { _ = try r.next(); lon = r.token == .number ? r.double : nil }
                    else if r.matches("tst") { _ = try r.next(); tst = r.token == .number ? r.double : nil }
                    else { try r.skipValue() }
                }
                while try r.next() != nil {}
            } catch let e as FormatError {
                return bad("malformed JSON at byte \(at + Int64(brace) + (e.offset ?? 0)): \(e.reason)")
            }
            guard type == "location" else { return }
            guard let tst else { return bad("a location without a number 'tst'") }
            guard let lat, let lon else { return bad("a location without number 'lat' and 'lon'") }
            let p = TrackPoint(time: tst, latitude: lat, longitude: lon)
            if let problem = p.problem { return bad(problem) }
            sink.point(p)
        }) {}
    }

    /// Whether `head` starts like a `.rec` file: a line "ISO-time<TAB>topic<TAB>{".
    static func looksLike(_ head: [UInt8]) -> Bool {
        var line = head.prefix { $0 != 0x0A && $0 != 0x0D }[...]
        guard line.count >= 12 else { return false }
        let s = String(decoding: line.prefix(10), as: UTF8.self)
        guard s.count == 10, s.enumerated().allSatisfy({ i, c in (i == 4 || i == 7) ? c == "-" : c.isASCII && c.isNumber }) else { return false }
        guard let tab = line.firstIndex(of: 0x09) else { return false }
        line = line[(tab + 1)...]
        guard let tab2 = line.firstIndex(of: 0x09) else { return false }
        return line[(tab2 + 1)...].first == 0x7B
    }
}

/// Times written as ISO 8601 or as Unix seconds, as GeoJSON properties and CSV columns hold them.
enum FlexibleTime {
    /// ISO 8601 (`TrackTime.parse`, with `YYYY/MM/DD` accepted for the date as GDAL's CSV
    /// writer puts it: "2024/05/01 10:00:00+00"), or a number: Unix seconds, or milliseconds
    /// when it is 10^11 or more (seconds that large are past the year 5000).
    static func parse(_ text: String) -> Double? {
        let t = text.trimmingCharacters(in: .whitespaces)
        if let v = Double(t), v.isFinite, t.first.map({ $0.isNumber || $0 == "-" || $0 == "+" || $0 == "." }) == true {
            return number(v)
        }
        var b = Array(t.utf8)
        if b.count >= 10, b[4] == 0x2F, b[7] == 0x2F { b[4] = 0x2D; b[7] = 0x2D }
        return TrackTime.parse(String(decoding: b, as: UTF8.self))
    }

    static func number(_ v: Double) -> Double? {
        guard v.isFinite else { return nil }
        return abs(v) >= 1e11 ? v / 1000 : v
    }

    /// A date alone, as exiftool reads a CSV `Date` column: `DD/MM/YYYY`, else year, month and
    /// day in that order (`YYYY-MM-DD`, `YYYY/MM/DD`, `YYYY:MM:DD`). Days since 1970.
    static func date(_ text: String) -> Int? {
        let parts = text.trimmingCharacters(in: .whitespaces).split(whereSeparator: { $0 == "/" || $0 == "-" || $0 == ":" || $0 == "." })
        guard parts.count == 3, let a = Int(parts[0]), let b = Int(parts[1]), let c = Int(parts[2]) else { return nil }
        let (y, m, d) = parts[0].count == 4 ? (a, b, c) : parts[2].count == 4 ? (c, b, a) : (0, 0, 0)
        guard (1...9999).contains(y), (1...12).contains(m), (1...31).contains(d) else { return nil }
        return CivilDate.days(year: y, month: m, day: d)
    }

    /// A time of day `HH:MM:SS[.fff][Z|±HH[:MM]]` as seconds from midnight UTC.
    static func timeOfDay(_ text: String) -> Double? {
        TrackTime.parse("1970-01-01T" + text.trimmingCharacters(in: .whitespaces))
    }
}

/// CSV tracks: a header row naming the columns, one fix per row after it. The columns are found
/// by the names QGIS's delimited-text layer recognises for points (case-insensitive): latitude
/// `lat`, `latitude`, `y`; longitude `lon`, `lng`, `long`, `longitude`, `x`; and the time in
/// `time`, `timestamp`, `datetime` or `date_time` (ISO 8601, or Unix seconds), or a `date`
/// column with a time of day in `time` (as gpsbabel's unicsv and exiftool's CSV logs write:
/// "2024/05/01" and "10:00:00", UTC unless the time has an offset). The separator is the one of
/// `,` `;` TAB `|` the header uses most. A row whose values cannot be read is named (line and
/// reason) in the notes and the rows after it are read; a row without a time is counted.
public enum CSVTrack {
    struct Columns {
        var lat: Int, lon: Int
        var time: Int?
        var date: Int?
    }

    static func index(_ names: [String], _ candidates: [String]) -> Int? {
        for c in candidates { if let i = names.firstIndex(of: c) { return i } }
        return nil
    }

    static func normalise(_ field: String) -> String {
        var s = field.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        if s.hasPrefix("\u{FEFF}") { s.removeFirst() }
        if s.count >= 2, s.hasPrefix("\""), s.hasSuffix("\"") { s = String(s.dropFirst().dropLast()) }
        return s
    }

    /// The columns of a header, or nil when it names no latitude, longitude and time.
    static func columns(_ header: [String]) -> Columns? {
        let names = header.map(normalise)
        guard let lat = index(names, ["latitude", "lat", "y"]), let lon = index(names, ["longitude", "lon", "lng", "long", "x"]) else { return nil }
        // A date and time in one column; else a date column and a time-of-day column; else a
        // lone `date` or `time` column holding both.
        if let full = index(names, ["datetime", "date_time", "timestamp"]) { return Columns(lat: lat, lon: lon, time: full, date: nil) }
        let date = index(names, ["date"]), time = index(names, ["time"])
        if let date, let time { return Columns(lat: lat, lon: lon, time: time, date: date) }
        guard let one = time ?? date else { return nil }
        return Columns(lat: lat, lon: lon, time: one, date: nil)
    }

    /// The separator of a header line: the most frequent of `,` `;` TAB `|` (comma on a tie).
    static func delimiter(_ line: ArraySlice<UInt8>) -> UInt8 {
        let candidates: [UInt8] = [0x2C, 0x3B, 0x09, 0x7C]
        var best: UInt8 = 0x2C, count = 0
        for c in candidates {
            let n = line.reduce(0) { $0 + ($1 == c ? 1 : 0) }
            if n > count { best = c; count = n }
        }
        return best
    }

    static func firstLine(_ head: [UInt8]) -> ArraySlice<UInt8> {
        var h = head[...]
        if h.starts(with: [0xEF, 0xBB, 0xBF]) { h = h.dropFirst(3) }
        return h.prefix { $0 != 0x0A && $0 != 0x0D }
    }

    /// Whether `head` starts with a header `columns` accepts.
    static func looksLike(_ head: [UInt8]) -> Bool {
        let line = firstLine(head)
        let d = delimiter(line)
        guard line.contains(d) else { return false }
        let fields = line.split(separator: d, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        return columns(fields) != nil
    }

    public static func read<Sink: TrackSink>(_ input: ByteInput, into sink: inout Sink, notes: inout TrackNotes) throws {
        // The separator is read from the first bytes, which are then read again as the table.
        let prefix = HeadInput(input, keep: 4096)
        let d = delimiter(firstLine(try prefix.head()))
        var csv = CSVReader(prefix, delimiter: d)
        var columns: Columns?
        var untimed = 0
        do {
            while let record = try csv.nextRecord() {
                if let failure = record.failure { notes.add(failure.description); continue }
                if record.fields.count == 1 && record.fields[0].trimmingCharacters(in: .whitespaces).isEmpty { continue }
                guard let c = columns else {
                    guard let found = Self.columns(record.fields) else {
                        throw FormatError(format: "CSV track", reason: "line \(record.line): the header names no latitude, longitude and time columns (lat/latitude/y, lon/lng/long/longitude/x, time/timestamp/datetime/date_time or date and time)")
                    }
                    columns = found
                    continue
                }
                func field(_ i: Int?) -> String? {
                    guard let i, i < record.fields.count else { return nil }
                    let v = record.fields[i].trimmingCharacters(in: .whitespaces)
                    return v.isEmpty ? nil : v
                }
                func bad(_ why: String) { notes.add("line \(record.line): \(why)") }
                let timeText = field(c.time), dateText = field(c.date)
                var time: Double?
                if let dateText {
                    guard let day = FlexibleTime.date(dateText) else { bad("date '\(dateText.prefix(40))' is not a date"); continue }
                    guard let timeText else { untimed += 1; continue }
                    guard let tod = FlexibleTime.timeOfDay(timeText) else { bad("time '\(timeText.prefix(40))' is not a time of day"); continue }
                    time = Double(day * 86_400) + tod
                } else {
                    guard let timeText else { untimed += 1; continue }
                    guard let t = FlexibleTime.parse(timeText) else { bad("time '\(timeText.prefix(40))' is not ISO 8601 or Unix seconds"); continue }
                    time = t
                }
                guard let latText = field(c.lat), let lonText = field(c.lon) else { bad("no latitude or no longitude"); continue }
                guard let lat = CSVReader.decimal(latText), let lon = CSVReader.decimal(lonText) else {
                    bad("latitude '\(latText.prefix(40))' or longitude '\(lonText.prefix(40))' is not a number"); continue
                }
                let p = TrackPoint(time: time!, latitude: lat, longitude: lon)
                if let problem = p.problem { bad(problem); continue }
                sink.point(p)
            }
        } catch let failure as CSVReader.Failure {
            throw FormatError(format: "CSV", reason: failure.description)
        }
        if untimed > 0 { notes.add("\(untimed) row\(untimed == 1 ? "" : "s") without a time ignored") }
    }
}

/// Reads the first `keep` bytes of an input ahead (for a look at them), then gives every byte
/// from the first on.
final class HeadInput: ByteInput {
    private let input: ByteInput
    private var buffered: [UInt8] = []
    private var at = 0
    private var filled = false
    private let keep: Int

    init(_ input: ByteInput, keep: Int) {
        self.input = input
        self.keep = keep
    }

    func head() throws -> [UInt8] {
        if !filled {
            filled = true
            var b = [UInt8](repeating: 0, count: keep)
            var n = 0
            while n < keep {
                let got = try b.withUnsafeMutableBytes { try input.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[n...])) }
                if got == 0 { break }
                n += got
            }
            buffered = Array(b[..<n])
        }
        return buffered
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        _ = try head()
        if at < buffered.count {
            let n = min(buffer.count, buffered.count - at)
            buffered.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + at, byteCount: n) }
            at += n
            return n
        }
        return try input.read(into: buffer)
    }
}
