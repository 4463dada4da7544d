import Foundation
import PinCore

/// Schema 17 (issue 38 item 3): Countries.json named 11 countries by ISO 3166-1's official
/// short forms, which scripts/build-countries now replaces with Natural Earth's English names
/// ("Russian Federation" is "Russia", "Virgin Islands, British" "British Virgin Islands"). The
/// countries table takes the new name, and a title pins made from the old one ("Moscow, Russian
/// Federation", or "Russian Federation, 2019-04-02" from before places) names the new, for a
/// pin never edited (`OverseasCountries.retitled`: any other title stays as the person has it).
enum CountryNames {
    /// Code, the name pins gave it before, the name now (Countries.json's, checked by the tests).
    static let renamed: [(code: String, old: String, new: String)] = [
        ("BN", "Brunei Darussalam", "Brunei"),
        ("CD", "Congo, The Democratic Republic of the", "Democratic Republic of the Congo"),
        ("FK", "Falkland Islands (Malvinas)", "Falkland Islands"),
        ("FM", "Micronesia, Federated States of", "Federated States of Micronesia"),
        ("MF", "Saint Martin (French part)", "Saint Martin"),
        ("PS", "Palestine, State of", "Palestine"),
        ("RU", "Russian Federation", "Russia"),
        ("SX", "Sint Maarten (Dutch part)", "Sint Maarten"),
        ("VA", "Holy See (Vatican City State)", "Vatican City"),
        ("VG", "Virgin Islands, British", "British Virgin Islands"),
        ("VI", "Virgin Islands, U.S.", "United States Virgin Islands"),
    ]

    @Sendable static func migrate(_ db: Connection) throws {
        for (code, old, new) in renamed {
            try db.run("UPDATE countries SET name = ? WHERE id = ? AND name = ?", [new, code, old])
            let rows = try db.query("SELECT id, title, place, region FROM locations WHERE country_id = ? AND edited_at IS NULL", [code]) { s in
                (id: s.string(0), title: s.string(1), place: PinPlace(place: s.optionalString(2), region: s.optionalString(3)))
            }
            for row in rows {
                let title = OverseasCountries.retitled(row.title, place: row.place, from: old, to: new)
                if title != row.title { try db.run("UPDATE locations SET title = ? WHERE id = ?", [title, row.id]) }
            }
        }
    }
}
