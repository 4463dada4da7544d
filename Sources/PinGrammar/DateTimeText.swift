/// The one reader of ISO 8601 date-times (RFC 3339's profile of it, section 5.6, and what ISO
/// 8601 adds that files use): `YYYY-MM-DD`, then optionally `T` (or `t`, or a space) and
/// `hh:mm[:ss[(.|,)f+]]`, then optionally a zone designator `Z` (or `z`), `±hh`, `±hhmm` or
/// `±hh:mm`. The date must exist (2023-02-29 does not), hours are 00 to 23, minutes 00 to 59,
/// seconds 00 to 60 (a leap second); a zone's hours 00 to 23. A zone is only read after a time
/// (ISO 8601 gives a date no zone). The whole text or nothing: callers trim what they allow.
///
/// Its callers: PinCore's `ISO8601` (dates typed and in place files), PinFormats' `TrackTime`
/// (every track format's times), PinMetadata's XMP and QuickTime dates. What each adds on top
/// (a zone's bound, which years) stays with it; what some files write besides ISO 8601 is a
/// `Grammar` here, never a copy.
public enum DateTimeText {
    /// The parts as written; `offset` in seconds east of UTC when a zone designator was there.
    public struct Fields: Sendable, Hashable {
        public var year: Int, month: Int, day: Int
        public var hasTime = false
        public var hour = 0, minute = 0, second = 0
        /// The decimal fraction of the second, in [0, 1).
        public var fraction = 0.0
        public var offset: Int?

        @inlinable
        public init(year: Int, month: Int, day: Int) {
            self.year = year
            self.month = month
            self.day = day
        }

        /// The clock read as UTC, in whole seconds since 1970 (the fraction apart).
        @inlinable
        public var clockSeconds: Int {
            CivilDate.days(year: year, month: month, day: day) * 86_400 + hour * 3_600 + minute * 60 + second
        }
    }

    /// What a reader accepts besides ISO 8601.
    public struct Grammar: Sendable {
        /// A byte allowed in place of both `-` of the date: `:` as EXIF writes dates
        /// (`2023:07:14 10:11:12`, read in XMP as ExifTool does).
        public var dateSeparator: UInt8?
        /// Spaces between the time and its zone (`2015-01-22T00:00:00 +00:00`, seen in
        /// photoshop:DateCreated; ExifTool reads it with its offset).
        public var spacesBeforeZone = false
        /// A zone of one hour digit with minutes, `+2:00` (XMP as ExifTool reads it; `+200` stays
        /// refused: it is ambiguous).
        public var oneDigitZoneHour = false

        @inlinable
        public init(dateSeparator: UInt8? = nil, spacesBeforeZone: Bool = false, oneDigitZoneHour: Bool = false) {
            self.dateSeparator = dateSeparator
            self.spacesBeforeZone = spacesBeforeZone
            self.oneDigitZoneHour = oneDigitZoneHour
        }

        /// ISO 8601 as above, nothing more.
        @inlinable public static var iso8601: Grammar { Grammar() }
        /// XMP's dates as ExifTool reads them.
        @inlinable public static var xmp: Grammar { Grammar(dateSeparator: 0x3A, spacesBeforeZone: true, oneDigitZoneHour: true) }
    }

    /// `text` with a date written `YYYY/MM/DD` as GDAL's (OGR's) CSV and KML writers do
    /// (`2023/07/14 10:11:12+00`) as ISO 8601's `YYYY-MM-DD`; any other text as it is. What the
    /// track and place readers then read, and the text a place's wall clock keeps.
    public static func isoDate(ofGDAL text: String) -> String {
        var u = Array(text.utf8)
        guard u.count >= 10, u[4] == 0x2F, u[7] == 0x2F else { return text }
        u[4] = 0x2D
        u[7] = 0x2D
        return String(decoding: u, as: UTF8.self)
    }

    /// `b` as a date-time of `grammar`, or nil.
    @inlinable
    public static func scan(_ b: UnsafeBufferPointer<UInt8>, _ grammar: Grammar) -> Fields? {
        var c = Cursor(b: b)
        guard let year = c.digits(4), let separator = c.dateSeparator(grammar), let month = c.digits(2),
              c.expect(separator), let day = c.digits(2),
              (1...12).contains(month), day >= 1, day <= CivilDate.daysIn(month: month, of: year) else { return nil }
        var f = Fields(year: year, month: month, day: day)
        if c.atEnd { return f }
        guard c.expect(0x54) || c.expect(0x74) || c.expect(0x20), c.time(&f) else { return nil }
        if c.atEnd { return f }
        if grammar.spacesBeforeZone { c.skipSpacesBeforeZone() }
        guard let offset = c.zone(grammar), c.atEnd else { return nil }
        f.offset = offset
        return f
    }

    /// The bytes being read.
    @usableFromInline
    struct Cursor {
        @usableFromInline let b: UnsafeBufferPointer<UInt8>
        @usableFromInline var i = 0

        @inlinable init(b: UnsafeBufferPointer<UInt8>) { self.b = b }

        @inlinable var atEnd: Bool { i == b.count }

        /// `count` decimal digits as a number, read past; nil (nothing read) when they are not there.
        @inlinable @inline(__always)
        mutating func digits(_ count: Int) -> Int? {
            guard i + count <= b.count else { return nil }
            var v = 0
            for k in i..<(i + count) {
                let d = b[k] &- 0x30
                guard d <= 9 else { return nil }
                v = v * 10 + Int(d)
            }
            i += count
            return v
        }

        /// Whether byte `c` is next (then read past).
        @inlinable @inline(__always)
        mutating func expect(_ c: UInt8) -> Bool {
            guard i < b.count, b[i] == c else { return false }
            i += 1
            return true
        }

        /// The date's first separator, `-` or the grammar's other one (the second must be the same).
        @inlinable
        mutating func dateSeparator(_ grammar: Grammar) -> UInt8? {
            if expect(0x2D) { return 0x2D }
            if let other = grammar.dateSeparator, expect(other) { return other }
            return nil
        }

        /// `hh:mm[:ss[(.|,)f+]]` into `f`; false when malformed or out of range.
        @inlinable
        mutating func time(_ f: inout Fields) -> Bool {
            guard let hour = digits(2), expect(0x3A), let minute = digits(2), hour <= 23, minute <= 59 else { return false }
            f.hasTime = true
            f.hour = hour
            f.minute = minute
            guard expect(0x3A) else { return true }
            guard let second = digits(2), second <= 60 else { return false }
            f.second = second
            guard expect(0x2E) || expect(0x2C) else { return true }
            // m / 10^k, both exact while m has at most 15 digits: the decimal fraction correctly
            // rounded (digits past the 15th, below 10^-15 s, are read and dropped).
            var m: Int64 = 0, scale: Int64 = 1, count = 0
            while i < b.count, b[i] &- 0x30 <= 9 {
                if count < 15 { m = m * 10 + Int64(b[i] &- 0x30); scale *= 10 }
                count += 1
                i += 1
            }
            guard count > 0 else { return false }
            f.fraction = Double(m) / Double(scale)
            return true
        }

        @inlinable
        mutating func skipSpacesBeforeZone() {
            var k = i
            while k < b.count, b[k] == 0x20 { k += 1 }
            if k > i, k < b.count, b[k] == 0x2B || b[k] == 0x2D || b[k] == 0x5A || b[k] == 0x7A { i = k }
        }

        /// The zone designator's offset in seconds east of UTC; nil when malformed.
        @inlinable
        mutating func zone(_ grammar: Grammar) -> Int? {
            if expect(0x5A) || expect(0x7A) { return 0 }
            let sign: Int
            if expect(0x2B) { sign = 1 } else if expect(0x2D) { sign = -1 } else { return nil }
            let hours: Int
            if let h = digits(2) {
                hours = h
            } else if grammar.oneDigitZoneHour, let h = digits(1), i < b.count, b[i] == 0x3A {
                hours = h
            } else {
                return nil
            }
            var minutes = 0
            if expect(0x3A) {
                guard let m = digits(2) else { return nil }
                minutes = m
            } else if let m = digits(2) {
                minutes = m
            }
            guard hours <= 23, minutes <= 59 else { return nil }
            return sign * (hours * 3_600 + minutes * 60)
        }
    }
}
