import Foundation

/// What every shared object is (City, Mountain: each declared beside its pin type, in
/// Domain/LocationType.swift): found by its id, or by its name and rounded coordinate
/// (`SharedPlaceKey`); `pinCount` pins point at it, and it goes at zero.
public protocol SharedPlace: Identifiable, Sendable where ID == UUID {
    var name: String { get }
    var coordinate: Coordinate { get }
    var pinCount: Int { get set }
}

/// Identity of a shared place: the name and the coordinate rounded to 4 decimals (about 11 m),
/// so the same city typed twice, with a coordinate that differs in the last digits, is one City.
public struct SharedPlaceKey: Hashable, Sendable {
    public let name: String
    public let latitudeE4: Int
    public let longitudeE4: Int

    public init(name: String, coordinate: Coordinate) {
        self.name = name.trimmingCharacters(in: .whitespacesAndNewlines)
        self.latitudeE4 = Int(saturating: (coordinate.latitude * 10_000).rounded())
        self.longitudeE4 = Int(saturating: (coordinate.longitude * 10_000).rounded())
    }

    var roundedCoordinate: Coordinate {
        Coordinate(latitude: Double(latitudeE4) / 10_000, longitude: Double(longitudeE4) / 10_000)
    }
}

/// A country as the app stores it: ISO 3166-1 alpha-2 id, English name, continent, pins in it.
public struct Country: Identifiable, Codable, Sendable, Hashable {
    public var id: String
    public var name: String
    public var continent: String
    public var pinCount: Int

    public init(id: String, name: String, continent: String, pinCount: Int = 0) {
        self.id = id
        self.name = name
        self.continent = continent
        self.pinCount = pinCount
    }
}
