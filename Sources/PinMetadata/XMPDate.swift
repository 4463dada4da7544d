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

/// A cursor over the bytes of a date text (`ISODateTime.parse`): each step consumes what it
/// reads, or nothing when it fails.
private struct DateCursor {
    let s: [UInt8]
    var i = 0

    init(_ bytes: [UInt8]) { s = bytes }

    var atEnd: Bool { i == s.count }

    /// `minDigits` to `maxDigits` decimal digits.
    mutating func number(_ minDigits: Int, _ maxDigits: Int) -> Int? {
        let start = i
        var value = 0, count = 0
        while i < s.count, count < maxDigits, (48...57).contains(s[i]) {
            value = value * 10 + Int(s[i] - 48)
            i += 1
            count += 1
        }
        guard count >= minDigits else {
            i = start
            return nil
        }
        return value
    }

    /// One of the characters of `options`.
    mutating func take(_ options: String) -> Bool {
        if i < s.count, options.utf8.contains(s[i]) { i += 1; return true }
        return false
    }

    /// `HH:MM[:SS[.fraction]]` into `local`; false when malformed.
    mutating func time(into local: inout LocalDateTime) -> Bool {
        guard let hour = number(2, 2), take(":"), let minute = number(2, 2), hour <= 23, minute <= 59 else { return false }
        local.hour = hour
        local.minute = minute
        guard take(":") else { return true }
        guard let second = number(2, 2), second <= 60 else { return false }
        local.second = second
        guard take(".,") else { return true }
        let start = i
        while i < s.count, (48...57).contains(s[i]) { i += 1 }
        guard i > start else { return false }
        local.fraction = Double("0." + String(decoding: s[start..<min(i, start + 9)], as: UTF8.self)) ?? 0
        return true
    }

    /// Spaces before a zone designator (`2015-01-22T00:00:00 +00:00`, seen in
    /// photoshop:DateCreated; ExifTool reads it with its offset); other spaces stay.
    mutating func skipSpacesBeforeZone() {
        var designator = i
        while designator < s.count, s[designator] == 0x20 { designator += 1 }
        if designator > i, designator < s.count, "+-Zz".utf8.contains(s[designator]) { i = designator }
    }

    /// The zone designator's offset in seconds: `.some(nil)` when there is none, nil when it
    /// is malformed or out of range.
    mutating func zone() -> Int?? {
        if take("Zz") { return .some(0) }
        guard i < s.count, s[i] == UInt8(ascii: "+") || s[i] == UInt8(ascii: "-") else { return .some(nil) }
        let negative = s[i] == UInt8(ascii: "-")
        i += 1
        let hoursStart = i
        guard let hours = number(1, 2) else { return nil }
        let oneDigitHour = i - hoursStart == 1
        var minutes = 0
        if take(":") {
            guard let m = number(2, 2) else { return nil }
            minutes = m
        } else if oneDigitHour {
            return nil  // `+100` is ambiguous
        } else if let m = number(2, 2) {
            minutes = m
        }
        guard minutes < 60 else { return nil }
        let seconds = (hours * 3_600 + minutes * 60) * (negative ? -1 : 1)
        guard CaptureTime.offsetRange.contains(seconds) else { return nil }
        return .some(seconds)
    }
}

struct ISODateTime: Sendable, Hashable {
    var local: LocalDateTime
    var hasTime: Bool
    /// Seconds east of UTC when a zone designator was written.
    var offset: Int?

    /// `YYYY-MM-DD`, optionally `THH:MM[:SS[.fraction]]` and a zone designator (`Z`, `±HH:MM`,
    /// `±HHMM`, `±HH`, `±H:MM`), `:` accepted for `-` in the date as EXIF writes it; the whole
    /// text or nothing.
    static func parse(_ text: String) -> ISODateTime? {
        var cursor = DateCursor(text.utf8TrimmingPadding)
        guard let year = cursor.number(4, 4), cursor.take("-:"), let month = cursor.number(2, 2), cursor.take("-:"),
              let day = cursor.number(2, 2), CivilDate.isValid(year: year, month: month, day: day) else { return nil }
        var parsed = ISODateTime(local: LocalDateTime(year: year, month: month, day: day), hasTime: false, offset: nil)
        if cursor.take("T ") {
            guard cursor.time(into: &parsed.local) else { return nil }
            parsed.hasTime = true
            cursor.skipSpacesBeforeZone()
            guard let offset = cursor.zone() else { return nil }
            parsed.offset = offset
        }
        return cursor.atEnd ? parsed : nil
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
