import Foundation

/// The one reader of decimal numbers written as text, in every format pins reads: `48.8584`,
/// `-2.35`, `.5`, `5.`, and where the format allows them a sign and an exponent (`1e-3`).
/// Never hexadecimal, `inf` or `nan`. A number with at most 15 significant digits and no
/// exponent is m / 10^k with both exact, so correctly rounded, which is what strtod (and Swift's
/// `Double(_:)`, which calls it) gives; every other number goes through strtod. Either way the
/// value is strtod's, bit for bit, and finite.
public enum DecimalNumber {
    /// The variants the formats differ in; each caller names its own.
    public struct Grammar: Sendable {
        /// A leading `+` or `-`.
        public var sign: Bool
        /// `e` or `E`, an optional sign and at least one digit, after the digits.
        public var exponent: Bool
        /// More digits than this (leading zeros count) is not a number: a bound on what one
        /// value of an untrusted file costs.
        public var maxDigits: Int

        public init(sign: Bool = true, exponent: Bool, maxDigits: Int = .max) {
            self.sign = sign
            self.exponent = exponent
            self.maxDigits = maxDigits
        }

        /// `-2.35`, `1e-3`: strtod's decimal form (CSV, GPX, `lat,lon` lines).
        public static let withExponent = Grammar(exponent: true)
        /// `-2.35` only, as people type a number (`--near`, `--camera-clock-offset`).
        public static let plain = Grammar(exponent: false)
    }

    @usableFromInline
    static let exactPowersOfTen: [Double] = (0...15).map { pow(10, Double($0)) }

    /// The number that is all of `text`, or nil.
    @inlinable
    public static func parse(_ text: UnsafeBufferPointer<UInt8>, _ grammar: Grammar) -> Double? {
        var i = 0
        guard let value = scan(text, &i, grammar), i == text.count else { return nil }
        return value
    }

    /// The number that is all of `text` (no white space around it), or nil.
    @inlinable
    public static func parse<S: StringProtocol>(_ text: S, _ grammar: Grammar) -> Double? {
        if let v = text.utf8.withContiguousStorageIfAvailable({ parse($0, grammar) }) { return v }
        return Array(text.utf8).withUnsafeBufferPointer { parse($0, grammar) }
    }

    /// The number that starts at `i`, read past; nil (and `i` unmoved) when none starts there or
    /// it is not finite. What follows it is the caller's: `1.5,2` stops before the comma.
    @inlinable
    public static func scan(_ s: UnsafeBufferPointer<UInt8>, _ i: inout Int, _ grammar: Grammar) -> Double? {
        let start = i
        var negative = false
        if grammar.sign, i < s.count, s[i] == 0x2D || s[i] == 0x2B { negative = s[i] == 0x2D; i += 1 }
        var mantissa: UInt64 = 0
        var digits = 0, fraction = 0
        var dot = false
        while i < s.count {
            let b = s[i]
            if b &- 0x30 < 10 {
                if digits < 19 { mantissa = mantissa * 10 + UInt64(b &- 0x30) }
                digits += 1
                if dot { fraction += 1 }
            } else if b == 0x2E, !dot {
                dot = true
            } else {
                break
            }
            i += 1
        }
        guard digits > 0, digits <= grammar.maxDigits else { i = start; return nil }
        let exponent = grammar.exponent && i < s.count && (s[i] == 0x65 || s[i] == 0x45)
        if digits <= 15 && !exponent {
            let value = Double(mantissa) / exactPowersOfTen[fraction]
            return negative ? -value : value
        }
        if exponent {
            i += 1
            if i < s.count, s[i] == 0x2D || s[i] == 0x2B { i += 1 }
            let expStart = i
            while i < s.count, s[i] &- 0x30 < 10 { i += 1 }
            guard i > expStart else { i = start; return nil }
        }
        guard let value = strtodValue(UnsafeBufferPointer(rebasing: s[start..<i])) else { i = start; return nil }
        return value
    }

    /// strtod of bytes already known to be a decimal number; nil when the value is not finite.
    @usableFromInline
    static func strtodValue(_ b: UnsafeBufferPointer<UInt8>) -> Double? {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: b.count + 1) { text in
            for k in 0..<b.count { text[k] = CChar(bitPattern: b[k]) }
            text[b.count] = 0
            let value = strtod(text.baseAddress!, nil)
            return value.isFinite ? value : nil
        }
    }
}
