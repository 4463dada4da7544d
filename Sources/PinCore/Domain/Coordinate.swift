import Foundation

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
    // C's snprintf, as `String(format:)` calls it for %f (in the C locale: pins never sets
    // one), without Foundation's format parsing and NSString around it: a report prints two
    // per pin. A finite degree value needs at most 4 + 1 + 6 characters and a sign; the buffer
    // holds any double's %.6f (up to 309 integer digits).
    let text = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 330) { buffer -> String in
        let n = withVaList([value]) { vsnprintf(buffer.baseAddress!, buffer.count, "%.6f", $0) }
        return String(decoding: UnsafeRawBufferPointer(start: buffer.baseAddress!, count: Int(max(0, min(n, Int32(buffer.count - 1))))),
                      as: UTF8.self)
    }
    return text == "-0.000000" ? "0.000000" : text
}
