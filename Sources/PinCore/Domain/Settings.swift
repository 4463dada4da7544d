/// User settings, as in the app's Settings tab.
public struct Settings: Codable, Sendable, Hashable {
    public static let defaultPinColor = "#E53935"

    public enum MapStyle: String, Codable, Sendable, CaseIterable {
        case standard, satellite, hybrid
    }

    public var defaultPinColor: String
    public var mapFillColor: String
    public var mapStyle: MapStyle

    public init(defaultPinColor: String = Settings.defaultPinColor, mapFillColor: String = "#43A047",
                mapStyle: MapStyle = .standard) {
        self.defaultPinColor = defaultPinColor
        self.mapFillColor = mapFillColor
        self.mapStyle = mapStyle
    }

    /// `#RRGGBB` (case-insensitive) → normalised upper-case form, or nil.
    public static func normalizedColor(_ text: String) -> String? {
        var hex = Substring(text)
        if hex.hasPrefix("#") { hex = hex.dropFirst() }
        guard hex.count == 6, hex.allSatisfy({ $0.isHexDigit }) else { return nil }
        return "#" + hex.uppercased()
    }
}
