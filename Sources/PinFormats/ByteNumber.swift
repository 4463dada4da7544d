import Foundation

/// Decimal numbers read straight from a reader's bytes, as `Double(text.trimmingCharacters(in:
/// .whitespacesAndNewlines))` reads them, without the two Strings that costs.
enum ByteNumber {
    private static let exactPowersOfTen: [Double] = (0...15).map { pow(10, Double($0)) }

    /// A finite decimal number, white space around it ignored; nil when it is not one. The
    /// plain form (`[+-]digits[.digits]`, at most 15 significant digits) is m / 10^k with both
    /// exact, so correctly rounded, which is what Swift's `Double(_:)` (strtod) gives; every other
    /// form (an exponent, more digits, `inf`, hex, Unicode white space) goes through `Double(_:)`.
    static func decimal(_ b: UnsafeBufferPointer<UInt8>) -> Double? {
        var n = b.count
        var i = 0
        while n > 0, isSpace(b[n - 1]) { n -= 1 }
        while i < n, isSpace(b[i]) { i += 1 }
        return plain(UnsafeBufferPointer(rebasing: b[i..<n])) ?? slow(b)
    }

    /// `[+-]digits[.digits]` with at most 15 significant digits, nothing around it: m / 10^k,
    /// both exact, so correctly rounded as strtod rounds; nil for any other text.
    static func plain(_ b: UnsafeBufferPointer<UInt8>) -> Double? {
        let n = b.count
        var i = 0
        var negative = false
        if i < n, b[i] == 0x2D || b[i] == 0x2B { negative = b[i] == 0x2D; i += 1 }
        var mantissa: UInt64 = 0
        var digits = 0, fraction = 0
        let integerStart = i
        while i < n, b[i] &- 0x30 < 10, digits < 16 {
            mantissa = mantissa * 10 + UInt64(b[i] &- 0x30)
            digits += 1
            i += 1
        }
        guard i > integerStart else { return nil }
        if i < n, b[i] == 0x2E {
            i += 1
            let fractionStart = i
            while i < n, b[i] &- 0x30 < 10, digits < 16 {
                mantissa = mantissa * 10 + UInt64(b[i] &- 0x30)
                digits += 1
                i += 1
            }
            fraction = i - fractionStart
            guard fraction > 0 else { return nil }
        }
        guard i == n, digits <= 15 else { return nil }
        let value = Double(mantissa) / exactPowersOfTen[fraction]
        return negative ? -value : value
    }

    private static func slow(_ b: UnsafeBufferPointer<UInt8>) -> Double? {
        decimal(String(decoding: b, as: UTF8.self))
    }

    /// The same of text.
    static func decimal<S: StringProtocol>(_ s: S) -> Double? {
        let t = s.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let v = Double(t), v.isFinite else { return nil }
        return v
    }

    private static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 }
}
