import Foundation

/// Repository protocols: what the services need from storage, nothing about how it is stored.
/// PinStore implements them over SQLite.

public protocol LocationRepository {
    func fetch(id: UUID) throws -> Location?
    /// All locations, oldest date first; only those of one country when `countryID` is given.
    func fetchAll(countryID: String?) throws -> [Location]
    /// Just the coordinates and ids: what the import's distance rule needs, cheaply (and
    /// whether the pin is a wanted place, which a photo near it marks visited).
    func fetchCoordinates() throws -> [(id: UUID, title: String, coordinate: Coordinate, wanted: Bool)]
    /// Stores a new location; an id already taken is an error, never an overwrite.
    func insert(_ location: Location) throws
    /// Writes the changes of an existing location; one that is not stored is an error.
    func update(_ location: Location) throws
    func delete(id: UUID) throws
}

public protocol CountryRepository {
    func fetch(id: String) throws -> Country?
    func fetchAll() throws -> [Country]
    func save(_ country: Country) throws
    func delete(id: String) throws
}

public protocol CityRepository {
    func fetch(id: UUID) throws -> City?
    func find(key: SharedPlaceKey) throws -> City?
    func fetchAll() throws -> [City]
    /// A new city; an id already taken is an error, never an overwrite.
    func insert(_ city: City) throws
    /// Changes of a stored city; one that is not stored is an error.
    func update(_ city: City) throws
    func delete(id: UUID) throws
}

public protocol MountainRepository {
    func fetch(id: UUID) throws -> Mountain?
    func find(key: SharedPlaceKey) throws -> Mountain?
    func fetchAll() throws -> [Mountain]
    /// A new mountain; an id already taken is an error, never an overwrite.
    func insert(_ mountain: Mountain) throws
    /// Changes of a stored mountain; one that is not stored is an error.
    func update(_ mountain: Mountain) throws
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
    var cities: CityRepository { get }
    var mountains: MountainRepository { get }
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
