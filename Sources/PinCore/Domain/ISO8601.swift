import Foundation
import PinGrammar

/// ISO 8601 text for instants, with an explicit offset: `2023-07-14T10:11:12+02:00`,
/// `2023-07-14T10:11:12.390+02:00` when there is a fraction, `...Z` for offset 0 / unknown.
///
/// One calendar for reading and writing: the proleptic Gregorian calendar ISO 8601 prescribes
/// (before 1582 too; Foundation's `Calendar(.gregorian)` is Julian there, which moved such a
/// date 10 days at every export and import). pins reads and writes the years 1 to 9999 only
/// (`supported`): ISO 8601's four-digit years, what every reader of its exports takes.
public enum ISO8601 {
    /// The instants pins keeps, 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z, in seconds
    /// since 1970 (`CivilDate.instants`, as a track fix's `TrackPoint.times`).
    static var supported: ClosedRange<Double> { CivilDate.instants }

    /// Whether `format` can write `date` both in UTC (GPX, `runs`) and in its own offset: what
    /// a reader refuses, naming the record, when it is not.
    public static func canWrite(_ date: Date, offsetSeconds: Int?) -> Bool {
        let t = date.timeIntervalSince1970
        return supported.contains(t) && supported.contains(t + Double(offsetSeconds ?? 0))
    }

    /// The text of `date` in `offsetSeconds` (UTC, `Z`, when nil or 0). An offset of odd
    /// seconds (a zone's local mean time before 1900, `+00:09:21` in Paris) is written to the
    /// minute, and the clock with it, so the text is always the exact instant; the exact offset
    /// is kept where the text cannot say it (`utcOffset` in JSON).
    public static func format(_ date: Date, offsetSeconds: Int? = nil) -> String {
        var valid = true
        let text = String(unsafeUninitializedCapacity: 48) { buffer in
            guard let count = write(date, offsetSeconds: offsetSeconds, into: buffer) else {
                valid = false
                return 0
            }
            return count
        }
        return valid ? text : "invalid date (\(date.timeIntervalSince1970) s)"
    }

    /// `format`'s text written into `buffer` (48 bytes at least; a JSON writer's, without a
    /// String made): its length, or nil for a date beyond `supported` (`format` then says so).
    public static func write(_ date: Date, offsetSeconds: Int?, into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int? {
        let offset = offsetSeconds.map { ($0 >= 0 ? $0 + 30 : $0 - 30) / 60 * 60 } ?? 0
        let shifted = date.timeIntervalSince1970 + Double(offset)
        // Readers keep dates within `supported`; one beyond (stored by an older pins, or not
        // finite) is shown as seconds, not converted.
        guard supported.contains(shifted) else { return nil }
        var whole = shifted.rounded(.down)
        var millis = Int(((shifted - whole) * 1000).rounded())
        if millis == 1000 { whole += 1; millis = 0 }
        return text(seconds: Int(whole), millis: millis, offset: offsetSeconds.map { _ in offset }, into: buffer)
    }

    /// `format`'s text: whole seconds since 1970 (already shifted by the offset) and
    /// milliseconds. The date by `CivilDate.split` (proleptic Gregorian, as gmtime), written by arithmetic
    /// into one buffer: this runs for every pin and, in --json reports, for every file.
    private static func text(seconds: Int, millis: Int, offset offsetSeconds: Int?, into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        let (year, month, day, secondOfDay) = CivilDate.split(seconds: seconds)
        let offset = offsetSeconds ?? 0
        let magnitude = abs(offset)
        // 19 bytes of date and time, 4 of fraction, then the zone: its hours have more than 2
        // digits only for absurd offsets, and at most 9 (a larger one made the date invalid).
        var i = 0
        func put(_ byte: UInt8) {
            buffer[i] = byte
            i += 1
        }
        func number(_ v: Int, _ width: Int) { putNumber(v, width, into: buffer, at: &i) }
        number(year, 4)
        put(UInt8(ascii: "-"))
        number(month, 2)
        put(UInt8(ascii: "-"))
        number(day, 2)
        put(UInt8(ascii: "T"))
        number(secondOfDay / 3_600, 2)
        put(UInt8(ascii: ":"))
        number(secondOfDay % 3_600 / 60, 2)
        put(UInt8(ascii: ":"))
        number(secondOfDay % 60, 2)
        if millis != 0 {
            put(UInt8(ascii: "."))
            number(millis, 3)
        }
        if offsetSeconds == nil || offset == 0 {
            put(UInt8(ascii: "Z"))
        } else {
            put(offset < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
            number(magnitude / 3_600, 2)
            put(UInt8(ascii: ":"))
            number(magnitude % 3_600 / 60, 2)
        }
        return i
    }

    /// `v` in decimal, zero-padded to `width` digits (`String(v).leftPadded(to:)`, which a year
    /// before 1 goes through as it is), written into `buffer` at `i`.
    private static func putNumber(_ v: Int, _ width: Int, into buffer: UnsafeMutableBufferPointer<UInt8>, at i: inout Int) {
        func out(_ byte: UInt8) {
            buffer[i] = byte
            i += 1
        }
        if width == 2, v >= 0, v < 100 {
            // The month, day, hours, minutes, seconds: two digits, no division loop.
            out(UInt8(ascii: "0") + UInt8(v / 10))
            out(UInt8(ascii: "0") + UInt8(v % 10))
            return
        }
        if width == 4, v >= 1000, v < 10_000 {
            out(UInt8(ascii: "0") + UInt8(v / 1000))
            out(UInt8(ascii: "0") + UInt8(v / 100 % 10))
            out(UInt8(ascii: "0") + UInt8(v / 10 % 10))
            out(UInt8(ascii: "0") + UInt8(v % 10))
            return
        }
        if v < 0 {
            for byte in String(v).leftPadded(to: width).utf8 { out(byte) }
            return
        }
        var digits = 1, rest = v / 10
        while rest > 0 { digits += 1; rest /= 10 }
        for _ in digits..<max(digits, width) { out(UInt8(ascii: "0")) }
        var k = i + digits - 1, value = v
        for _ in 0..<digits {
            buffer[k] = UInt8(ascii: "0") + UInt8(value % 10)
            value /= 10
            k -= 1
        }
        i += digits
    }

    /// Parses `YYYY-MM-DD` or a date and time with `Z`, `±hh:mm`, `±hhmm`, `±hh` or no zone
    /// (then `defaultZone`, UTC unless given): `DateTimeText`, spaces and tabs around it
    /// allowed, the years 1 to 9999, a zone's hours at most 18. Returns the instant and the
    /// offset if one was written.
    public static func parse(_ text: String, defaultZone: TimeZone = TimeZone(identifier: "UTC")!) -> (date: Date, offsetSeconds: Int?)? {
        let s = Array(text.trimmingCharacters(in: .whitespaces).utf8)
        guard let f = s.withUnsafeBufferPointer({ DateTimeText.scan($0, .iso8601) }), f.year >= 1 else { return nil }
        if let offset = f.offset, abs(offset) >= 19 * 3_600 { return nil }
        // The clock as seconds since 1970 in UTC (proleptic Gregorian, as `format` writes it),
        // then less the offset written, or the default zone's at that instant.
        let clock = Double(f.clockSeconds)
        let zoneOffset = f.offset ?? {
            let guess = defaultZone.secondsFromGMT(for: Date(timeIntervalSince1970: clock))
            return defaultZone.secondsFromGMT(for: Date(timeIntervalSince1970: clock - Double(guess)))
        }()
        let instant = clock - Double(zoneOffset) + f.fraction
        guard supported.contains(instant) else { return nil }
        return (Date(timeIntervalSince1970: instant), f.offset)
    }
}
