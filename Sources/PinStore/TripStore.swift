import Foundation
import PinCore

/// What the trip finder reads (the pins, and the photos that made no pin of their own) and what
/// the person says of trips (a home they set, the names they gave), kept in `settings`: no new
/// table, so the database stays readable by an older pins.
extension PinDatabase {
    static let homeLatitudeKey = "trips.homeLatitude", homeLongitudeKey = "trips.homeLongitude"
    static let tripNamesKey = "trips.names"

    /// Every pin, and one point per local day and ~1 km cell (0.01°) of the photos that a pin
    /// near them stands for (skipped for distance or interval): those photos are the days a
    /// person spent at a place they had already pinned, at home above all. A photo point takes
    /// the country and place of the nearest pin within 10 km (a photo skipped for distance is
    /// within 5 km of one by the rule), else none.
    public func tripPoints() throws -> [TripPoint] {
        try tripPoints(in: nil)
    }

    /// `tripPoints()` of the pins and photos whose instant lies in `window` (all when nil):
    /// what one pin's trip is found from (`PinApp.tripOfPin`), read by the dates alone. A photo
    /// point still takes its country and place from the nearest of every pin, as in
    /// `tripPoints()` (a photo at home is near a pin made years before).
    public func tripPoints(in window: ClosedRange<Date>?) throws -> [TripPoint] {
        try read { _ in try readTripPoints(in: window) }
    }

    /// `tripPoints(in:)`, unless `known` says the trips of their inputs are known already: the
    /// inputs are hashed as they are read (`tripInputs`), no point made, and the points are read
    /// only when `known` says no, in the same read of the database. pins serve finds the trips
    /// again after every change: reading 100,000 pins' points (10 MB at once) to learn that a
    /// title edit left them as they were was most of it.
    public func tripPoints(in window: ClosedRange<Date>?, latest: Date,
                           unless known: (TripInputs) -> Bool) throws -> (inputs: TripInputs, points: [TripPoint]?) {
        try read { _ in
            let inputs = try tripInputs(in: window, latest: latest)
            return (inputs, known(inputs) ? nil : try readTripPoints(in: window))
        }
    }

    /// Everything `readTripPoints(in:)` reads, hashed: each pin's row and each photo's row of
    /// its queries as stored, with whether the row's instant is at most `latest` (the trip
    /// finder's `now` a day on: a point past it is not yet a day of a trip), and, for a window
    /// with photos, every pin's row (their nearest pin is any pin). Equal inputs give equal
    /// points; the rows' order is the table's, so a file rewritten (VACUUM) may hash otherwise,
    /// which only finds the same trips once more.
    private func tripInputs(in window: ClosedRange<Date>?, latest: Date) throws -> TripInputs {
        var hasher = Hasher()
        var count = try hashRows(Self.tripPinsQuery(window), instantColumn: 3, latest: latest, into: &hasher)
        let photos = try hashRows(Self.tripPhotosQuery(window), instantColumn: 0, latest: latest, into: &hasher)
        count += photos
        if window != nil, photos > 0 { count += try hashRows(Self.tripPinsQuery(nil), instantColumn: 3, latest: latest, into: &hasher) }
        return TripInputs(count: count, hash: hasher.finalize())
    }

    private func hashRows(_ query: (sql: String, values: [SQLBindable]), instantColumn: Int32, latest: Date,
                          into hasher: inout Hasher) throws -> Int {
        let statement = try connection.prepare(query.sql)
        try statement.bind(query.values)
        let columns = statement.columnCount, bound = latest.timeIntervalSince1970
        var rows = 0
        while try statement.step() {
            for column in 0..<columns { statement.hash(column, into: &hasher) }
            hasher.combine(statement.double(instantColumn) <= bound)
            rows += 1
        }
        hasher.combine(rows)
        return rows
    }

    /// The photos that make trip points: skipped for distance or interval, with an instant and
    /// a position (in `window` when one is given).
    private static func tripPhotosQuery(_ window: ClosedRange<Date>?) -> (sql: String, values: [SQLBindable]) {
        ("""
            SELECT taken_at, utc_offset, latitude, longitude FROM photos
            WHERE decision IN ('distance', 'interval') AND missing = 0 AND taken_at IS NOT NULL
              AND latitude IS NOT NULL AND longitude IS NOT NULL
            """ + (window == nil ? "" : " AND taken_at BETWEEN ? AND ?"), bounds(window))
    }

    private static func bounds(_ window: ClosedRange<Date>?) -> [SQLBindable] {
        window.map { [$0.lowerBound.timeIntervalSince1970, $0.upperBound.timeIntervalSince1970] } ?? []
    }

    /// `tripPoints(in:)` within a read of the database.
    private func readTripPoints(in window: ClosedRange<Date>?) throws -> [TripPoint] {
        var points = try tripPins(in: window)
        // One point per local day, offset and 0.01° cell (rounded half up), its earliest photo:
        // grouped here, not by SQL (GROUP BY sorted 200,000 rows in a temporary b-tree: the most
        // of `pins trips`' time), in the order GROUP BY gave them (by day, offset, cell).
        struct Cell: Hashable { let day: Int, offset: Int?, latitude: Int, longitude: Int }
        var earliest: [Cell: Double] = [:]
        let query = Self.tripPhotosQuery(window)
        let statement = try connection.prepare(query.sql)
        try statement.bind(query.values)
        while try statement.step() {
            let at = statement.double(0), offset = statement.isNull(1) ? nil : statement.int(1)
            let latitude = statement.double(2), longitude = statement.double(3)
            guard at.isFinite, abs(latitude) <= 90, abs(longitude) <= 180, abs(at) < 1e15 else { continue }
            // As SQLite's CAST(x AS INTEGER): truncated towards zero.
            let cell = Cell(day: Int(saturating: (at + Double(offset ?? 0)) / 86_400), offset: offset,
                            latitude: Int(latitude * 100 + 100_000.5) - 100_000, longitude: Int(longitude * 100 + 100_000.5) - 100_000)
            if let known = earliest[cell], known <= at { continue }
            // Sized at the first photo (a database of pins alone holds none: 6 MB for nothing
            // at each finding of the trips, after each edit in pins serve).
            if earliest.isEmpty { earliest.reserveCapacity(1 << 16) }
            earliest[cell] = at
        }
        let photos = earliest.sorted { a, b in
            (a.key.day, a.key.offset ?? Int.min, a.key.latitude, a.key.longitude) < (b.key.day, b.key.offset ?? Int.min, b.key.latitude, b.key.longitude)
        }.map { cell, at in
            (Date(timeIntervalSince1970: at), cell.offset,
             Coordinate(latitude: Double(cell.latitude) / 100, longitude: Double(cell.longitude) / 100))
        }
        guard !photos.isEmpty else { return points }
        points.reserveCapacity(points.count + photos.count)
        var nearest = NearestPin(window == nil ? points : try tripPins(in: nil))
        for (instant, offset, coordinate) in photos where coordinate.isValid {
            let pin = nearest.pin(near: coordinate, withinKm: 10)
            points.append(TripPoint(instant: instant, utcOffsetSeconds: offset, coordinate: coordinate,
                                    country: pin?.country, place: pin?.place, pinID: nil))
        }
        return points
    }

    /// The file of a photo point (`tripPoints`: the earliest photo of its day and 0.01° cell),
    /// nil when none is found: what `pins trips` names for a photo it leaves out.
    public func photoPath(of point: TripPoint) throws -> RawPath? {
        try read { _ in
            try connection.query("""
                SELECT path FROM photos
                WHERE decision IN ('distance', 'interval') AND missing = 0 AND taken_at = ?
                  AND abs(latitude - ?) <= 0.0051 AND abs(longitude - ?) <= 0.0051
                ORDER BY path LIMIT 1
                """, [point.instant.timeIntervalSince1970, point.coordinate.latitude, point.coordinate.longitude]) {
                RawPath(bytes: $0.blob(0))
            }.first
        }
    }

    /// Every pin as a trip point, read with only the columns a trip needs (not whole Locations:
    /// their tags, notes and photo ids decoded for nothing were half of `pins trips`' time).
    /// The offset is the pin's own, else its photo's, as `Location.utcOffsetSeconds` reads it.
    /// The visited pins: a place someone only wants to go (`wanted`) is no stop of a trip.
    /// In `window` (by the pin's date) when one is given.
    private func tripPins(in window: ClosedRange<Date>?) throws -> [TripPoint] {
        // Every pin's point at 100,000 pins is 14 MB: made at its size (grown by doubling, half
        // as much again at once, after each edit in pins serve).
        let count = window == nil ? try connection.scalarInt("SELECT count(*) FROM locations WHERE wanted = 0") ?? 0 : 0
        let query = Self.tripPinsQuery(window)
        return try connection.query(query.sql, query.values, capacity: Int(count)) { s in
            guard let id = s.uuid(0) else {
                throw StorageError(.read, path: connection.path, reason: .other("locations holds an id that is not a UUID: '\(s.string(0))'"))
            }
            // The place as `placeName(of:)` says it: the gazetteer's, else a City pin's city, else the region.
            var place = s.optionalString(6)
            if place == nil, s.string(8) == "city",
               let city = try? JSONDecoder().decode(CityVisitData.self, from: Data(s.string(9).utf8)) {
                place = city.cityName
            }
            return TripPoint(instant: Date(timeIntervalSince1970: s.double(3)), utcOffsetSeconds: s.isNull(4) ? nil : s.int(4),
                             coordinate: Coordinate(latitude: s.double(1), longitude: s.double(2)),
                             country: s.optionalString(5), place: place ?? s.optionalString(7), pinID: id)
        }
    }

    /// The visited pins' columns a trip point is made of (in `window` by their date when one is given).
    private static func tripPinsQuery(_ window: ClosedRange<Date>?) -> (sql: String, values: [SQLBindable]) {
        ("""
            SELECT id, latitude, longitude, date,
                   coalesce(utc_offset, (SELECT p.utc_offset FROM photos p WHERE p.location_id = locations.id
                       AND p.decision = 'accepted' AND p.utc_offset IS NOT NULL ORDER BY p.path LIMIT 1)),
                   country_id, place, region, type, type_data
            FROM locations WHERE wanted = 0
            """ + (window == nil ? "" : " AND date BETWEEN ? AND ?"), bounds(window))
    }

    /// The town a pin is in, for a trip's list of places: the gazetteer's place; else a City
    /// pin's city; else its region (a pin 80 km into the outback has a region but no town).
    public static func placeName(of pin: Location) -> String? {
        if let place = pin.place { return place }
        if case let .city(visit) = pin.type { return visit.cityName }
        return pin.region
    }

    /// The home the person set, or nil (found from the data).
    public func tripHome() throws -> Coordinate? {
        let lat = try setting(Self.homeLatitudeKey).flatMap(Double.init)
        let lon = try setting(Self.homeLongitudeKey).flatMap(Double.init)
        guard let lat, let lon else { return nil }
        return Coordinate(latitude: lat, longitude: lon)
    }

    public func setTripHome(_ home: Coordinate?) throws {
        try connection.transaction {
            try setSetting(Self.homeLatitudeKey, home.map { String($0.latitude) })
            try setSetting(Self.homeLongitudeKey, home.map { String($0.longitude) })
        }
    }

    /// The names the person gave trips, with the days each named trip had then.
    public func tripNames() throws -> [TripName] {
        guard let text = try setting(Self.tripNamesKey), let data = text.data(using: .utf8),
              let list = try? JSONSerialization.jsonObject(with: data) as? [[String: String]] else { return [] }
        return list.compactMap { entry in
            guard let s = entry["start"].flatMap(LocalDay.init(text:)), let e = entry["end"].flatMap(LocalDay.init(text:)),
                  let name = entry["name"] else { return nil }
            return TripName(start: s, end: e, name: name)
        }
    }

    /// Names the trip from `start` to `end` (nil: gives it back its own title), replacing any
    /// name of a trip that overlaps it.
    public func nameTrip(start: LocalDay, end: LocalDay, name: String?) throws {
        try connection.transaction {
            var names = try tripNames().filter { $0.end < start || $0.start > end }
            if let name { names.append(TripName(start: start, end: end, name: name)) }
            names.sort { $0.start < $1.start }
            let list = names.map { ["start": $0.start.description, "end": $0.end.description, "name": $0.name] }
            let data = try JSONSerialization.data(withJSONObject: list, options: [.sortedKeys])
            try setSetting(Self.tripNamesKey, names.isEmpty ? nil : String(decoding: data, as: UTF8.self))
        }
    }

    private func setting(_ key: String) throws -> String? {
        try connection.query("SELECT value FROM settings WHERE key = ?", [key]) { $0.string(0) }.first
    }

    private func setSetting(_ key: String, _ value: String?) throws {
        if let value {
            try connection.run("INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                               [key, value])
        } else {
            try connection.run("DELETE FROM settings WHERE key = ?", [key])
        }
    }
}

/// What the trip points of a database were read from, hashed (`PinDatabase.tripPoints(in:latest:unless:)`):
/// how many rows and their 64-bit hash.
public struct TripInputs: Equatable, Sendable {
    public let count: Int
    public let hash: Int
}

/// The nearest pin to a photo's cell: a 0.1° grid of the pins' positions, and each photo cell
/// (0.01°, as the query rounds them) answered once: years of photos at home are a few dozen
/// cells, whatever the number of days.
private struct NearestPin {
    private var cells: [Int64: [Int32]] = [:]
    private let coordinates: [Coordinate]
    private let labels: [(country: String?, place: String?)]
    private var answered: [Coordinate: Int32] = [:]

    init(_ pins: [TripPoint]) {
        coordinates = pins.map(\.coordinate)
        labels = pins.map { ($0.country, $0.place) }
        for (i, c) in coordinates.enumerated() { cells[Self.key(Self.cell(c)), default: []].append(Int32(i)) }
    }

    private static func cell(_ c: Coordinate) -> (Int, Int) {
        (Int(saturating: (c.latitude * 10).rounded(.down)), Int(saturating: (c.longitude * 10).rounded(.down)))
    }

    private static func key(_ cell: (Int, Int)) -> Int64 {
        Int64(cell.0) << 32 | Int64(((cell.1 % 3600) + 3600) % 3600)
    }

    /// Within `km` (≤ 11 km: one cell around), the nearest pin's country and place.
    mutating func pin(near c: Coordinate, withinKm km: Double) -> (country: String?, place: String?)? {
        if let known = answered[c] { return known < 0 ? nil : labels[Int(known)] }
        let (la, lo) = Self.cell(c)
        // A 0.1° cell of longitude narrows towards the poles: look as many cells wide as 11 km needs.
        let wide = Int(saturating: (1 / max(0.05, cos(c.latitude * .pi / 180))).rounded(.up))
        // Ranked in the photo's own equirectangular projection (no trigonometry per pin: a home
        // cell holds thousands of pins); the nearest is then checked on the sphere.
        let cosPhi = cos(c.latitude * .pi / 180)
        var best: Int32 = -1, bestSquare = Double.infinity
        for dla in -1...1 {
            for dlo in -wide...wide {
                for i in cells[Self.key((la + dla, lo + dlo))] ?? [] {
                    let p = coordinates[Int(i)]
                    var dx = p.longitude - c.longitude
                    if dx > 180 { dx -= 360 } else if dx < -180 { dx += 360 }
                    let dy = p.latitude - c.latitude, square = dx * dx * cosPhi * cosPhi + dy * dy
                    if square < bestSquare { best = i; bestSquare = square }
                }
            }
        }
        if best >= 0, AngularDistance.kilometres(c, coordinates[Int(best)]) > km { best = -1 }
        answered[c] = best
        return best >= 0 ? labels[Int(best)] : nil
    }
}
