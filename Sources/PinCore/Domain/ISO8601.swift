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
    public static var supported: ClosedRange<Double> { CivilDate.instants }

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
        let offset = offsetSeconds.map { ($0 >= 0 ? $0 + 30 : $0 - 30) / 60 * 60 } ?? 0
        let shifted = date.timeIntervalSince1970 + Double(offset)
        // Readers keep dates within `supported`; one beyond (stored by an older pins, or not
        // finite) is shown as seconds, not converted.
        guard supported.contains(shifted) else { return "invalid date (\(date.timeIntervalSince1970) s)" }
        var whole = shifted.rounded(.down)
        var millis = Int(((shifted - whole) * 1000).rounded())
        if millis == 1000 { whole += 1; millis = 0 }
        return text(seconds: Int(whole), millis: millis, offset: offsetSeconds.map { _ in offset })
    }

    /// `format`'s text: whole seconds since 1970 (already shifted by the offset) and
    /// milliseconds. The date by `CivilDate.split` (proleptic Gregorian, as gmtime), written by arithmetic
    /// into one buffer: this runs for every pin and, in --json reports, for every file.
    private static func text(seconds: Int, millis: Int, offset offsetSeconds: Int?) -> String {
        let (year, month, day, secondOfDay) = CivilDate.split(seconds: seconds)
        let offset = offsetSeconds ?? 0
        let magnitude = abs(offset)
        // 19 bytes of date and time, 4 of fraction, then the zone: its hours have more than 2
        // digits only for absurd offsets, and at most 9 (a larger one made the date invalid).
        return String(unsafeUninitializedCapacity: 48) { buffer in
            var i = 0
            func put(_ byte: UInt8) {
                buffer[i] = byte
                i += 1
            }
            /// `v` in decimal, zero-padded to `width` digits (`String(v).leftPadded(to:)`, which
            /// a year before 1 goes through as it is).
            func number(_ v: Int, _ width: Int) {
                if v < 0 {
                    for byte in String(v).leftPadded(to: width).utf8 { put(byte) }
                    return
                }
                var digits = 1, rest = v / 10
                while rest > 0 { digits += 1; rest /= 10 }
                for _ in digits..<max(digits, width) { put(UInt8(ascii: "0")) }
                var k = i + digits - 1, value = v
                for _ in 0..<digits {
                    buffer[k] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                    k -= 1
                }
                i += digits
            }
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
    }

    /// Parses `YYYY-MM-DD`, `YYYY-MM-DDThh:mm[:ss[.fff]]` with `Z`, `±hh:mm`, `±hhmm` or no zone
    /// (then `defaultZone`, UTC unless given). Returns the instant and the offset if one was written.
    public static func parse(_ text: String, defaultZone: TimeZone = TimeZone(identifier: "UTC")!) -> (date: Date, offsetSeconds: Int?)? {
        let s = Array(text.trimmingCharacters(in: .whitespaces).utf8)
        var i = 0
        func number(_ digits: Int) -> Int? {
            guard i + digits <= s.count else { return nil }
            var v = 0
            for k in i..<(i + digits) {
                guard s[k] >= 48 && s[k] <= 57 else { return nil }
                v = v * 10 + Int(s[k] - 48)
            }
            i += digits
            return v
        }
        func take(_ c: Character) -> Bool {
            if i < s.count, s[i] == c.asciiValue! { i += 1; return true }
            return false
        }
        guard let year = number(4), take("-"), let month = number(2), take("-"), let day = number(2) else { return nil }
        var hour = 0, minute = 0, second = 0
        var fraction = 0.0
        if take("T") || take(" ") {
            guard let h = number(2), take(":"), let m = number(2) else { return nil }
            hour = h; minute = m
            if take(":") {
                guard let sec = number(2) else { return nil }
                second = sec
                if take(".") || take(",") {
                    var scale = 0.1
                    while i < s.count, s[i] >= 48 && s[i] <= 57 {
                        fraction += Double(s[i] - 48) * scale
                        scale /= 10
                        i += 1
                    }
                }
            }
        }
        var offset: Int?
        if take("Z") || take("z") {
            offset = 0
        } else if i < s.count, s[i] == UInt8(ascii: "+") || s[i] == UInt8(ascii: "-") {
            let negative = s[i] == UInt8(ascii: "-")
            i += 1
            guard let oh = number(2), oh <= 18 else { return nil }
            _ = take(":")
            let om = number(2) ?? 0
            guard om < 60 else { return nil }
            offset = (negative ? -1 : 1) * (oh * 3600 + om * 60)
        }
        guard i == s.count, (1...9999).contains(year), (1...12).contains(month), (1...CivilDate.daysIn(month: month, of: year)).contains(day),
              hour < 24, minute < 60, second < 61 else { return nil }
        // The clock as seconds since 1970 in UTC (proleptic Gregorian, as `format` writes it),
        // then less the offset written, or the default zone's at that instant.
        let clock = Double((CivilDate.days(year: year, month: month, day: day) * 86_400) + hour * 3_600 + minute * 60 + second)
        let zoneOffset = offset ?? {
            let guess = defaultZone.secondsFromGMT(for: Date(timeIntervalSince1970: clock))
            return defaultZone.secondsFromGMT(for: Date(timeIntervalSince1970: clock - Double(guess)))
        }()
        let instant = clock - Double(zoneOffset) + fraction
        guard supported.contains(instant) else { return nil }
        return (Date(timeIntervalSince1970: instant), offset)
    }
}
