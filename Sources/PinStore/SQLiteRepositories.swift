import Foundation
import PinCore

/// The repositories over one connection; used only inside a transaction of PinDatabase.
struct SQLiteRepositories: Repositories {
    let connection: Connection

    var locations: LocationRepository { SQLiteLocationRepository(db: connection) }
    var countries: CountryRepository { SQLiteCountryRepository(db: connection) }
    var cities: CityRepository { SQLiteCityRepository(db: connection) }
    var mountains: MountainRepository { SQLiteMountainRepository(db: connection) }
    var settings: SettingsRepository { SQLiteSettingsRepository(db: connection) }
    var photos: PhotoRepository { SQLitePhotoRepository(db: connection) }
    var runs: RunRepository { SQLiteRunRepository(db: connection) }
}

private let encoder: JSONEncoder = {
    let e = JSONEncoder()
    e.outputFormatting = [.sortedKeys]
    return e
}()

private func json<T: Encodable>(_ value: T) throws -> String {
    String(decoding: try encoder.encode(value), as: UTF8.self)
}

private func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
    try JSONDecoder().decode(type, from: Data(text.utf8))
}

struct SQLiteLocationRepository: LocationRepository {
    let db: Connection

    static let columns = "id, title, latitude, longitude, country_id, type, type_data, date, color, visit_count, note, tags, photo_ids"

    func row(_ s: Statement) throws -> Location {
        let type: LocationType
        switch s.string(5) {
        case "city": type = .city(try decode(CityVisitData.self, s.string(6)))
        case "mountain": type = .mountain(try decode(MountainVisitData.self, s.string(6)))
        default: type = .point
        }
        return Location(
            id: UUID(uuidString: s.string(0)) ?? UUID(),
            title: s.string(1),
            coordinate: Coordinate(latitude: s.double(2), longitude: s.double(3)),
            countryID: s.optionalString(4), type: type,
            date: Date(timeIntervalSince1970: s.double(7)), color: s.string(8), visitCount: s.int(9),
            note: s.optionalString(10),
            tags: try s.optionalString(11).map { try decode([String].self, $0) },
            photoIDs: try decode([String].self, s.string(12)))
    }

    func fetch(id: UUID) throws -> Location? {
        try db.query("SELECT \(Self.columns) FROM locations WHERE id = ?", [id.uuidString.lowercased()], row).first
    }

    func fetchAll(countryID: String?) throws -> [Location] {
        if let countryID {
            return try db.query("SELECT \(Self.columns) FROM locations WHERE country_id = ? ORDER BY date, id", [countryID], row)
        }
        return try db.query("SELECT \(Self.columns) FROM locations ORDER BY date, id", [], row)
    }

    func fetchCoordinates() throws -> [(id: UUID, title: String, coordinate: Coordinate)] {
        try db.query("SELECT id, title, latitude, longitude FROM locations", []) { s in
            (UUID(uuidString: s.string(0)) ?? UUID(), s.string(1), Coordinate(latitude: s.double(2), longitude: s.double(3)))
        }
    }

    func save(_ l: Location) throws {
        let typeData: String?
        switch l.type {
        case .point: typeData = nil
        case let .city(visit): typeData = try json(visit)
        case let .mountain(visit): typeData = try json(visit)
        }
        try db.run("""
            INSERT INTO locations (id, title, latitude, longitude, country_id, type, type_data, date, color,
                                   visit_count, note, tags, photo_ids, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(id) DO UPDATE SET title = excluded.title, latitude = excluded.latitude,
                longitude = excluded.longitude, country_id = excluded.country_id, type = excluded.type,
                type_data = excluded.type_data, date = excluded.date, color = excluded.color,
                visit_count = excluded.visit_count, note = excluded.note, tags = excluded.tags,
                photo_ids = excluded.photo_ids
            """, [l.id.uuidString.lowercased(), l.title, l.coordinate.latitude, l.coordinate.longitude, l.countryID,
                  l.type.selection.rawValue, typeData, l.date.timeIntervalSince1970, l.color, l.visitCount, l.note,
                  try l.tags.map { try json($0) }, try json(l.photoIDs), Date().timeIntervalSince1970])
    }

    func delete(id: UUID) throws {
        try db.run("DELETE FROM locations WHERE id = ?", [id.uuidString.lowercased()])
    }
}

struct SQLiteCountryRepository: CountryRepository {
    let db: Connection

    private func row(_ s: Statement) -> Country {
        Country(id: s.string(0), name: s.string(1), continent: s.string(2), pinCount: s.int(3))
    }

    func fetch(id: String) throws -> Country? {
        try db.query("SELECT id, name, continent, pin_count FROM countries WHERE id = ?", [id], row).first
    }

    func fetchAll() throws -> [Country] {
        try db.query("SELECT id, name, continent, pin_count FROM countries ORDER BY id", [], row)
    }

    func save(_ c: Country) throws {
        try db.run("""
            INSERT INTO countries (id, name, continent, pin_count) VALUES (?, ?, ?, ?)
            ON CONFLICT(id) DO UPDATE SET name = excluded.name, continent = excluded.continent, pin_count = excluded.pin_count
            """, [c.id, c.name, c.continent, c.pinCount])
    }

    func delete(id: String) throws {
        try db.run("DELETE FROM countries WHERE id = ?", [id])
    }
}

/// Cities and mountains share a table shape: name, rounded key, coordinate, pin count.
struct SQLiteCityRepository: CityRepository {
    let db: Connection

    private func row(_ s: Statement) -> City {
        City(id: UUID(uuidString: s.string(0)) ?? UUID(), name: s.string(1),
             coordinate: Coordinate(latitude: s.double(2), longitude: s.double(3)), pinCount: s.int(4))
    }

    private static let select = "SELECT id, name, latitude, longitude, pin_count FROM cities"

    func fetch(id: UUID) throws -> City? {
        try db.query("\(Self.select) WHERE id = ?", [id.uuidString.lowercased()], row).first
    }

    func find(key: SharedPlaceKey) throws -> City? {
        try db.query("\(Self.select) WHERE name = ? AND lat_e4 = ? AND lon_e4 = ?",
                     [key.name, key.latitudeE4, key.longitudeE4], row).first
    }

    func fetchAll() throws -> [City] { try db.query("\(Self.select) ORDER BY name", [], row) }

    func save(_ c: City) throws {
        let key = SharedPlaceKey(name: c.name, coordinate: c.coordinate)
        try db.run("""
            INSERT INTO cities (id, name, lat_e4, lon_e4, latitude, longitude, pin_count) VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(id) DO UPDATE SET name = excluded.name, lat_e4 = excluded.lat_e4, lon_e4 = excluded.lon_e4,
                latitude = excluded.latitude, longitude = excluded.longitude, pin_count = excluded.pin_count
            """, [c.id.uuidString.lowercased(), key.name, key.latitudeE4, key.longitudeE4,
                  c.coordinate.latitude, c.coordinate.longitude, c.pinCount])
    }

    func delete(id: UUID) throws {
        try db.run("DELETE FROM cities WHERE id = ?", [id.uuidString.lowercased()])
    }
}

struct SQLiteMountainRepository: MountainRepository {
    let db: Connection

    private func row(_ s: Statement) -> Mountain {
        Mountain(id: UUID(uuidString: s.string(0)) ?? UUID(), name: s.string(1), height: s.optionalDouble(2),
                 coordinate: Coordinate(latitude: s.double(3), longitude: s.double(4)), pinCount: s.int(5))
    }

    private static let select = "SELECT id, name, height, latitude, longitude, pin_count FROM mountains"

    func fetch(id: UUID) throws -> Mountain? {
        try db.query("\(Self.select) WHERE id = ?", [id.uuidString.lowercased()], row).first
    }

    func find(key: SharedPlaceKey) throws -> Mountain? {
        try db.query("\(Self.select) WHERE name = ? AND lat_e4 = ? AND lon_e4 = ?",
                     [key.name, key.latitudeE4, key.longitudeE4], row).first
    }

    func fetchAll() throws -> [Mountain] { try db.query("\(Self.select) ORDER BY name", [], row) }

    func save(_ m: Mountain) throws {
        let key = SharedPlaceKey(name: m.name, coordinate: m.coordinate)
        try db.run("""
            INSERT INTO mountains (id, name, height, lat_e4, lon_e4, latitude, longitude, pin_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(id) DO UPDATE SET name = excluded.name, height = excluded.height, lat_e4 = excluded.lat_e4,
                lon_e4 = excluded.lon_e4, latitude = excluded.latitude, longitude = excluded.longitude,
                pin_count = excluded.pin_count
            """, [m.id.uuidString.lowercased(), key.name, m.height, key.latitudeE4, key.longitudeE4,
                  m.coordinate.latitude, m.coordinate.longitude, m.pinCount])
    }

    func delete(id: UUID) throws {
        try db.run("DELETE FROM mountains WHERE id = ?", [id.uuidString.lowercased()])
    }
}

struct SQLiteSettingsRepository: SettingsRepository {
    let db: Connection

    func load() throws -> Settings {
        var settings = Settings()
        for (key, value) in try db.query("SELECT key, value FROM settings", [], { ($0.string(0), $0.string(1)) }) {
            switch key {
            case "defaultPinColor": settings.defaultPinColor = value
            case "mapFillColor": settings.mapFillColor = value
            case "mapStyle": settings.mapStyle = Settings.MapStyle(rawValue: value) ?? .standard
            default: break
            }
        }
        return settings
    }

    func save(_ settings: Settings) throws {
        for (key, value) in [("defaultPinColor", settings.defaultPinColor), ("mapFillColor", settings.mapFillColor),
                             ("mapStyle", settings.mapStyle.rawValue)] {
            try db.run("INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                       [key, value])
        }
    }
}
