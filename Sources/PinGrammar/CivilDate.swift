/// Dates of the proleptic Gregorian calendar, the one ISO 8601 prescribes (before 1582 too),
/// counted in days from 1970-01-01: the one copy of this arithmetic, for the EXIF and XMP
/// dates, the track formats, ISO 8601 text and the trips' days (H. Hinnant's
/// days_from_civil and civil_from_days, which are exact for every Int year in range).
public enum CivilDate {
    /// Days from 1970-01-01 to `year`-`month`-`day`; `month` 1 to 12, `day` as given (a day
    /// past the month's end counts on into the next: callers check `isValid` first).
    @inlinable
    public static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The date `days` after 1970-01-01 (before it when negative): the inverse of `days`.
    @inlinable
    public static func date(days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// The date and the second of the day of `seconds` since 1970 read as UTC, as gmtime
    /// gives them (a negative second counts back into the day before).
    @inlinable
    public static func split(seconds: Int) -> (year: Int, month: Int, day: Int, secondOfDay: Int) {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let (year, month, day) = date(days: days)
        return (year, month, day, seconds - days * 86_400)
    }

    /// Days in `month` (1 to 12) of `year`.
    @inlinable
    static func daysIn(month: Int, of year: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    @inlinable
    static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    /// The instants of the years pins reads and writes, 0001-01-01T00:00:00Z to
    /// 9999-12-31T23:59:59.999Z, in seconds since 1970: what ISO 8601 text (`ISO8601.supported`)
    /// and a track fix (`TrackPoint.times`) may hold.
    @inlinable
    public static var instants: ClosedRange<Double> { -62_135_596_800 ... 253_402_300_799.999 }

    /// A real date of the years pins reads and writes, 1 to 9999 (ISO 8601's four-digit years).
    @inlinable
    public static func isValid(year: Int, month: Int, day: Int) -> Bool {
        (1...9999).contains(year) && (1...12).contains(month) && day >= 1 && day <= daysIn(month: month, of: year)
    }
}
