import Foundation
import PinGrammar

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

    /// `lat,lon` with optional spaces (and a trailing CR): `LatLonPair.typed`. A byte parser:
    /// `pins locate` must keep up with half a million lines a second, which String and
    /// Double(String) do not.
    public static func parse(_ line: UnsafeBufferPointer<UInt8>) -> Result {
        func quoted() -> String {
            var text = String(decoding: line.prefix(60), as: UTF8.self)
            while text.hasSuffix("\r") { text.removeLast() }
            return text
        }
        switch LatLonPair.scan(line, .typed) {
        case .failure(.noFirstNumber):
            let blank = line.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
            return .failure(Failure(blank ? "empty line, expected 'lat,lon'" : "expected 'lat,lon', got '\(quoted())'"))
        case .failure(.noSecondNumber):
            return .failure(Failure("expected 'lat,lon' as two decimal numbers, got '\(quoted())'"))
        case .failure:
            return .failure(Failure("expected 'lat,lon', got '\(quoted())'"))
        case let .success((lat, lon)):
            guard abs(lat) <= 90 else { return .failure(Failure("latitude \(lat) is out of range (-90 to 90)")) }
            guard abs(lon) <= 180 else { return .failure(Failure("longitude \(lon) is out of range (-180 to 180)")) }
            return .success(Coordinate(latitude: lat, longitude: lon))
        }
    }
}
