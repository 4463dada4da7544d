import Foundation

/// What kind of place a pin is. City and Mountain carry visit-specific data; the shared
/// object (City, Mountain) they point at is found or created by CreationService.
public enum LocationType: Codable, Sendable, Hashable {
    case point
    case city(CityVisitData)
    case mountain(MountainVisitData)

    public var selection: LocationTypeSelection {
        switch self {
        case .point: return .point
        case .city: return .city
        case .mountain: return .mountain
        }
    }
}

/// The payload-free twin of LocationType, as the app has it: for filters, storage and statistics.
/// With the extension below it is the one registry of pin types: every list of types a person
/// sees (the CLI's choices, help and messages, the server's errors and form, the page's filter)
/// is made from `allCases` and these properties, never typed again (`PinTypeRegistryTests`
/// fails on a source line that does). docs/adding-a-pin-type.md is the guide.
public enum LocationTypeSelection: String, Codable, Sendable, CaseIterable {
    case point, city, mountain
}

extension LocationTypeSelection {
    /// The type as a person reads it, its name capitalised: the server form's label. The map
    /// page's filter capitalises the name the same way in page.js, so the two always agree.
    public var label: String { rawValue.prefix(1).uppercased() + rawValue.dropFirst() }

    /// The plural a count says ("cities 3"): the statistics' words and keys.
    public var plural: String {
        switch self {
        case .point: "points"
        case .city: "cities"
        case .mountain: "mountains"
        }
    }

    /// The shared object the pins of this type point at; nil for a type whose pins stand alone.
    public var shared: SharedObjectType? {
        switch self {
        case .point: nil
        case .city: SharedObjectType(table: "cities", nameKey: "cityName", coordinateKey: "cityCoordinate", rebuiltColumns: [])
        case .mountain: SharedObjectType(table: "mountains", nameKey: "mountainName", coordinateKey: "mountainCoordinate",
                                         rebuiltColumns: ["height"])
        }
    }

    /// The types that have a shared object, in the registry's order.
    public static var sharedTypes: [LocationTypeSelection] { allCases.filter { $0.shared != nil } }

    /// The names as a sentence says them: "point, city or mountain" (of `types`, all by
    /// default); "cities and mountains" with `plural` and the conjunction "and".
    public static func spoken(_ types: [LocationTypeSelection] = allCases, plural: Bool = false, conjunction: String = "or") -> String {
        let names = types.map { plural ? $0.plural : $0.rawValue }
        guard let last = names.last else { return "" }
        return names.count == 1 ? last : names.dropLast().joined(separator: ", ") + " \(conjunction) " + last
    }

    /// The names as a usage line offers them: "point|city|mountain".
    public static var usage: String { allCases.map(\.rawValue).joined(separator: "|") }
}

/// How a shared object is stored: its table (columns id, name, lat_e4, lon_e4, latitude,
/// longitude, pin_count and its own), and where a pin's visit (the JSON in `locations.type_data`)
/// names it, so that `check` can recount and rebuild it from the pins alone.
public struct SharedObjectType: Sendable, Hashable {
    /// The table, also the plural a person reads ("cities").
    public let table: String
    /// The visit's keys of the shared object's name and coordinate.
    public let nameKey: String
    public let coordinateKey: String
    /// Own columns a rebuild takes from the visits of the same key (the largest value given).
    public let rebuiltColumns: [String]
}

/// Visit-specific data of a City pin. The shared City is the gazetteer place `placeID` when it
/// has one (its name and centre are the place's); a city named by hand (`--name` unlike the
/// place there) is `cityName` + `cityCoordinate`, shared by name within `CityService.sharingKm`.
public struct CityVisitData: Codable, Sendable, Hashable {
    public var cityName: String
    public var cityCoordinate: Coordinate
    public var address: String?
    /// The GeoNames id of the gazetteer place this city is.
    public var placeID: Int?

    public init(cityName: String, cityCoordinate: Coordinate, address: String? = nil, placeID: Int? = nil) {
        self.cityName = cityName
        self.cityCoordinate = cityCoordinate
        self.address = address
        self.placeID = placeID
    }

    /// The city of a gazetteer place: its name, its centre, its id.
    public init(place: Place, address: String? = nil) {
        self.init(cityName: place.name, cityCoordinate: place.coordinate, address: address, placeID: place.id)
    }
}

/// Visit-specific data of a Mountain pin. `mountainName` + `mountainCoordinate` identify the shared Mountain.
public struct MountainVisitData: Codable, Sendable, Hashable {
    public var mountainName: String
    public var height: Double?
    public var mountainCoordinate: Coordinate
    public var achievedHeight: Double?

    public init(mountainName: String, height: Double? = nil, mountainCoordinate: Coordinate, achievedHeight: Double? = nil) {
        self.mountainName = mountainName
        self.height = height
        self.mountainCoordinate = mountainCoordinate
        self.achievedHeight = achievedHeight
    }
}
