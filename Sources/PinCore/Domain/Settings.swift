/// User settings, as in the app's Settings tab.
public struct Settings: Codable, Sendable, Hashable {
    public static let defaultPinColor = "#E53935"

    /// The map page's palettes: light (the default), dark, and print (black on white, for paper).
    public enum MapStyle: String, Codable, Sendable, CaseIterable {
        case light, dark, print

        /// A stored value; the seed's "standard", "satellite" and "hybrid" (never offered by
        /// pins, which draws no satellite imagery) read as light.
        public init(stored: String) {
            self = MapStyle(rawValue: stored) ?? .light
        }
    }

    public var defaultPinColor: String
    public var mapFillColor: String
    public var mapStyle: MapStyle
    /// What the share of countries visited counts against (`pins stats`, the page).
    public var countryList: CountryList

    public init(defaultPinColor: String = Settings.defaultPinColor, mapFillColor: String = "#43A047",
                mapStyle: MapStyle = .light, countryList: CountryList = .iso) {
        self.defaultPinColor = defaultPinColor
        self.mapFillColor = mapFillColor
        self.mapStyle = mapStyle
        self.countryList = countryList
    }

    /// `#RRGGBB` (case-insensitive) → normalised upper-case form, or nil.
    public static func normalizedColor(_ text: String) -> String? {
        var hex = Substring(text)
        if hex.hasPrefix("#") { hex = hex.dropFirst() }
        guard hex.count == 6, hex.allSatisfy({ $0.isHexDigit }) else { return nil }
        return "#" + hex.uppercased()
    }
}
