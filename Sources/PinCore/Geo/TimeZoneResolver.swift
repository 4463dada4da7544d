import Foundation

/// Which IANA time zone a point lies in, offline: the zone outlines of TimeZones.bin indexed by
/// the country machinery (`CountryResolver`, one "country" per zone), then the nautical zone.
///
/// The outlines are timezone-boundary-builder's land zones, which already reach 12 nautical
/// miles out to sea. Simplification (Resources/TIMEZONES.md) leaves slivers up to about 220 m
/// wide between neighbours: a point in one gets the nearest zone within `borderKilometres`.
/// Anywhere else is open sea, which has the nautical zone of its longitude (`nauticalIdentifier`),
/// as timezone-boundary-builder's ocean polygons do.
public final class TimeZoneResolver: Sendable {
    static let borderKilometres = 1.0
    private let index: CountryResolver

    public init(polygons: CountryPolygons) {
        index = CountryResolver(polygons: polygons, cellDegrees: 0.25, coastalKilometres: Self.borderKilometres)
    }

    /// Loads TimeZones.bin's bytes (see `TimeZonePolygons`).
    public convenience init(data: [UInt8]) throws {
        self.init(polygons: try TimeZonePolygons.parse(data))
    }

    /// For points at `latitude` only (`pins add --date`): indexes only the zones near it, and
    /// answers there as the whole index does (see `CountryResolver.decidingLatitudes`).
    public convenience init(data: [UInt8], onlyAtLatitude latitude: Double) throws {
        let band = CountryResolver.decidingLatitudes(around: latitude, coastalKilometres: Self.borderKilometres)
        self.init(polygons: try TimeZonePolygons.parse(data).reaching(latitudes: band))
    }

    /// The zone identifiers the outlines know (sorted, without the nautical ones).
    var identifiers: [String] { index.codes }

    /// The IANA identifier at the point: a land zone, else the nautical one; nil for an invalid
    /// coordinate.
    func identifier(at point: Coordinate) -> String? {
        guard point.isValid else { return nil }
        if let zone = index.countryIndex(at: point) { return index.codes[zone] }
        return Self.nauticalIdentifier(longitude: point.longitude)
    }

    /// The nautical zone: 15° strips centred on multiples of 15°, `Etc/GMT-1` for UTC+1 east of
    /// 7.5° E (POSIX signs are inverted), `Etc/GMT+12` / `Etc/GMT-12` for the half-strips at the
    /// date line. A longitude exactly on a strip edge goes to the strip farther from Greenwich.
    static func nauticalIdentifier(longitude: Double) -> String {
        let hours = Int((longitude / 15).rounded(.toNearestOrAwayFromZero))
        if hours == 0 { return "Etc/GMT" }
        return hours > 0 ? "Etc/GMT-\(hours)" : "Etc/GMT+\(-hours)"
    }
}

/// What the metadata readers ask for a wall-clock time without an offset on a photo with a
/// position: the zone there, with Foundation's rules (on Linux the tz data inside its ICU).
public protocol TimeZoneLocating: Sendable {
    /// The zone at the point, or an error whose description says why there is none (data file
    /// missing, zone unknown to Foundation's zone data).
    func timeZone(at point: Coordinate) throws -> TimeZone
}

public struct TimeZoneUnavailable: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

extension TimeZoneResolver: TimeZoneLocating {
    public func timeZone(at point: Coordinate) throws -> TimeZone {
        guard let identifier = identifier(at: point) else { throw TimeZoneUnavailable("no time zone at an invalid position") }
        guard let zone = TimeZone(identifier: identifier) else {
            throw TimeZoneUnavailable("the time zone \(identifier) of the position is unknown to this build's zone data")
        }
        return zone
    }
}
