import Foundation

/// The one grammar of a position typed as text, `lat,lon` in decimal degrees (`pins locate`'s
/// lines, `--near`): optional spaces around each number and a trailing CR; an exponent is
/// allowed; hexadecimal, inf and nan are not; each value within range.
public enum LatLonText {
    public typealias Result = Swift.Result<Coordinate, Failure>

    /// Why a text is not a position, said as the user reads it.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    /// `text` as a position, or nil.
    public static func parse(_ text: String) -> Coordinate? {
        Array(text.utf8).withUnsafeBufferPointer { buffer in
            if case let .success(point) = parse(buffer) { return point }
            return nil
        }
    }

    /// `lat,lon` with optional spaces (and a trailing CR). A byte parser: `pins locate` must
    /// keep up with half a million lines a second, which String and Double(String) do not.
    public static func parse(_ line: UnsafeBufferPointer<UInt8>) -> Result {
        var i = 0
        func skipSpace() { while i < line.count, line[i] == 0x20 || line[i] == 0x09 || line[i] == 0x0D { i += 1 } }
        func quoted() -> String {
            var text = String(decoding: line.prefix(60), as: UTF8.self)
            while text.hasSuffix("\r") { text.removeLast() }
            return text
        }
        skipSpace()
        guard let lat = parseDecimal(line, &i) else {
            let blank = line.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
            return .failure(Failure(blank ? "empty line, expected 'lat,lon'" : "expected 'lat,lon', got '\(quoted())'"))
        }
        skipSpace()
        guard i < line.count, line[i] == UInt8(ascii: ",") else { return .failure(Failure("expected 'lat,lon', got '\(quoted())'")) }
        i += 1
        skipSpace()
        guard let lon = parseDecimal(line, &i) else { return .failure(Failure("expected 'lat,lon' as two decimal numbers, got '\(quoted())'")) }
        skipSpace()
        guard i == line.count else { return .failure(Failure("expected 'lat,lon', got '\(quoted())'")) }
        guard abs(lat) <= 90 else { return .failure(Failure("latitude \(lat) is out of range (-90 to 90)")) }
        guard abs(lon) <= 180 else { return .failure(Failure("longitude \(lon) is out of range (-180 to 180)")) }
        return .success(Coordinate(latitude: lat, longitude: lon))
    }

    private static let exactPowersOfTen: [Double] = (0...15).map { pow(10, Double($0)) }

    /// A decimal number at `i`: a fast exact path (up to 15 significant digits, no exponent:
    /// m / 10^k with both exact is correctly rounded), strtod for the rest.
    static func parseDecimal(_ s: UnsafeBufferPointer<UInt8>, _ i: inout Int) -> Double? {
        let start = i
        var negative = false
        if i < s.count, s[i] == UInt8(ascii: "-") || s[i] == UInt8(ascii: "+") { negative = s[i] == UInt8(ascii: "-"); i += 1 }
        var mantissa: UInt64 = 0
        var digits = 0, fraction = 0
        var dot = false
        while i < s.count {
            let b = s[i]
            if b >= 0x30 && b <= 0x39 {
                if digits < 19 { mantissa = mantissa * 10 + UInt64(b - 0x30) }
                digits += 1
                if dot { fraction += 1 }
            } else if b == UInt8(ascii: "."), !dot {
                dot = true
            } else {
                break
            }
            i += 1
        }
        guard digits > 0 else { i = start; return nil }
        let exponent = i < s.count && (s[i] == UInt8(ascii: "e") || s[i] == UInt8(ascii: "E"))
        if digits <= 15 && !exponent {
            let value = Double(mantissa) / exactPowersOfTen[fraction]
            return negative ? -value : value
        }
        if exponent {
            i += 1
            if i < s.count, s[i] == UInt8(ascii: "-") || s[i] == UInt8(ascii: "+") { i += 1 }
            let expStart = i
            while i < s.count, s[i] >= 0x30 && s[i] <= 0x39 { i += 1 }
            guard i > expStart else { i = start; return nil }
        }
        var text = Array(s[start..<i]).map { CChar(bitPattern: $0) }
        text.append(0)
        let value = strtod(text, nil)
        return value.isFinite ? value : nil
    }
}
