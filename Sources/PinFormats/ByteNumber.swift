import Foundation
import PinGrammar

/// Decimal numbers read straight from a reader's bytes, as `Double(text.trimmingCharacters(in:
/// .whitespacesAndNewlines))` reads them, without the two Strings that costs.
enum ByteNumber {
    /// A finite decimal number, white space around it ignored; nil when it is not one. The
    /// decimal form, an exponent allowed, is PinGrammar's `DecimalNumber` (the same value as
    /// Swift's `Double(_:)`, bit for bit); the forms only `Double(_:)` takes (hexadecimal, Unicode
    /// white space around) go through `Double(_:)`, as they always did.
    static func decimal(_ b: UnsafeBufferPointer<UInt8>) -> Double? {
        var n = b.count
        var i = 0
        while n > 0, isSpace(b[n - 1]) { n -= 1 }
        while i < n, isSpace(b[i]) { i += 1 }
        return DecimalNumber.parse(UnsafeBufferPointer(rebasing: b[i..<n]), .withExponent) ?? slow(b)
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
