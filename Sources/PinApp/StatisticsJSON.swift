import Foundation
import PinCore

extension StatisticsValues {
    /// `pins stats --json` and `pins serve`'s GET /api/stats: one object, so the two say the
    /// same numbers with the same keys.
    public var jsonObject: [String: Any] {
        [
            "countries": countries.map { c -> [String: Any] in
                var entry: [String: Any] = ["id": c.id, "name": c.name, "continent": c.continent, "pinCount": c.pinCount,
                                            "regionsVisited": c.regionsVisited, "placesVisited": c.placesVisited]
                if c.regionCount > 0 { entry["regionCount"] = c.regionCount }
                return entry
            },
            "continents": continents.map { ["name": $0.name, "countryCount": $0.countryCount, "pinCount": $0.pinCount] },
            "countriesVisited": countries.count, "continentsVisited": continents.count,
            "countryList": ["list": countryList, "title": countryListTitle, "total": countryListTotal, "visited": countriesInList],
            "regionsVisited": regionsVisited, "placesVisited": placesVisited,
            "mostVisited": mostVisited.map {
                ["id": $0.id.lowercasedText, "title": $0.title, "visitCount": $0.visitCount, "photoCount": $0.photoCount] as [String: Any]
            },
            "totals": totals,
        ]
    }

    /// The pins, those of each type by its name (every type of the registry, 0 included),
    /// those at sea and the wanted ones.
    private var totals: [String: Any] {
        var totals: [String: Any] = ["pins": totalPins, "withoutCountry": pinsWithoutCountry, "wanted": wantedPins]
        for type in LocationTypeSelection.allCases { totals[type.rawValue] = count(of: type) }
        return totals
    }
}
