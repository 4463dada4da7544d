import Foundation

/// A JSON object body, read by Foundation's JSONSerialization, with typed accessors whose errors
/// name the field and say what was expected (a 400 or 422 a person can act on).
public struct JSONBody {
    public let object: [String: Any]

    /// Nil-free: an empty body, bytes that are not JSON, or JSON that is not an object, throw.
    public init(_ bytes: [UInt8]) throws {
        guard !bytes.isEmpty else { throw RequestError(400, "expected a JSON object in the body, got nothing") }
        let value: Any
        do {
            value = try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
        } catch {
            throw RequestError(400, "the body is not JSON")
        }
        guard let object = value as? [String: Any] else { throw RequestError(400, "expected a JSON object in the body") }
        self.object = object
    }

    public func has(_ key: String) -> Bool { object[key] != nil }

    /// The string at `key`; nil when absent or null; a 422 for another type.
    public func string(_ key: String, maxLength: Int = 10_000) throws -> String? {
        guard let value = object[key], !(value is NSNull) else { return nil }
        guard let text = value as? String else { throw RequestError(422, "'\(key)' must be a string") }
        guard text.utf8.count <= maxLength else { throw RequestError(422, "'\(key)' is longer than \(maxLength) bytes") }
        return text
    }

    /// The number at `key` (finite, within `range`); nil when absent or null.
    public func number(_ key: String, in range: ClosedRange<Double>) throws -> Double? {
        guard let value = object[key], !(value is NSNull) else { return nil }
        // JSONSerialization gives booleans as NSNumber too: true is not 1 here.
        guard let number = value as? NSNumber, !Self.isBoolean(number) else { throw RequestError(422, "'\(key)' must be a number") }
        let double = number.doubleValue
        guard double.isFinite, range.contains(double) else {
            throw RequestError(422, "'\(key)' must be between \(range.lowerBound) and \(range.upperBound), got \(double)")
        }
        return double
    }

    public func bool(_ key: String) throws -> Bool? {
        guard let value = object[key], !(value is NSNull) else { return nil }
        guard let number = value as? NSNumber, Self.isBoolean(number) else { throw RequestError(422, "'\(key)' must be true or false") }
        return number.boolValue
    }

    /// An array of strings, each at most `maxLength`, at most `maxCount` of them.
    public func strings(_ key: String, maxCount: Int = 100_000, maxLength: Int = 200) throws -> [String]? {
        guard let value = object[key], !(value is NSNull) else { return nil }
        guard let array = value as? [Any], array.count <= maxCount else {
            throw RequestError(422, "'\(key)' must be a list of at most \(maxCount) strings")
        }
        return try array.map {
            guard let text = $0 as? String, text.utf8.count <= maxLength else {
                throw RequestError(422, "'\(key)' must hold strings of at most \(maxLength) bytes")
            }
            return text
        }
    }

    /// Pin ids: UUIDs, each valid, none twice.
    public func ids(_ key: String) throws -> [UUID] {
        guard let texts = try strings(key, maxLength: 36) else { throw RequestError(422, "'\(key)' is required: a list of pin ids") }
        var seen = Set<UUID>()
        return try texts.map {
            guard let id = UUID(uuidString: $0) else { throw RequestError(422, "'\($0)' in '\(key)' is not a pin id") }
            guard seen.insert(id).inserted else { throw RequestError(422, "the pin id \($0) is given twice in '\(key)'") }
            return id
        }
    }

    static func isBoolean(_ number: NSNumber) -> Bool {
        // On Linux, JSONSerialization's true and false are NSNumbers made from Bool.
        String(cString: number.objCType) == "c"
    }
}
