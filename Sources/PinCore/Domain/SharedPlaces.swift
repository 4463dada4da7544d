import Foundation

/// What every shared object is (City, Mountain: each declared beside its pin type, in
/// Domain/LocationType.swift): found by its id, or by its name and rounded coordinate
/// (`SharedPlaceKey`); `pinCount` pins point at it, and it goes at zero.
public protocol SharedPlace: Identifiable, Sendable where ID == UUID {
    var name: String { get }
    var coordinate: Coordinate { get }
    var pinCount: Int { get set }
    /// The pin type whose shared object this is: its table is the registry's
    /// (`LocationTypeSelection.shared`).
    static var pinType: LocationTypeSelection { get }
    /// The table's own columns, after those every shared table has (id, name, lat_e4, lon_e4,
    /// latitude, longitude, pin_count).
    static var ownColumns: [OwnColumn] { get }
    /// The values of `ownColumns`, in their order.
    var ownValues: [ColumnValue] { get }
    /// One made from a stored row: the columns every shared table has, and the values of its own.
    init(id: UUID, name: String, coordinate: Coordinate, pinCount: Int, own: [ColumnValue])
}

/// A column a shared object's table has of its own, what it holds, and how `pins <plural>`
/// lists it.
public struct OwnColumn: Sendable, Hashable {
    public enum Kind: Sendable, Hashable { case integer, real }
    public let name: String
    public let kind: Kind
    /// nil: not listed (a city's gazetteer id).
    public let listing: Listing?

    init(name: String, kind: Kind, listing: Listing? = nil) {
        self.name = name
        self.kind = kind
        self.listing = listing
    }

    /// A column as `pins <plural>` lists it, after the name.
    public struct Listing: Sendable, Hashable {
        /// Its key in the `--json` objects; upper case, the table's header.
        public let key: String
        /// Its plural in the command's summary ("with heights and pin counts").
        public let plural: String
        /// What the table writes after its value (" m").
        public let unit: String
    }
}

/// The value of an own column; nil is NULL.
public enum ColumnValue: Sendable, Hashable {
    case integer(Int?)
    case real(Double?)

    public var integer: Int? { if case let .integer(v) = self { v } else { nil } }
    public var real: Double? { if case let .real(v) = self { v } else { nil } }
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
