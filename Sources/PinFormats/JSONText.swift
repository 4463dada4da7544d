import Foundation

/// `NSNull` for nil, for JSONSerialization.
public func orNull(_ value: Any?) -> Any { value ?? NSNull() }

/// A small JSON writer for what the commands and reports print ([String: Any] trees of strings, numbers,
/// booleans, nulls, arrays). JSONSerialization bridges every value through NSObject and sorts
/// keys with ICU collation: on a 20,000-photo report it took half of the import's time.
public struct JSONText {
    public private(set) var text = ""

    public init() {}

    /// One value as JSON text.
    public static func string(_ value: Any) -> String {
        var out = JSONText()
        out.write(value)
        return out.text
    }

    /// JSON text made safe inside an HTML `<script type="application/json">` element: `<`, `>`
    /// and `&` as \\u escapes (no `</script>` or `<!--` can end or change the element), and
    /// U+2028/U+2029 too (line terminators for older JavaScript). Outside strings JSON has none
    /// of these characters, so replacing them everywhere keeps the JSON the same value.
    public static func scriptSafe(_ json: String) -> String {
        // Looked for in the UTF-8 bytes: `<`, `>`, `&`, and E2 80 A8/A9 (U+2028/U+2029). A scan
        // of the scalars, each looked up in a string, took 7 % of pins serve's map data.
        guard json.utf8.withContiguousStorageIfAvailable({ needsEscaping($0) }) ?? needsEscaping(Array(json.utf8)) else { return json }
        var out = ""
        out.reserveCapacity(json.utf8.count + 16)
        for scalar in json.unicodeScalars {
            switch scalar {
            case "<": out += "\\u003c"
            case ">": out += "\\u003e"
            case "&": out += "\\u0026"
            case "\u{2028}": out += "\\u2028"
            case "\u{2029}": out += "\\u2029"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Whether `scriptSafe` would change the text of these UTF-8 bytes.
    public static func needsScriptEscaping(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { needsEscaping($0) }
    }

    private static func needsEscaping(_ bytes: some RandomAccessCollection<UInt8>) -> Bool {
        var index = bytes.startIndex
        while index != bytes.endIndex {
            switch bytes[index] {
            case UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "&"): return true
            case 0xE2:
                let next = bytes.index(after: index)
                if next != bytes.endIndex, bytes[next] == 0x80 {
                    let last = bytes.index(after: next)
                    if last != bytes.endIndex, bytes[last] == 0xA8 || bytes[last] == 0xA9 { return true }
                }
            default: break
            }
            index = bytes.index(after: index)
        }
        return false
    }

    mutating func write(_ value: Any?) {
        // Swift types first: testing `is NSNull` (a class) on a Swift dictionary bridges it to
        // NSDictionary first, which cost more than everything else here.
        switch value {
        case nil: text += "null"
        case let v as String: writeString(v)
        case let v as Bool: text += v ? "true" : "false"
        case let v as Int: text += String(v)
        case let v as Int64: text += String(v)
        case let v as Double: writeNumber(v)
        case let v as [String: Any]:
            if v.isEmpty { text += "{}"; return }
            text += "{"
            for (i, key) in v.keys.sorted().enumerated() {
                if i > 0 { text += "," }
                writeString(key)
                text += ":"
                write(v[key]!)
            }
            text += "}"
        case let v as [Any]:
            if v.isEmpty { text += "[]"; return }
            text += "["
            for (i, element) in v.enumerated() {
                if i > 0 { text += "," }
                write(element)
            }
            text += "]"
        case is NSNull: text += "null"
        default:
            writeString("\(value!)")
        }
    }

    /// JSON text written piece by piece, for writers of many objects of one shape (the import
    /// report's lines): no [String: Any] to build, cast and sort per object. The caller writes
    /// keys in sorted order, as `write` does.
    public mutating func writeRaw(_ s: String) { text += s }

    /// A number as `write` writes a Double: integral values below 10^15 without a fraction,
    /// others by Swift's shortest round-trip description, non-finite as null.
    public mutating func writeNumber(_ v: Double) {
        text += Self.numberText(v)
    }

    /// A Double's text as `writeNumber` writes it.
    public static func numberText(_ v: Double) -> String {
        v.isFinite ? (v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : v.description) : "null"
    }

    /// A string, or null.
    public mutating func writeString(_ s: String?) {
        if let s { writeString(s) } else { text += "null" }
    }

    /// Empties the text, keeping its storage (one writer for many lines).
    public mutating func removeAll() { text.removeAll(keepingCapacity: true) }

    public mutating func writeString(_ s: String) {
        // Most strings (paths, codes, dates) need no escape: append them whole.
        if !Self.needsStringEscape(s) {
            text += "\""
            text += s
            text += "\""
            return
        }
        var bytes: [UInt8] = []
        Self.appendString(s, to: &bytes)
        text += String(decoding: bytes, as: UTF8.self)
    }

    /// Whether a string's JSON text has an escape: it holds `"`, `\` or a control character.
    private static func needsStringEscape(_ s: String) -> Bool {
        var s = s
        return s.withUTF8 { !ByteRoom.isPlainJSON($0) }
    }

    /// A string's JSON text appended to UTF-8 bytes (`writeString`'s, which writes through
    /// this): `ByteRoom.putJSONString`.
    public static func appendString(_ s: String, to out: inout [UInt8]) {
        ByteRoom.append(to: &out) { $0.putJSONString(s) }
    }
}
