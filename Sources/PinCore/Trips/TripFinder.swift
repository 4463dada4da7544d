import Foundation
import PinGrammar

/// A calendar day where the person was: days since 1970-01-01 of the local date (the date in
/// the point's own offset from UTC; the UTC date when the offset is unknown).
public struct LocalDay: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let number: Int

    public init(_ number: Int) { self.number = number }

    /// The local date of `instant` in `offsetSeconds` (UTC when nil).
    public init(_ instant: Date, offsetSeconds: Int?) {
        let seconds = Int(saturating: (instant.timeIntervalSince1970 + Double(offsetSeconds ?? 0)).rounded(.down))
        number = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
    }

    public static func < (a: LocalDay, b: LocalDay) -> Bool { a.number < b.number }

    public var date: (year: Int, month: Int, day: Int) {
        CivilDate.date(days: number)
    }

    /// `2024-04-03`.
    public var description: String {
        let (y, m, d) = date
        return String(y).leftPadded(to: 4) + "-" + String(m).leftPadded(to: 2) + "-" + String(d).leftPadded(to: 2)
    }

    /// The day a `YYYY-MM-DD` text names, or nil.
    public init?(text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]),
              (1...12).contains(m), (1...31).contains(d) else { return nil }
        let day = LocalDay(CivilDate.days(year: y, month: m, day: d))
        guard day.date == (y, m, d) else { return nil }
        self = day
    }
}

/// One piece of evidence that the person was somewhere at some moment: a pin, or a photo with
/// a position that made no pin of its own (it was near a pin already, or a minute after one).
public struct TripPoint: Sendable, Equatable {
    public var instant: Date
    public var utcOffsetSeconds: Int?
    public var coordinate: Coordinate
    /// ISO 3166-1 alpha-2, nil at sea.
    public var country: String?
    /// The gazetteer's place (a town), nil where none.
    public var place: String?
    /// The pin this point is; nil for a photo.
    public var pinID: UUID?
    /// For a photo left out of the trips (its date before 1900 or in the future): its file,
    /// so that `pins trips` can name it (issue 40); nil otherwise.
    public var photoPath: RawPath?

    public init(instant: Date, utcOffsetSeconds: Int?, coordinate: Coordinate, country: String?,
                place: String? = nil, pinID: UUID? = nil) {
        self.instant = instant
        self.utcOffsetSeconds = utcOffsetSeconds
        self.coordinate = coordinate
        self.country = country
        self.place = place
        self.pinID = pinID
    }

    var day: LocalDay { LocalDay(instant, offsetSeconds: utcOffsetSeconds) }
}

/// Where home was over a stretch of days (a person who moved has several).
public struct HomePeriod: Sendable, Equatable {
    public var from: LocalDay
    public var to: LocalDay
    public var centre: Coordinate
    public var country: String?
    public var place: String?
    /// Set by the person (`pins settings --home-lat/--home-lon`), not found from the data.
    public var isSet: Bool
}

/// A journey: a run of days away from home.
public struct Trip: Sendable, Equatable {
    /// The first day, `2024-04-03`: stable while the trip's start stays (`pins list --trip ID`).
    public var id: String { start.description }
    public var start: LocalDay
    public var end: LocalDay
    /// Calendar days from start to end, both counted.
    public var days: Int { end.number - start.number + 1 }
    /// Days with a point away from home.
    public var awayDays: Int
    /// Countries in the order first visited on the trip.
    public var countries: [String]
    /// Places (towns) in the order first visited.
    public var places: [String]
    /// The trip's pins, in date order.
    public var pinIDs: [UUID]
    /// Countries the person had never been to before this trip.
    public var newCountries: [String]
    /// Days spent in each country (a day counts for every country with a point that day).
    public var daysByCountry: [String: Int]
    /// The title pins makes, or the person's own name for it (`renamed`).
    public var title: String
    public var renamed: Bool = false
}

/// The trip rule and its constants: README "Trips" says why each is what it is.
enum TripRule {
    /// A day is away when one of its points is farther than this from home.
    static let awayKm: Double = 50
    /// Up to this many days at home or without any point may lie inside one trip.
    static let maxGapDays = 2
    /// A trip has at least this many away days.
    static let minAwayDays = 2
    /// Across a gap holding a day at home, the two sides are one trip only when they share a
    /// country other than home's, or their days' centres are this close.
    static let sameJourneyKm: Double = 100
    /// Home is found in windows of this many months either side of each month.
    static let homeWindowMonths = 6
    /// A place becomes home for a month only with at least this many days in the months around
    /// it: a library of travel photos alone (no day at home) keeps one home, the place with the
    /// most days, instead of a new "home" at every destination.
    static let minHomeDays = 8
    /// Points in one cluster of days are within this of its first day's centre.
    static let clusterKm: Double = 25
    /// Earliest plausible capture: 1 January 1900.
    static let earliest = Date(timeIntervalSince1970: -2_208_988_800)
}

/// What the trip finder found.
public struct TripTimeline: Sendable {
    public var homes: [HomePeriod]
    public var trips: [Trip]
    /// Points whose date is before 1900 or in the future: reported, never part of a trip.
    public var outOfRange: [TripPoint]
    /// Days with a point per year, and of those the days abroad (a point outside home's country).
    public var daysByYear: [Int: Int]
    public var daysAbroadByYear: [Int: Int]
    /// Days per country and year: a day counts for every country with a point that day.
    public var daysByCountryAndYear: [String: [Int: Int]]
}

/// A trip renamed by the person: kept by the trip that overlaps it most as the data changes.
public struct TripName: Sendable, Equatable {
    public var start: LocalDay
    public var end: LocalDay
    public var name: String

    public init(start: LocalDay, end: LocalDay, name: String) {
        self.start = start
        self.end = end
        self.name = name
    }
}
