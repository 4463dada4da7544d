import Foundation
import PinCore
import PinGrammar

/// A wall-clock date and time without a zone (DateTimeOriginal, section 1.3).
struct LocalDateTime: Sendable, Hashable, CustomStringConvertible {
    var year: Int, month: Int, day: Int
    var hour: Int, minute: Int, second: Int
    /// Fraction of a second, 0 ≤ fraction < 1 (SubSecTimeOriginal).
    var fraction: Double

    init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0,
                fraction: Double = 0) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
        self.fraction = fraction
    }

    /// Seconds since 1970-01-01 00:00:00 if this wall-clock reading were UTC (proleptic
    /// Gregorian arithmetic, no Calendar involved).
    var secondsIfUTC: Double {
        Double(wholeSecondsIfUTC) + fraction
    }

    var wholeSecondsIfUTC: Int {
        CivilDate.days(year: year, month: month, day: day) * 86_400
            + hour * 3_600 + minute * 60 + second
    }

    var description: String {
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(year):\(two(month)):\(two(day)) \(two(hour)):\(two(minute)):\(two(second))"
    }
}

/// The capture instant chosen for one file and the step that produced it.
struct CaptureTimeResult: Sendable, Hashable {
    var takenAt: Date?
    var utcOffsetSeconds: Int?
    var source: TimeSource
    /// The tag the time was read from (`PhotoMetadata.timeTag`).
    var tag: String?
    var warnings: [String]

    init(takenAt: Date? = nil, utcOffsetSeconds: Int? = nil, source: TimeSource = .none,
                tag: String? = nil, warnings: [String] = []) {
        self.takenAt = takenAt
        self.utcOffsetSeconds = utcOffsetSeconds
        self.source = source
        self.tag = tag
        self.warnings = warnings
    }
}

/// One absolute instant per file from Exif values (docs/formats.md section 7, steps 1, 3, 5
/// and 6; steps 2 and 4 belong to containers that carry ISO strings or UTC values). Pure Swift.
public enum CaptureTime {
    /// Step 3: accepted distance between the camera clock (read as UTC, minus the rounded offset)
    /// and the GPS fix time. "A few minutes": clock drift plus the age of the last fix; a
    /// residual of 7 minutes means a stale fix and is rejected.
    static let gpsTolerance: Double = 5 * 60
    /// Zones run in 15-minute steps (+05:45 Nepal, +12:45 Chatham).
    static let offsetStep = 15 * 60
    /// The span of real UTC offsets, −12:00 (Baker Island) ... +14:00 (Kiribati).
    static let offsetRange = (-12 * 3_600)...(14 * 3_600)

    // MARK: The rules

    /// The capture instant of a file with Exif (and maybe an embedded XMP packet):
    ///
    /// - EXIF DateTimeOriginal (+SubSecTimeOriginal) is the capture time; without it,
    ///   DateTimeDigitized (+SubSecTimeDigitized), the practical fallback of section 9.14.
    /// - Its offset: the tag's own (OffsetTimeOriginal / OffsetTimeDigitized, step 1); else the
    ///   offset of the embedded XMP date when that date's wall clock is the same to the second
    ///   (the Metadata Working Group's rule: an XMP date never overrides the EXIF one, it may
    ///   only lend its zone); else the offset inferred from GPS time (step 3); else the default
    ///   zone (step 5).
    /// - No usable EXIF date: the XMP date (with its offset, or read in the default zone).
    /// - Nothing: the file's modification time (step 6).
    static func resolve(_ values: ExifValues, xmp: XMPValues? = nil, modificationTime: Date?,
                               defaultTimeZone: TimeZone) -> CaptureTimeResult {
        let (found, unusable) = exifDate(values)
        guard let found else {
            return withoutExifDate(values, xmp: xmp, modificationTime: modificationTime, defaultTimeZone: defaultTimeZone,
                                   unusable: unusable)
        }
        var warnings = unusable.map { $0 + ": ignored" }
        return read(found, values: values, xmp: xmp, defaultTimeZone: defaultTimeZone, warnings: &warnings)
    }

    /// The instant of a wall-clock date tag: its own offset (step 1), the embedded XMP date's
    /// when both clocks agree, the offset inferred from GPS time (step 3), else the default
    /// zone (step 5). A capture date says which step in `source`; ModifyDate is `.modifyDate`
    /// whatever the step, and its tag says the step (`modifyDateTag`).
    static func read(_ found: ChosenDate, values: ExifValues, xmp: XMPValues?, defaultTimeZone: TimeZone,
                     warnings: inout [String]) -> CaptureTimeResult {
        var chosen = found
        chosen.applySubSeconds(warnings: &warnings)
        let modify = chosen.name == modifyDateName
        func result(_ offset: Int, _ source: TimeSource, _ tag: String) -> CaptureTimeResult {
            CaptureTimeResult(takenAt: Date(timeIntervalSince1970: chosen.local.secondsIfUTC - Double(offset)),
                              utcOffsetSeconds: offset, source: modify ? .modifyDate : source, tag: tag, warnings: warnings)
        }
        // Step 1: the camera's own offset.
        if let offset = chosen.ownOffset(warnings: &warnings) {
            return result(offset, .exifOffset, modify ? "\(chosen.name) + OffsetTime" : chosen.name)
        }
        // The embedded XMP date lends its offset when both wall clocks agree (MWG).
        if !modify, let (offset, property) = xmpOffset(xmp, agreeingWith: chosen, warnings: &warnings) {
            return result(offset, .isoWithOffset, "\(chosen.name) + offset of XMP \(property)")
        }
        // Step 3: infer the offset from the GPS fix time.
        if let offset = gpsOffset(values, for: chosen, preferredZone: defaultTimeZone, warnings: &warnings) {
            return result(offset, .gpsInferredOffset, modify ? "\(chosen.name) + offset inferred from GPS time" : chosen.name)
        }
        // Step 5: the default zone.
        let (instant, offset) = instant(of: chosen.local, in: defaultTimeZone)
        return CaptureTimeResult(takenAt: instant, utcOffsetSeconds: offset, source: modify ? .modifyDate : .assumedZone,
                                 tag: chosen.name, warnings: warnings)
    }

    /// ExifTool's name of IFD0 DateTime, as `timeTag` names it. A `.modifyDate` time whose tag
    /// is exactly this was read in the default zone (no offset of its own, none inferred): the
    /// zone of its position may read it again (`MetadataMerge.placeInZoneOfPosition`).
    static let modifyDateName = "ModifyDate"

    /// The EXIF date tag a capture time is read from, with its sub-seconds and offset tags.
    struct ChosenDate {
        var name: String
        var local: LocalDateTime
        var subSec: String?
        var offset: String?
        var isOriginal: Bool { name == "DateTimeOriginal" }
        /// The names of the tags of its fraction and offset.
        var subSecName: String { isOriginal ? "SubSecTimeOriginal" : name == CaptureTime.modifyDateName ? "SubSecTime" : "SubSecTimeDigitized" }
        var offsetName: String { isOriginal ? "OffsetTimeOriginal" : name == CaptureTime.modifyDateName ? "OffsetTime" : "OffsetTimeDigitized" }

        /// SubSecTime… read into the fraction; a value that is not digits is named.
        mutating func applySubSeconds(warnings: inout [String]) {
            guard let sub = subSec else { return }
            if let fraction = CaptureTime.parseSubSeconds(sub) {
                local.fraction = fraction
            } else if !sub.exifTrimmed.isEmpty {
                warnings.append("\(subSecName) '\(CaptureTime.printable(sub))' is not digits: ignored")
            }
        }

        /// OffsetTime… when it is a valid ±HH:MM; an invalid one is named.
        func ownOffset(warnings: inout [String]) -> Int? {
            guard let offsetText = offset else { return nil }
            switch CaptureTime.parseOffset(offsetText) {
            case .seconds(let seconds):
                return seconds
            case .unknown:
                return nil
            case .invalid:
                warnings.append("\(offsetName) '\(CaptureTime.printable(offsetText))' is not ±HH:MM: ignored")
                return nil
            }
        }
    }

    /// The first EXIF date tag with a valid date (DateTimeOriginal, else DateTimeDigitized), and
    /// the date tags that are there but say nothing usable (zeros, blanks, a value libexif could
    /// not load): named if the file's time has to stand in (issue 22).
    static func exifDate(_ values: ExifValues) -> (ChosenDate?, unusable: [String]) {
        var unusable: [String] = []
        func consider(_ name: String, _ date: String?, _ subSec: String?, _ offset: String?) -> ChosenDate? {
            guard let text = date else {
                if let why = values.malformed[name] { unusable.append("\(name) is \(why)") }
                return nil
            }
            guard let local = parseDateTime(text) else {
                let shown = text.exifTrimmed
                // Blanks (and colons) are the Exif way of saying "unknown" (section 1.4).
                unusable.append(shown.allSatisfy { $0 == " " || $0 == ":" } ? "\(name) is blank"
                                : "\(name) '\(printable(String(shown)))' is not a valid date")
                return nil
            }
            return ChosenDate(name: name, local: local, subSec: subSec, offset: offset)
        }
        let chosen = consider("DateTimeOriginal", values.dateTimeOriginal, values.subSecTimeOriginal, values.offsetTimeOriginal)
            ?? consider("DateTimeDigitized", values.dateTimeDigitized, values.subSecTimeDigitized, values.offsetTimeDigitized)
        return (chosen, unusable)
    }

    /// No usable EXIF capture date (issue 36 item 2): the XMP date (with its offset, or read in
    /// the default zone); else the GPS date and time stamp, a UTC instant; else IFD0 DateTime
    /// (ModifyDate), read as a capture date is; else the file's modification time (step 6), the
    /// unusable tags named.
    static func withoutExifDate(_ values: ExifValues, xmp: XMPValues?, modificationTime: Date?, defaultTimeZone: TimeZone,
                                unusable: [String]) -> CaptureTimeResult {
        if let xmp, let takenAt = xmp.takenAt {
            return CaptureTimeResult(takenAt: takenAt, utcOffsetSeconds: xmp.utcOffsetSeconds,
                                     source: xmp.timeSource, tag: xmp.timeProperty.map { "XMP \($0)" },
                                     warnings: unusable.map { $0 + ": ignored" })
        }
        var warnings = unusable.map { $0 + ": ignored" }
        if let instant = gpsInstant(values) {
            return CaptureTimeResult(takenAt: instant, source: .gpsTime, tag: "GPSDateStamp + GPSTimeStamp", warnings: warnings)
        }
        var modifyUnusable: [String] = []
        if let modify = modifyDate(values, unusable: &modifyUnusable) {
            warnings += modifyUnusable.map { $0 + ": ignored" }
            return read(modify, values: values, xmp: nil, defaultTimeZone: defaultTimeZone, warnings: &warnings)
        }
        let all = unusable + modifyUnusable
        let fallback = modificationTime == nil ? "no capture time" : "the file's modification time is used"
        warnings = all.isEmpty ? [] : [all.joined(separator: "; ") + ": " + fallback]
        guard let modificationTime else { return CaptureTimeResult(warnings: warnings) }
        return CaptureTimeResult(takenAt: modificationTime, source: .fileModification, warnings: warnings)
    }

    /// GPSDateStamp + GPSTimeStamp as an instant (UTC), when both are there and valid. A stamp
    /// without its date is only a time of day: no instant (it may still lend an offset to a
    /// wall clock, `gpsOffset`).
    static func gpsInstant(_ values: ExifValues) -> Date? {
        guard let stamp = values.gpsTimeStamp, let seconds = secondsOfDay(stamp),
              let dateText = values.gpsDateStamp, let d = parseDate(dateText) else { return nil }
        return Date(timeIntervalSince1970: Double(CivilDate.days(year: d.year, month: d.month, day: d.day)) * 86_400 + seconds)
    }

    /// IFD0 DateTime as a date tag to read, or why it is unusable (in `unusable`).
    static func modifyDate(_ values: ExifValues, unusable: inout [String]) -> ChosenDate? {
        guard let text = values.dateTime else {
            if let why = values.malformed["DateTime"] { unusable.append("ModifyDate is \(why)") }
            return nil
        }
        guard let local = parseDateTime(text) else {
            let shown = text.exifTrimmed
            unusable.append(shown.allSatisfy { $0 == " " || $0 == ":" } ? "ModifyDate is blank"
                            : "ModifyDate '\(printable(String(shown)))' is not a valid date")
            return nil
        }
        return ChosenDate(name: modifyDateName, local: local, subSec: values.subSecTime, offset: values.offsetTime)
    }

    /// The offset of the embedded XMP date, and its property, when its wall clock is the EXIF
    /// date's to the second; a different wall clock is named (the EXIF date is kept).
    static func xmpOffset(_ xmp: XMPValues?, agreeingWith chosen: ChosenDate,
                          warnings: inout [String]) -> (Int, String)? {
        guard let xmp, let date = xmp.captureDate, date.hasTime, let property = xmp.timeProperty else { return nil }
        guard date.local.wholeSecondsIfUTC == chosen.local.wholeSecondsIfUTC else {
            warnings.append("XMP \(property) (\(date.local)) differs from \(chosen.name) (\(chosen.local)): the EXIF date is kept")
            return nil
        }
        return date.offset.map { ($0, property) }
    }

    /// Step 3: the offset inferred from the GPS fix time, when it matches; why not, named.
    static func gpsOffset(_ values: ExifValues, for chosen: ChosenDate, preferredZone: TimeZone,
                          warnings: inout [String]) -> Int? {
        guard let stamp = values.gpsTimeStamp else { return nil }
        guard let secondsOfDay = secondsOfDay(stamp) else {
            warnings.append("GPSTimeStamp has a zero denominator or is out of range: not used")
            return nil
        }
        var gpsDate: (year: Int, month: Int, day: Int)?
        if let dateText = values.gpsDateStamp {
            gpsDate = parseDate(dateText)
            if gpsDate == nil, !dateText.exifTrimmed.isEmpty {
                warnings.append("GPSDateStamp '\(printable(dateText))' is not a date: trying the days around \(chosen.name)")
            }
        }
        if let offset = inferOffset(local: chosen.local, gpsDate: gpsDate, gpsSecondsOfDay: secondsOfDay,
                                    preferredZone: preferredZone) {
            return offset
        }
        warnings.append("GPS time does not match \(chosen.name) within \(Int(gpsTolerance / 60)) minutes of a zone offset: not used")
        return nil
    }

    /// The offset O for local time L and GPS time G (section 7 step 3): d = L (read as UTC) − G,
    /// O = d rounded to 15 minutes, accepted when |d − O| ≤ `gpsTolerance` and O lies in
    /// `offsetRange`. Without a GPS date, G is tried on L's date and the days before and after;
    /// if two of those pass (possible only for offsets near ±12 h), the one matching
    /// `preferredZone` at that instant wins, else the smaller |O|, a tie going to the positive one.
    static func inferOffset(local: LocalDateTime, gpsDate: (year: Int, month: Int, day: Int)?,
                                   gpsSecondsOfDay: Double, preferredZone: TimeZone? = nil) -> Int? {
        func check(day: Int) -> Int? {
            let g = Double(day) * 86_400 + gpsSecondsOfDay
            let d = local.secondsIfUTC - g
            let step = Double(offsetStep)
            let rounded = (d / step).rounded() * step
            guard abs(d - rounded) <= gpsTolerance, rounded >= Double(offsetRange.lowerBound),
                  rounded <= Double(offsetRange.upperBound) else { return nil }
            return Int(rounded)
        }
        if let gpsDate {
            guard CivilDate.isValid(year: gpsDate.year, month: gpsDate.month, day: gpsDate.day) else { return nil }
            return check(day: CivilDate.days(year: gpsDate.year, month: gpsDate.month, day: gpsDate.day))
        }
        let localDay = CivilDate.days(year: local.year, month: local.month, day: local.day)
        let passing = [localDay, localDay - 1, localDay + 1].compactMap(check)
        guard passing.count > 1 else { return passing.first }
        if let zone = preferredZone {
            let matching = passing.filter { offset in
                let instant = Date(timeIntervalSince1970: local.secondsIfUTC - Double(offset))
                return zone.secondsFromGMT(for: instant) == offset
            }
            if matching.count == 1 { return matching[0] }
        }
        return passing.min { a, b in abs(a) != abs(b) ? abs(a) < abs(b) : a > b }
    }

    /// Step 5: `local` read in `zone`. In a DST overlap (the wall time happens twice) the earlier
    /// instant; in a DST gap (it never happens) the wall time shifted forward by the gap's length,
    /// i.e. read with the offset in force before the gap. Returns the instant and the zone's
    /// offset at that instant. Decided here from `secondsFromGMT(for:)` alone, so the result does
    /// not depend on how Foundation's Calendar resolves such times on a given platform.
    static func instant(of local: LocalDateTime, in zone: TimeZone) -> (Date, Int) {
        instant(ofWallClock: local.wholeSecondsIfUTC, fraction: local.fraction, in: zone)
    }

    /// The same for a wall-clock reading given as seconds since 1970 as if it were UTC (the
    /// track matcher reads a photo's wall clock again in the camera's zone, `--camera-timezone`).
    public static func instant(ofWallClock wall: Int, fraction: Double = 0, in zone: TimeZone) -> (Date, Int) {
        func offset(at seconds: Int) -> Int {
            zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(seconds)))
        }
        // Offsets in force a day either side bound the candidates (real zones change offset at
        // most once within any 48 hours).
        let before = offset(at: wall - 86_400)
        let after = offset(at: wall + 86_400)
        var candidates = [before, after, offset(at: wall)]
        candidates.append(offset(at: wall - candidates[2]))
        let valid = Set(candidates).filter { offset(at: wall - $0) == $0 }
        let chosen: Int
        if let latest = valid.max() {
            chosen = latest  // the larger offset gives the earlier instant
        } else {
            chosen = before  // gap: shift forward
        }
        let utc = wall - chosen
        return (Date(timeIntervalSince1970: Double(utc) + fraction), offset(at: utc))
    }

    // MARK: Parsers (section 1.4 / 1.5)

    /// DateTimeOriginal, leniently: trims NULs and spaces, then takes six digit groups separated
    /// by any non-digits (`2019:07:14 10:11:12`, `2019-07-14 10:11:12`, a NUL for a space). The
    /// year must have 4 digits, the others 1–2; impossible values (month 0, day 32, hour 24)
    /// and the "unknown" forms (all zeros, blanks) give nil. Groups after the sixth are ignored.
    static func parseDateTime(_ text: String) -> LocalDateTime? {
        guard let g = digitGroups(text, count: 6),
              CivilDate.isValid(year: g.0, month: g.1, day: g.2), g.3 <= 23, g.4 <= 59, g.5 <= 60 else { return nil }
        return LocalDateTime(year: g.0, month: g.1, day: g.2, hour: g.3, minute: g.4, second: g.5)
    }

    /// GPSDateStamp `YYYY:MM:DD` with any separators (seen: `-`, `/`, NUL).
    static func parseDate(_ text: String) -> (year: Int, month: Int, day: Int)? {
        guard let g = digitGroups(text, count: 3), CivilDate.isValid(year: g.0, month: g.1, day: g.2) else { return nil }
        return (g.0, g.1, g.2)
    }

    /// SubSecTimeOriginal: the digits are the decimal fraction (`39` → 0.39 s). Nil when blank or
    /// not all digits. At most 9 digits count; digits / 10^k is the correctly rounded double of
    /// `0.ddd` (both exact below 2^53), as reading the text would give.
    static func parseSubSeconds(_ text: String) -> Double? {
        var text = text
        return text.withUTF8 { bytes -> Double? in
            let trimmed = exifTrimmed(bytes)
            guard !trimmed.isEmpty else { return nil }
            var numerator = 0, scale = 1, kept = 0
            for byte in trimmed {
                guard let digit = asciiDigit(byte) else { return nil }
                if kept < 9 {
                    numerator = numerator * 10 + digit
                    scale *= 10
                    kept += 1
                }
            }
            return Double(numerator) / Double(scale)
        }
    }

    enum OffsetValue: Sendable, Hashable {
        /// Absent or written as blanks (`   :  `): the spec's "unknown".
        case unknown
        case seconds(Int)
        /// Present but not `±HH:MM` within −12:00 ... +14:00.
        case invalid
    }

    /// OffsetTimeOriginal `+HH:MM` / `-HH:MM` (also accepted without the colon, and with a
    /// one-digit hour: `+1:00`).
    static func parseOffset(_ text: String) -> OffsetValue {
        var text = text
        return text.withUTF8 { bytes -> OffsetValue in
            let trimmed = exifTrimmed(bytes)
            if trimmed.allSatisfy({ $0 == 0x20 || $0 == UInt8(ascii: ":") || $0 == 0 }) { return .unknown }
            let sign = trimmed[trimmed.startIndex]
            guard sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") else { return .invalid }
            // Where the four digits of HHMM are in `HH:MM`, `H:MM` (nil: a leading 0) or `HHMM`.
            let rest = trimmed.dropFirst(), s = rest.startIndex, colon = UInt8(ascii: ":")
            let at: (Int?, Int, Int, Int)
            switch rest.count {
            case 4 where rest[s + 1] == colon: at = (nil, s, s + 2, s + 3)  // `+1:00`
            case 5 where rest[s + 2] == colon: at = (s, s + 1, s + 3, s + 4)
            case 4: at = (s, s + 1, s + 2, s + 3)
            default: return .invalid
            }
            func digit(_ i: Int?) -> Int? {
                guard let i else { return 0 }
                return asciiDigit(rest[i])
            }
            guard let h1 = digit(at.0), let h2 = digit(at.1), let m1 = digit(at.2), let m2 = digit(at.3) else { return .invalid }
            let hours = h1 * 10 + h2, minutes = m1 * 10 + m2
            guard minutes < 60 else { return .invalid }
            let seconds = (hours * 3_600 + minutes * 60) * (sign == UInt8(ascii: "-") ? -1 : 1)
            return offsetRange.contains(seconds) ? .seconds(seconds) : .invalid
        }
    }

    /// GPSTimeStamp h, m, s → seconds of the day in floating point; fractions and values ≥ 60
    /// roll over (section 1.4). Nil on a zero denominator, a negative value, or more than two
    /// days' worth of seconds.
    static func secondsOfDay(_ parts: [ExifRational]) -> Double? {
        guard parts.count >= 3, parts.prefix(3).allSatisfy({ $0.denominator != 0 }) else { return nil }
        let v = parts.prefix(3).map { Double($0.numerator) / Double($0.denominator) }
        let seconds = v[0] * 3_600 + v[1] * 60 + v[2]
        guard seconds.isFinite, seconds >= 0, seconds < 2 * 86_400 else { return nil }
        return seconds
    }

    /// The first `count` (3 or 6) runs of ASCII digits as numbers, when there are that many and
    /// the first has 4 digits and the others 1–2 (runs after the last are ignored); else nil.
    /// Works on the UTF-8 bytes without building strings: this runs for every photo. Trimming
    /// NULs and spaces first would change nothing (they are not digits).
    private static func digitGroups(_ text: String, count: Int) -> (Int, Int, Int, Int, Int, Int)? {
        var text = text
        return text.withUTF8 { bytes -> (Int, Int, Int, Int, Int, Int)? in
            var values = (0, 0, 0, 0, 0, 0)
            var found = 0, value = 0, length = 0
            func close() -> Bool {
                guard found == 0 ? length == 4 : length <= 2 else { return false }
                switch found {
                case 0: values.0 = value
                case 1: values.1 = value
                case 2: values.2 = value
                case 3: values.3 = value
                case 4: values.4 = value
                default: values.5 = value
                }
                found += 1
                value = 0
                length = 0
                return true
            }
            for byte in bytes {
                if let digit = asciiDigit(byte) {
                    value = value &* 10 &+ digit
                    length += 1
                    if length > 4 { return nil }
                } else if length > 0 {
                    guard close() else { return nil }
                    if found == count { return values }
                }
            }
            if length > 0 { guard close() else { return nil } }
            return found == count ? values : nil
        }
    }

    /// The bytes with leading and trailing NULs and spaces removed (as `String.exifTrimmed`).
    private static func exifTrimmed(_ bytes: UnsafeBufferPointer<UInt8>) -> Slice<UnsafeBufferPointer<UInt8>> {
        let padding: (UInt8) -> Bool = { $0 == 0 || $0 == 0x20 }
        guard let first = bytes.firstIndex(where: { !padding($0) }) else { return bytes[0..<0] }
        let last = bytes.lastIndex(where: { !padding($0) })!
        return bytes[first...last]
    }

    private static func asciiDigit(_ byte: UInt8) -> Int? {
        byte >= 0x30 && byte <= 0x39 ? Int(byte - 0x30) : nil
    }

    /// A value for a one-line warning: control bytes as `\u{..}`, at most 40 characters.
    static func printable(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars.prefix(40) {
            if scalar.value < 0x20 || scalar.value == 0x7F {
                out += scalar == "\0" ? "\\0" : "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
