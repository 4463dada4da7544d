import Foundation
import PinGrammar

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
        return TrackTime.parse(DateTimeText.isoDate(ofGDAL: t))
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
