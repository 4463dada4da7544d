import Foundation

/// Repository protocols: what the services need from storage, nothing about how it is stored.
/// PinStore implements them over SQLite.

public protocol LocationRepository {
    func fetch(id: UUID) throws -> Location?
    /// All locations, oldest date first; only those of one country when `countryID` is given.
    func fetchAll(countryID: String?) throws -> [Location]
    /// Just the coordinates and ids: what the import's distance rule needs, cheaply (and
    /// whether the pin is a wanted place, which a photo near it marks visited). Oldest first (by
    /// creation, then id): the order in which pins take photos at the very same distance
    /// (`PhotoLinks`).
    func fetchCoordinates() throws -> [(id: UUID, title: String, coordinate: Coordinate, wanted: Bool)]
    /// Stores a new location; an id already taken is an error, never an overwrite.
    func insert(_ location: Location) throws
    /// Writes the changes of an existing location; one that is not stored is an error.
    func update(_ location: Location) throws
    func delete(id: UUID) throws
    /// The offset stored with the pin itself: nil when none is (a pin an import made shows its
    /// photo's then, and `fetch` gives that one), or when no pin has that id.
    func ownUTCOffset(id: UUID) throws -> Int?
}

extension LocationRepository {
    /// A store whose pins always keep their own offset: the one `fetch` gives.
    public func ownUTCOffset(id: UUID) throws -> Int? { try fetch(id: id)?.utcOffsetSeconds }
}

public protocol CountryRepository {
    func fetch(id: String) throws -> Country?
    func fetchAll() throws -> [Country]
    func save(_ country: Country) throws
    func delete(id: String) throws
}

/// The shared objects of one shared-object type (`LocationTypeSelection.shared`): cities,
/// mountains. One protocol for every such type; PinStore implements it once, over the table
/// the type names.
public protocol SharedPlaceRepository<Place> {
    associatedtype Place: SharedPlace
    func fetch(id: UUID) throws -> Place?
    /// The one stored under this name and rounded coordinate.
    func find(key: SharedPlaceKey) throws -> Place?
    /// All, by name.
    func fetchAll() throws -> [Place]
    /// A new one; an id already taken is an error, never an overwrite.
    func insert(_ place: Place) throws
    /// Changes of a stored one; one that is not stored is an error.
    func update(_ place: Place) throws
    func delete(id: UUID) throws
}

public protocol SettingsRepository {
    func load() throws -> Settings
    func save(_ settings: Settings) throws
}

/// The repositories of one transaction.
public protocol Repositories {
    var locations: LocationRepository { get }
    var countries: CountryRepository { get }
    /// The shared objects of one shared-object type (`City.self`).
    func sharedPlaces<Place: SharedPlace>(_ type: Place.Type) -> any SharedPlaceRepository<Place>
    var settings: SettingsRepository { get }
    var photos: PhotoRepository { get }
    var runs: RunRepository { get }
    var tracks: TrackRepository { get }
}

/// Runs closures in transactions: everything a write closure does is committed together or
/// not at all (an error thrown from the closure rolls back).
public protocol TransactionRunner {
    func write<T>(_ body: (Repositories) throws -> T) throws -> T
    func read<T>(_ body: (Repositories) throws -> T) throws -> T
}
