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
    let text = fixedSixDecimals(value) ?? printfSixDecimals(value)
    return text == "-0.000000" ? "0.000000" : text
}

/// `value` as C's printf("%.6f") writes it, for |value| < 2³³ (every coordinate): the exact
/// binary value times 10⁶, rounded half to even as glibc rounds it, in integers. A report prints
/// two per pin; `String(format:)` costs a CoreFoundation format and `withVaList` an array of
/// existentials per number. Nil outside that range (`printfSixDecimals` writes those).
func fixedSixDecimals(_ value: Double) -> String? {
    guard value.isFinite, value.magnitude < 8_589_934_592 else { return nil }
    // value = ±m × 2^-k exactly, with m < 2⁵³ and k ≥ 20 (|value| < 2³³).
    let bits = value.magnitude.bitPattern
    let biased = Int(bits >> 52)
    let m = UInt128(biased == 0 ? bits & (1 << 52 - 1) : bits & (1 << 52 - 1) | 1 << 52)
    let k = 1075 - max(1, biased)
    // m × 10⁶ < 2⁷³: beyond 2^-100 the whole value is under half a millionth and rounds to 0.
    let scaled = m * 1_000_000
    var q: UInt64 = 0
    if k <= 100 {
        q = UInt64(scaled >> k)
        let rest = scaled & (UInt128(1) << k - 1), half = UInt128(1) << (k - 1)
        if rest > half || (rest == half && q & 1 == 1) { q += 1 }
    }
    let whole = q / 1_000_000, fraction = q % 1_000_000
    var text = value.sign == .minus ? "-" : ""
    text += String(whole)
    text += "."
    let digits = String(fraction)
    text += String(repeating: "0", count: 6 - digits.utf8.count)
    text += digits
    return text
}

/// C's snprintf("%.6f") itself (in the C locale: pins never sets one), for any double.
func printfSixDecimals(_ value: Double) -> String {
    // Up to 309 integer digits, a sign, a point and 6 decimals.
    withUnsafeTemporaryAllocation(of: CChar.self, capacity: 330) { buffer -> String in
        let n = withVaList([value]) { vsnprintf(buffer.baseAddress!, buffer.count, "%.6f", $0) }
        return String(decoding: UnsafeRawBufferPointer(start: buffer.baseAddress!, count: Int(max(0, min(n, Int32(buffer.count - 1))))),
                      as: UTF8.self)
    }
}
