import Foundation
import PinCore

/// `locate`: the country (and, `withPlaces`, the region and town) at a position, with no
/// database. Made once, asked for many positions (`pins locate` reads millions of lines).
public struct PositionLocator: Sendable {
    let resolver: CountryResolver
    let places: OutlinedRegionPlaces?

    /// The countries' ISO codes, by the index `countryIndex(at:)` answers.
    public var codes: [String] { resolver.codes }

    /// The index of the country whose outline holds `point` (the nearest within the coastal
    /// margin), or nil at sea.
    public func countryIndex(at point: Coordinate) -> Int? { resolver.countryIndex(at: point) }

    /// The country, region and town at `point` (with `withPlaces`; else no region or town).
    public func locate(_ point: Coordinate) -> (country: String?, match: PlaceMatch) {
        let found = resolver.countryIndexAndOutline(at: point)
        let code = found.map { resolver.codes[$0.index] }
        return (code, places?.match(at: point, countryCode: code, inOutline: found?.inOutline) ?? .none)
    }
}

extension PinApp {
    /// A locator over the country outlines (and the gazetteer, `withPlaces`), loaded now.
    public static func positionLocator(withPlaces: Bool) throws -> PositionLocator {
        let resolver = try data().countryResolver()
        return PositionLocator(resolver: resolver, places: withPlaces ? try data().places(countries: resolver) : nil)
    }
}
