import Foundation
import PinCore
import PinGrammar

/// A date-time as written in XMP (section 6.1) or a QuickTime `creationdate` (section 5.4):
/// `YYYY-MM-DD`, `YYYY-MM-DDThh:mm[:ss[.s+]][TZD]`, TZD `Z`, `±hh:mm`, `±h:mm`, `±hhmm` or `±hh`,
/// after optional spaces (`2015-01-22T00:00:00 +00:00`).
/// Also accepted, as ExifTool does: `:` between the date parts and a space for `T`
/// (`2023:07:14 10:11:12`). `YYYY` and `YYYY-MM` alone are not a capture time (nil).
extension String {
    /// The UTF-8 bytes without leading and trailing spaces, tabs, CR, LF and NULs: what
    /// `trimmingCharacters(in: CharacterSet(charactersIn: " \t\r\n\0"))` keeps (those are
    /// one-byte scalars, never part of a longer one), without building a character set per call.
    var utf8TrimmingPadding: [UInt8] {
        let bytes = Array(utf8)
        func padding(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0D || b == 0x0A || b == 0 }
        guard let first = bytes.firstIndex(where: { !padding($0) }) else { return [] }
        let last = bytes.lastIndex(where: { !padding($0) })!
        return first == 0 && last == bytes.count - 1 ? bytes : Array(bytes[first...last])
    }
}

struct ISODateTime: Sendable, Hashable {
    var local: LocalDateTime
    var hasTime: Bool
    /// Seconds east of UTC when a zone designator was written.
    var offset: Int?

    /// `YYYY-MM-DD`, optionally `THH:MM[:SS[.fraction]]` and a zone designator (`Z`, `±HH:MM`,
    /// `±HHMM`, `±HH`, `±H:MM`), `:` accepted for `-` in the date as EXIF writes it
    /// (`DateTimeText`'s XMP grammar); the years 1 to 9999, a zone within `CaptureTime.offsetRange`.
    static func parse(_ text: String) -> ISODateTime? {
        guard let f = text.utf8TrimmingPadding.withUnsafeBufferPointer({ DateTimeText.scan($0, .xmp) }), f.year >= 1 else { return nil }
        if let offset = f.offset, !CaptureTime.offsetRange.contains(offset) { return nil }
        let local = LocalDateTime(year: f.year, month: f.month, day: f.day, hour: f.hour, minute: f.minute, second: f.second,
                                  fraction: f.fraction)
        return ISODateTime(local: local, hasTime: f.hasTime, offset: f.offset)
    }

    /// The instant: with a written offset directly (`isoWithOffset`), otherwise the wall time
    /// in `defaultTimeZone` (`assumedZone`, section 7 step 5).
    func instant(defaultTimeZone: TimeZone) -> (Date, Int, TimeSource) {
        if let offset {
            return (Date(timeIntervalSince1970: local.secondsIfUTC - Double(offset)), offset, .isoWithOffset)
        }
        let (date, zoneOffset) = CaptureTime.instant(of: local, in: defaultTimeZone)
        return (date, zoneOffset, .assumedZone)
    }
}
