/// A position on the Earth in degrees (WGS-84 as cameras record it).
public struct Coordinate: Hashable, Codable, Sendable, CustomStringConvertible {
    public var latitude: Double
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Finite, |lat| ≤ 90 and |lon| ≤ 180.
    public var isValid: Bool {
        latitude.isFinite && longitude.isFinite && abs(latitude) <= 90 && abs(longitude) <= 180
    }

    public var description: String {
        "\(formatDegrees(latitude)),\(formatDegrees(longitude))"
    }
}

/// Degrees with 6 decimals (about 0.1 m), without a trailing "-0.000000".
public func formatDegrees(_ value: Double) -> String {
    var text = String(format: "%.6f", value)
    if text == "-0.000000" { text = "0.000000" }
    return text
}
