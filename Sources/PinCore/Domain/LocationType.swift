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
public enum LocationTypeSelection: String, Codable, Sendable, CaseIterable {
    case point, city, mountain
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
