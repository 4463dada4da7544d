import Foundation
import PinGrammar

/// CSV tracks: a header row naming the columns, one fix per row after it. The columns are found
/// by the names QGIS's delimited-text layer recognises for points (case-insensitive): latitude
/// `lat`, `latitude`, `y`; longitude `lon`, `lng`, `long`, `longitude`, `x`; and the time in
/// `time`, `timestamp`, `datetime` or `date_time` (ISO 8601, or Unix seconds), or a `date`
/// column with a time of day in `time` (as gpsbabel's unicsv and exiftool's CSV logs write:
/// "2024/05/01" and "10:00:00", UTC unless the time has an offset). The separator is the one of
/// `,` `;` TAB `|` the header uses most. A row whose values cannot be read is named (line and
/// reason) in the notes and the rows after it are read; a row without a time is counted.
enum CSVTrack {
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

    static func read<Sink: TrackSink>(_ input: ByteInput, into sink: inout Sink, notes: inout TrackNotes) throws {
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
