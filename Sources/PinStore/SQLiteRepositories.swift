import Foundation
import PinCore

/// The repositories over one connection; used only inside a transaction of PinDatabase.
struct SQLiteRepositories: Repositories {
    let connection: Connection

    var locations: LocationRepository { SQLiteLocationRepository(db: connection) }
    var countries: CountryRepository { SQLiteCountryRepository(db: connection) }
    func sharedPlaces<Place: SharedPlace>(_ type: Place.Type) -> any SharedPlaceRepository<Place> {
        SQLiteSharedPlaceRepository<Place>(db: connection)
    }
    var settings: SettingsRepository { SQLiteSettingsRepository(db: connection) }
    var photos: PhotoRepository { SQLitePhotoRepository(db: connection) }
    var runs: RunRepository { SQLiteRunRepository(db: connection) }
    var tracks: TrackRepository { SQLiteTrackRepository(db: connection) }
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

/// A stored id; one that is not a UUID means the file was changed by something else than pins.
/// The same from a statement's column, parsed from its bytes (`Statement.uuid`).
private func storedID(_ s: Statement, _ column: Int32, in table: String, _ db: Connection) throws -> UUID {
    if let id = s.uuid(column) { return id }
    return try storedID(s.string(column), in: table, db)
}

private func storedID(_ text: String, in table: String, _ db: Connection) throws -> UUID {
    guard let id = UUID(uuidString: text) else {
        throw StorageError(.read, path: db.path, reason: .other("\(table) holds an id that is not a UUID: '\(text)'"))
    }
    return id
}

extension Connection {
    /// Runs a plain INSERT of a new record: an id already stored is `.idTaken`, never an overwrite.
    func insertNew(_ sql: String, _ values: [SQLBindable], table: String, id: UUID) throws {
        do {
            try run(sql, values)
        } catch let error as StorageError where error.cause?.code == SQLITE_CONSTRAINT_PRIMARYKEY {
            throw StorageError(.write, path: path, reason: .idTaken(table: table, id: id.lowercasedText), cause: error.cause)
        }
    }

    /// Runs an UPDATE of one stored record: a record that is not stored is `.notStored`.
    func updateExisting(_ sql: String, _ values: [SQLBindable], table: String, id: UUID) throws {
        if try run(sql, values) == 0 {
            throw StorageError(.write, path: path, reason: .notStored(table: table, id: id.lowercasedText))
        }
    }
}

struct SQLiteLocationRepository: LocationRepository {
    let db: Connection

    /// An imported pin stored before it kept its own offset takes its photo's.
    static let columns = """
        id, title, latitude, longitude, country_id, type, type_data, date, color, visit_count, note, tags, photo_ids,
        coalesce(utc_offset, (SELECT p.utc_offset FROM photos p WHERE p.location_id = locations.id
            AND p.decision = 'accepted' AND p.utc_offset IS NOT NULL ORDER BY p.path LIMIT 1)), edited_at, run_id,
        place, place_id, region, region_code, places_resolved, visits_by_hand,
        (SELECT count(*) FROM photos p WHERE p.pin = locations.rowid), wanted
        """

    func row(_ s: Statement) throws -> Location {
        // A type pins does not know is a point, as it always was.
        let visitType = LocationTypeSelection(rawValue: s.string(5))?.visitType
        let type = try visitType.map { try decode($0, s.string(6)).locationType } ?? .point
        var location = Location(
            id: try storedID(s, 0, in: "locations", db),
            title: s.string(1),
            coordinate: Coordinate(latitude: s.double(2), longitude: s.double(3)),
            countryID: s.optionalString(4), type: type,
            date: Date(timeIntervalSince1970: s.double(7)), color: s.string(8), visitCount: s.int(9),
            note: s.optionalString(10),
            tags: try s.optionalString(11).map { try decode([String].self, $0) },
            photoIDs: try decode([String].self, s.string(12)),
            runID: s.isNull(15) ? nil : s.int64(15))
        location.utcOffsetSeconds = s.isNull(13) ? nil : s.int(13)
        location.editedAt = s.optionalDouble(14).map(Date.init(timeIntervalSince1970:))
        location.place = s.optionalString(16)
        location.placeID = s.isNull(17) ? nil : s.int(17)
        location.region = s.optionalString(18)
        location.regionCode = s.optionalString(19)
        location.placesResolved = s.int(20) != 0
        location.visitsByHand = s.int(21) != 0
        location.photoCount = s.int(22)
        location.wanted = s.int(23) != 0
        return location
    }

    func fetch(id: UUID) throws -> Location? {
        try db.query("SELECT \(Self.columns) FROM locations WHERE id = ?", [id.lowercasedText], row).first
    }

    func ownUTCOffset(id: UUID) throws -> Int? {
        try db.query("SELECT utc_offset FROM locations WHERE id = ?", [id.lowercasedText]) { $0.isNull(0) ? nil : $0.int(0) }.first ?? nil
    }

    func fetchAll(countryID: String?) throws -> [Location] {
        if let countryID {
            return try db.query("SELECT \(Self.columns) FROM locations WHERE country_id = ? ORDER BY date, id", [countryID], row)
        }
        return try db.query("SELECT \(Self.columns) FROM locations ORDER BY date, id", [], row)
    }

    func fetchCoordinates() throws -> [(id: UUID, title: String, coordinate: Coordinate, wanted: Bool)] {
        try db.query("SELECT id, title, latitude, longitude, wanted FROM locations ORDER BY created_at, id", []) { s in
            (try storedID(s, 0, in: "locations", db), s.string(1), Coordinate(latitude: s.double(2), longitude: s.double(3)), s.int(4) != 0)
        }
    }

    /// The columns after the id, in the order of `insert` and `update`.
    private func values(_ l: Location) throws -> [SQLBindable] {
        let typeData = try l.type.sharedVisit.map { try json($0) }
        return [l.title, l.coordinate.latitude, l.coordinate.longitude, l.countryID, l.type.selection.rawValue, typeData,
                l.date.timeIntervalSince1970, l.color, l.visitCount, l.note, try l.tags.map { try json($0) },
                try json(l.photoIDs), l.utcOffsetSeconds, l.editedAt?.timeIntervalSince1970,
                l.place, l.placeID, l.region, l.regionCode, l.placesResolved ? 1 : 0, l.visitsByHand ? 1 : 0, l.wanted ? 1 : 0]
    }

    func insert(_ l: Location) throws {
        try db.insertNew("""
            INSERT INTO locations (id, title, latitude, longitude, country_id, type, type_data, date, color,
                                   visit_count, note, tags, photo_ids, utc_offset, edited_at,
                                   place, place_id, region, region_code, places_resolved, visits_by_hand, wanted, created_at, run_id)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [l.id.lowercasedText] + (try values(l)) + [Date().timeIntervalSince1970, l.runID], table: "locations", id: l.id)
    }

    func update(_ l: Location) throws {
        try db.updateExisting("""
            UPDATE locations SET title = ?, latitude = ?, longitude = ?, country_id = ?, type = ?, type_data = ?,
                date = ?, color = ?, visit_count = ?, note = ?, tags = ?, photo_ids = ?, utc_offset = ?, edited_at = ?,
                place = ?, place_id = ?, region = ?, region_code = ?, places_resolved = ?, visits_by_hand = ?, wanted = ?
            WHERE id = ?
            """, (try values(l)) + [l.id.lowercasedText], table: "locations", id: l.id)
    }

    func delete(id: UUID) throws {
        try db.run("DELETE FROM locations WHERE id = ?", [id.lowercasedText])
        db.forgetPinRow(id)
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

/// The one repository of every shared-object type, over the table the registry names for it.
struct SQLiteSharedPlaceRepository<Place: SharedPlace>: SharedPlaceRepository {
    let db: Connection

    /// The shared columns after the id, as `values` gives them; then the type's own (declared
    /// by the shared object, `SharedPlace.ownColumns`).
    private static var ownColumns: [String] { Place.ownColumns.map(\.name) }
    private static var columns: [String] { ["name", "lat_e4", "lon_e4", "latitude", "longitude", "pin_count"] + ownColumns }
    private static var table: String { Place.pinType.shared!.table }
    private static var select: String {
        "SELECT " + (["id", "name", "latitude", "longitude", "pin_count"] + ownColumns).joined(separator: ", ") + " FROM \(table)"
    }

    private func row(_ s: Statement) throws -> Place {
        Place(id: try storedID(s.string(0), in: Self.table, db), name: s.string(1),
              coordinate: Coordinate(latitude: s.double(2), longitude: s.double(3)), pinCount: s.int(4),
              own: Place.ownColumns.enumerated().map { i, column -> ColumnValue in
                  let at = Int32(5 + i)
                  switch column.kind {
                  case .integer: return .integer(s.isNull(at) ? nil : s.int(at))
                  case .real: return .real(s.optionalDouble(at))
                  }
              })
    }

    func fetch(id: UUID) throws -> Place? {
        try db.query("\(Self.select) WHERE id = ?", [id.lowercasedText], row).first
    }

    func find(key: SharedPlaceKey) throws -> Place? {
        try db.query("\(Self.select) WHERE name = ? AND lat_e4 = ? AND lon_e4 = ?",
                     [key.name, key.latitudeE4, key.longitudeE4], row).first
    }

    func fetchAll() throws -> [Place] { try db.query("\(Self.select) ORDER BY name", [], row) }

    private func values(_ p: Place) -> [SQLBindable] {
        let key = SharedPlaceKey(name: p.name, coordinate: p.coordinate)
        return [key.name, key.latitudeE4, key.longitudeE4, p.coordinate.latitude, p.coordinate.longitude, p.pinCount]
            + p.ownValues.map { value -> SQLBindable in
                switch value {
                case let .integer(v): v
                case let .real(v): v
                }
            }
    }

    func insert(_ p: Place) throws {
        let marks = Array(repeating: "?", count: Self.columns.count + 1).joined(separator: ", ")
        try db.insertNew("INSERT INTO \(Self.table) (id, \(Self.columns.joined(separator: ", "))) VALUES (\(marks))",
                         [p.id.lowercasedText] + values(p), table: Self.table, id: p.id)
    }

    func update(_ p: Place) throws {
        let sets = Self.columns.map { "\($0) = ?" }.joined(separator: ", ")
        try db.updateExisting("UPDATE \(Self.table) SET \(sets) WHERE id = ?", values(p) + [p.id.lowercasedText], table: Self.table, id: p.id)
    }

    func delete(id: UUID) throws {
        try db.run("DELETE FROM \(Self.table) WHERE id = ?", [id.lowercasedText])
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
            case "mapStyle": settings.mapStyle = Settings.MapStyle(stored: value)
            case "countryList": settings.countryList = CountryList(rawValue: value) ?? .iso
            default: break
            }
        }
        return settings
    }

    func save(_ settings: Settings) throws {
        for (key, value) in [("defaultPinColor", settings.defaultPinColor), ("mapFillColor", settings.mapFillColor),
                             ("mapStyle", settings.mapStyle.rawValue), ("countryList", settings.countryList.rawValue)] {
            try db.run("INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                       [key, value])
        }
    }
}
