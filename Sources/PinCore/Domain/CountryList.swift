/// The list the share of countries visited counts against (`pins settings --country-list`):
/// ISO 3166-1's 249 countries and territories (Countries.json less Kosovo's user-assigned XK),
/// or the 193 member states of the United Nations.
public enum CountryList: String, Codable, Sendable, CaseIterable {
    case iso, un

    /// How `pins stats` and the page name it.
    public var title: String { self == .iso ? "ISO 3166-1" : "UN member states" }

    /// The codes of ISO 3166-1 that are no UN member state (56 of 249: 249 − 56 = 193):
    /// dependencies and territories, and the two observer states, Palestine and the Holy See.
    /// Taiwan is no member since 1971.
    static let notUNMembers: Set<String> = [
        "AS", "AI", "AQ", "AW", "AX", "BL", "BM", "BQ", "BV", "CC", "CK", "CW", "CX", "EH", "FK", "FO", "GF", "GG", "GI",
        "GL", "GP", "GS", "GU", "HK", "HM", "IM", "IO", "JE", "KY", "MF", "MO", "MP", "MQ", "MS", "NC", "NF", "NU", "PF",
        "PM", "PN", "PR", "PS", "RE", "SH", "SJ", "SX", "TC", "TF", "TK", "TW", "UM", "VA", "VG", "VI", "WF", "YT",
    ]
    /// Codes of Countries.json outside ISO 3166-1 (user-assigned).
    static let userAssigned: Set<String> = ["XK"]

    /// Whether the list counts the country `code`.
    public func counts(_ code: String) -> Bool {
        guard !Self.userAssigned.contains(code) else { return false }
        return self == .iso || !Self.notUNMembers.contains(code)
    }

    /// How many countries of the catalog the list counts (249 or 193 with the shipped one).
    public func total(in catalog: CountryCatalog) -> Int { catalog.entries.keys.filter(counts).count }
}
