/// Two decimal numbers written as a position, `a,b` (latitude first): the one scanner of a
/// position typed as text (PinCore's `LatLonText`: `pins locate`'s lines, `--near`) and of
/// Google's `latLng` strings (PinFormats' `GoogleTimelineParse.latLng`: "48.8566°, 2.3522°",
/// "geo:48.8566,2.3522"). Spaces and tabs may stand around each number; the variants are a
/// `Grammar`. Ranges are the caller's.
public enum LatLonPair {
    public struct Grammar: Sendable {
        /// The numbers' grammar (an exponent or not).
        public var number: DecimalNumber.Grammar
        /// A CR counts as a space (a line read with its CR LF end).
        public var carriageReturnIsSpace: Bool
        /// Google's forms: a `geo:` prefix, and a degree sign `°` after each number.
        public var google: Bool

        public init(number: DecimalNumber.Grammar, carriageReturnIsSpace: Bool, google: Bool) {
            self.number = number
            self.carriageReturnIsSpace = carriageReturnIsSpace
            self.google = google
        }

        /// As a person types it: `48.8566, 2.3522`, an exponent allowed, a trailing CR.
        public static let typed = Grammar(number: .withExponent, carriageReturnIsSpace: true, google: false)
        /// Google's common forms, numbers without an exponent.
        public static let google = Grammar(number: .plain, carriageReturnIsSpace: false, google: true)
    }

    /// Where a text stopped being a position.
    public enum Failure: Error, Sendable, Equatable {
        case noFirstNumber, noComma, noSecondNumber, trailing
    }

    /// All of `b` as two numbers, or where it is not.
    public static func scan(_ b: UnsafeBufferPointer<UInt8>, _ grammar: Grammar) -> Result<(Double, Double), Failure> {
        var i = 0
        func skipSpace() {
            while i < b.count, b[i] == 0x20 || b[i] == 0x09 || (grammar.carriageReturnIsSpace && b[i] == 0x0D) { i += 1 }
        }
        /// A number, then (Google) an optional degree sign (C2 B0), with the spaces after each.
        func number() -> Double? {
            guard let v = DecimalNumber.scan(b, &i, grammar.number) else { return nil }
            skipSpace()
            if grammar.google, i + 1 < b.count, b[i] == 0xC2, b[i + 1] == 0xB0 {
                i += 2
                skipSpace()
            }
            return v
        }
        if grammar.google, b.count >= 4, b[0] == 0x67, b[1] == 0x65, b[2] == 0x6F, b[3] == 0x3A { i = 4 }  // geo:
        skipSpace()
        guard let first = number() else { return .failure(.noFirstNumber) }
        guard i < b.count, b[i] == 0x2C else { return .failure(.noComma) }
        i += 1
        skipSpace()
        guard let second = number() else { return .failure(.noSecondNumber) }
        guard i == b.count else { return .failure(.trailing) }
        return .success((first, second))
    }
}
