import Foundation
import PinCore

/// Schema 9 (issue 38): before, the country outlines drew Réunion, French Guiana, Guadeloupe,
/// Martinique and Mayotte inside France's, Svalbard, Jan Mayen and Bouvet inside Norway's,
/// Bonaire, Sint Eustatius and Saba inside the Netherlands', Christmas Island and the Cocos
/// Islands inside Australia's and Tokelau inside New Zealand's, so a pin there was stored with
/// the sovereign's code. ISO 3166-1 (and Countries.json) gives each its own code and continent,
/// and the outlines now do too (scripts/build-countries): this moves those pins.
///
/// Which pins: those of the sovereign's code inside the part's box. Each box holds the part's
/// outline and 22 km around it (the coastal rule's reach), and lies hundreds of km or more from
/// the sovereign's other land (Svalbard's box 315 km from Finnmark, the nearest), so a pin of
/// that code inside it can only be a pin the outlines now give the part: the same answer as
/// resolving it again, without the data files, so a read-only open (migrated in memory) shows
/// it too. `OverseasCountriesTests` checks each box against the shipped outlines.
///
/// The pin's place and region stay (they were the part's own already: Cayenne's GeoNames
/// country is GF); a title pins made ("Saint-Denis, France", or "France, 2019-04-02" from before
/// places) names the new country, only for a photo pin never edited (as `PlaceBackfill`); the
/// countries table's counts follow (a country left with no pin loses its row, as when its last
/// pin is deleted).
enum OverseasCountries {
    struct Part {
        let code: String, sovereign: String, name: String, continent: String
        /// south, west, north, east (degrees)
        let box: (Double, Double, Double, Double)
    }

    /// Names and continents as Countries.json has them (checked by the tests).
    static let parts: [Part] = [
        Part(code: "BQ", sovereign: "NL", name: "Bonaire, Sint Eustatius and Saba", continent: "North America", box: (11.7, -68.7, 17.9, -62.6)),
        Part(code: "BV", sovereign: "NO", name: "Bouvet Island", continent: "South America", box: (-54.8, 2.9, -54.1, 4.0)),
        Part(code: "CC", sovereign: "AU", name: "Cocos (Keeling) Islands", continent: "Oceania", box: (-12.5, 96.5, -11.8, 97.2)),
        Part(code: "CX", sovereign: "AU", name: "Christmas Island", continent: "Oceania", box: (-10.9, 105.3, -10.1, 106.0)),
        Part(code: "GF", sovereign: "FR", name: "French Guiana", continent: "South America", box: (1.8, -54.9, 6.0, -51.3)),
        Part(code: "GP", sovereign: "FR", name: "Guadeloupe", continent: "North America", box: (15.5, -62.1, 16.8, -60.7)),
        Part(code: "MQ", sovereign: "FR", name: "Martinique", continent: "North America", box: (14.1, -61.5, 15.2, -60.5)),
        Part(code: "RE", sovereign: "FR", name: "Réunion", continent: "Africa", box: (-21.7, 54.9, -20.6, 56.2)),
        Part(code: "SJ", sovereign: "NO", name: "Svalbard and Jan Mayen", continent: "Europe", box: (74.0, 8.9, 81.1, 35.2)),
        Part(code: "SJ", sovereign: "NO", name: "Svalbard and Jan Mayen", continent: "Europe", box: (70.5, -9.9, 71.5, -7.1)),
        Part(code: "TK", sovereign: "NZ", name: "Tokelau", continent: "Oceania", box: (-9.7, -172.8, -8.2, -170.9)),
        Part(code: "YT", sovereign: "FR", name: "Mayotte", continent: "Africa", box: (-13.3, 44.7, -12.3, 45.6)),
    ]

    /// The sovereigns' names as pins titled their pins (Countries.json's).
    static let sovereignNames = ["AU": "Australia", "FR": "France", "NL": "Netherlands", "NO": "Norway", "NZ": "New Zealand"]
    static let sovereignContinents = ["AU": "Oceania", "FR": "Europe", "NL": "Europe", "NO": "Europe", "NZ": "Oceania"]

    /// The code the part's outline gives a pin stored as `sovereign` at the point, or nil.
    static func part(of sovereign: String, latitude: Double, longitude: Double) -> Part? {
        parts.first { p in
            p.sovereign == sovereign && latitude >= p.box.0 && latitude <= p.box.2 && longitude >= p.box.1 && longitude <= p.box.3
        }
    }

    @Sendable static func migrate(_ db: Connection) throws {
        let rows = try db.query("""
            SELECT id, title, latitude, longitude, country_id, place, region, photo_ids, edited_at FROM locations
            WHERE country_id IN ('AU', 'FR', 'NL', 'NO', 'NZ')
            """) { s in
            (id: s.string(0), title: s.string(1), latitude: s.double(2), longitude: s.double(3), country: s.string(4),
             place: PinPlace(place: s.optionalString(5), region: s.optionalString(6)),
             fromPhotos: s.string(7) != "[]" && !s.string(7).isEmpty, edited: !s.isNull(8))
        }
        var touched = Set<String>()
        for row in rows {
            guard let part = part(of: row.country, latitude: row.latitude, longitude: row.longitude) else { continue }
            var title = row.title
            if row.fromPhotos, !row.edited, let old = sovereignNames[row.country] {
                title = retitled(row.title, place: row.place, from: old, to: part.name)
            }
            // The row first: locations.country_id references it.
            try db.run("INSERT OR IGNORE INTO countries (id, name, continent, pin_count) VALUES (?, ?, ?, 0)",
                       [part.code, part.name, part.continent])
            try db.run("UPDATE locations SET country_id = ?, title = ? WHERE id = ?", [part.code, title, row.id])
            touched.formUnion([row.country, part.code])
        }
        for code in touched.sorted() { try recount(code, db) }
    }

    /// The title pins would give the pin in its new country, when it is the one pins gave it in
    /// the old: "Saint-Denis, France" (PinPlace.title), or "France, 2019-04-02" (before places,
    /// which PlaceBackfill then makes "Saint-Denis, Réunion"). Any other title stays.
    static func retitled(_ title: String, place: PinPlace, from old: String, to new: String) -> String {
        if title == place.title(countryName: old) { return place.title(countryName: new) }
        let prefix = old + ", "
        if title.hasPrefix(prefix) {
            let day = Array(title.dropFirst(prefix.count).utf8)
            let isDate = day.count == 10 && day.indices.allSatisfy { i in
                i == 4 || i == 7 ? day[i] == UInt8(ascii: "-") : day[i] &- UInt8(ascii: "0") < 10
            }
            if isDate { return new + ", " + String(decoding: day, as: UTF8.self) }
        }
        return title
    }

    /// The country's row holds its pins' count again; a new part gets its row, a country with
    /// no pin left loses it.
    static func recount(_ code: String, _ db: Connection) throws {
        let count = try db.scalarInt("SELECT count(*) FROM locations WHERE country_id = ?", [code]) ?? 0
        if count == 0 {
            try db.run("DELETE FROM countries WHERE id = ?", [code])
            return
        }
        let part = parts.first { $0.code == code }
        try db.run("""
            INSERT INTO countries (id, name, continent, pin_count) VALUES (?, ?, ?, ?)
            ON CONFLICT(id) DO UPDATE SET pin_count = excluded.pin_count
            """, [code, part?.name ?? sovereignNames[code] ?? code, part?.continent ?? sovereignContinents[code] ?? "", count])
    }
}
