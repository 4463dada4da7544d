/// A photo's metadata digest as the import keeps it in bulk (the known files of a nightly run,
/// the records of a run): the 16 lowercase hex digits `FNV1a64.hexDigest` writes, as their
/// 64-bit value, so that no string is made per file; any other text (tests, older records) as
/// it is. `text` gives the digest back exactly.
public enum StoredDigest: Sendable, Hashable {
    case value(UInt64)
    case text(String)

    init(_ text: String) {
        if let value = Self.hexValue(text) { self = .value(value) } else { self = .text(text) }
    }

    /// From the UTF-8 bytes of the text (a database column), without a string when they are
    /// 16 lowercase hex digits.
    public init(utf8 bytes: UnsafeRawBufferPointer) {
        if let value = Self.hexValue(bytes) { self = .value(value) } else { self = .text(String(decoding: bytes, as: UTF8.self)) }
    }

    var text: String {
        switch self {
        case let .value(value): return Self.hexText(value)
        case let .text(text): return text
        }
    }

    /// The value of exactly 16 lowercase hex digits, else nil: only a text that comes back the
    /// same from `hexText` is kept as a number.
    public static func hexValue(_ text: String) -> UInt64? {
        var text = text
        return text.withUTF8 { hexValue(UnsafeRawBufferPointer($0)) }
    }

    /// Same on UTF-8 bytes. (Not generic: this runs once per file read, and a generic function
    /// of another module runs unspecialized, through protocol witnesses.)
    public static func hexValue(_ utf8: UnsafeRawBufferPointer) -> UInt64? {
        guard utf8.count == 16 else { return nil }
        var value: UInt64 = 0
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = value << 4 | UInt64(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = value << 4 | UInt64(byte - UInt8(ascii: "a") + 10)
            default: return nil
            }
        }
        return value
    }

    /// 16 lowercase hex digits, zero-padded.
    public static func hexText(_ value: UInt64) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: 16 - text.count) + text
    }
}
