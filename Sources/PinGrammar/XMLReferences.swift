/// The references of XML 1.0 text and attribute values, resolved once for the XML reader
/// (PinFormats' `XMLPullParser`, for tracks, place files and XMP):
/// the five predefined entities `&lt;` `&gt;` `&amp;` `&quot;` `&apos;` (section 4.6) and the
/// character references `&#` digits `;` and `&#x` hexadecimal digits `;` (section 4.1: a
/// lowercase `x`, no sign, no space), whose value must be an XML character (section 2.2: tab,
/// LF, CR, U+0020 to U+D7FF, U+E000 to U+FFFD, U+10000 to U+10FFFF). Line ends as written are
/// normalised first (section 2.11: CR LF and a lone CR become LF); then in an attribute value a
/// tab or LF as written becomes a space (section 3.3.3), so CR LF gives one space, not two. A
/// tab, LF or CR written as a reference (`&#13;`) stays that character in text and attributes.
///
/// Anything else after `&` is a well-formedness error. The variants are what a reader does
/// then (`XMLOptions.unresolvedReferences`): XMP's reader refuses the packet (`.fail`), the
/// track and place readers keep the bytes as written and read on (`.keep`), so a GPX whose
/// `<name>` holds a bare `&` still gives its points.
public enum XMLReferences {
    public enum Unresolved: Sendable { case keep, fail }

    /// A reference that cannot be resolved: its offset in the bytes given, and why.
    public struct Problem: Error, Sendable, Equatable {
        public let offset: Int
        public let reason: String
    }

    /// `b` with its line ends normalised and its references resolved (and, for an `attribute`,
    /// its white space normalised), appended to `out`. With `.fail`, the first reference that
    /// cannot be resolved stops it and is returned (`out` then holds what came before); with
    /// `.keep`, it is copied as written.
    public static func decode(_ b: UnsafeBufferPointer<UInt8>, attribute: Bool, unresolved: Unresolved,
                              into out: inout [UInt8]) -> Problem? {
        out.reserveCapacity(out.count + b.count)
        var i = 0
        while i < b.count {
            let c = b[i]
            if c == 0x0D {
                // CR LF or a lone CR: one line end, LF (a space in an attribute value).
                out.append(attribute ? 0x20 : 0x0A)
                i += i + 1 < b.count && b[i + 1] == 0x0A ? 2 : 1
                continue
            }
            if c != 0x26 {
                out.append(attribute && (c == 0x0A || c == 0x0D || c == 0x09) ? 0x20 : c)
                i += 1
                continue
            }
            switch reference(b, at: i) {
            case .success(let (scalar, end)):
                // An XML character, never a surrogate: the fallback cannot be taken.
                UTF8.encode(Unicode.Scalar(scalar) ?? "\u{FFFD}") { out.append($0) }
                i = end
            case .failure(let problem):
                if unresolved == .fail { return problem }
                out.append(c)
                i += 1
            }
        }
        return nil
    }

    /// `b` with its line ends normalised (section 2.11: CR LF and a lone CR become LF) and nothing
    /// else, appended to `out`: a CDATA section's characters, where `&` is no reference.
    public static func normaliseLineEnds(_ b: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        out.reserveCapacity(out.count + b.count)
        var i = 0
        while i < b.count {
            let c = b[i]
            out.append(c == 0x0D ? 0x0A : c)
            i += c == 0x0D && i + 1 < b.count && b[i + 1] == 0x0A ? 2 : 1
        }
    }

    /// `decode` as a String (with `.fail`, the problem thrown).
    public static func decode(_ b: UnsafeBufferPointer<UInt8>, attribute: Bool, unresolved: Unresolved) throws(Problem) -> String {
        var out: [UInt8] = []
        if let problem = decode(b, attribute: attribute, unresolved: unresolved, into: &out) { throw problem }
        return String(decoding: out, as: UTF8.self)
    }

    /// The reference starting with the `&` at `start`: its character and the offset after its `;`.
    static func reference(_ b: UnsafeBufferPointer<UInt8>, at start: Int) -> Result<(UInt32, Int), Problem> {
        var j = start + 1
        let isCharacter = j < b.count && b[j] == 0x23  // '#'
        let hex = isCharacter && j + 1 < b.count && b[j + 1] == 0x78  // 'x'
        if isCharacter { j += hex ? 2 : 1 }
        let bodyStart = j
        var value: UInt32 = 0
        while j < b.count {
            let c = b[j]
            if isCharacter {
                guard let digit = digitValue(c, hex: hex) else { break }
                // Past U+10FFFF it can only stay out of range: stop counting, keep reading.
                value = value > 0x10FFFF ? value : value * (hex ? 16 : 10) + digit
            } else if !isNameByte(c) {
                break
            }
            j += 1
        }
        guard j < b.count, b[j] == 0x3B else { return .failure(Problem(offset: start, reason: "unterminated entity")) }
        let written = String(decoding: UnsafeBufferPointer(rebasing: b[start...j].prefix(40)), as: UTF8.self)
        guard j > bodyStart else { return .failure(Problem(offset: start, reason: "unknown entity '\(written)'")) }
        if isCharacter {
            guard isXMLCharacter(value) else {
                return .failure(Problem(offset: start, reason: "character reference '\(written)' is not an XML character"))
            }
            return .success((value, j + 1))
        }
        let name = UnsafeBufferPointer(rebasing: b[bodyStart..<j])
        guard let scalar = predefined(name) else {
            return .failure(Problem(offset: start, reason: "unknown entity '\(written)'"))
        }
        return .success((scalar, j + 1))
    }

    private static func predefined(_ name: UnsafeBufferPointer<UInt8>) -> UInt32? {
        switch name.count {
        case 2 where name[1] == 0x74 && name[0] == 0x6C: return 0x3C  // lt
        case 2 where name[1] == 0x74 && name[0] == 0x67: return 0x3E  // gt
        case 3 where name.elementsEqual("amp".utf8): return 0x26
        case 4 where name.elementsEqual("quot".utf8): return 0x22
        case 4 where name.elementsEqual("apos".utf8): return 0x27
        default: return nil
        }
    }

    private static func digitValue(_ c: UInt8, hex: Bool) -> UInt32? {
        switch c {
        case 0x30...0x39: return UInt32(c - 0x30)
        case 0x41...0x46 where hex: return UInt32(c - 0x41 + 10)
        case 0x61...0x66 where hex: return UInt32(c - 0x61 + 10)
        default: return nil
        }
    }

    /// A byte of an entity's name: ASCII letters, digits, `_ : . -`, and any byte of a non-ASCII
    /// character (XML's NameChar, not checked further: no such name is predefined).
    private static func isNameByte(_ c: UInt8) -> Bool {
        switch c {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x5F, 0x3A, 0x2E, 0x2D, 0x80...: return true
        default: return false
        }
    }

    /// What `escaped` does with a character XML does not allow (section 2.2: C0 controls but
    /// tab, LF and CR, U+FFFE, U+FFFF), which no reference could carry either: leave it out
    /// (`.drop`, XMP sidecars), or write U+FFFD in its place (`.replace`, the exports, so the
    /// reader sees that something stood there).
    public enum NotXML: Sendable { case drop, replace }

    /// `text` as XML text or, with `attribute`, a quoted attribute value (either quote): the
    /// writing side of `decode`. `&`, `<`, `>`, `"` and `'` become the predefined entities
    /// (section 4.6), a CR `&#13;` (written as it is, a reader reads it as LF: section 2.11); in
    /// an attribute value a tab `&#9;` and a line feed `&#10;` too (written as they are, a reader
    /// reads each as a space: section 3.3.3); a character XML does not allow goes as `notXML` says.
    public static func escaped(_ text: String, notXML: NotXML, attribute: Bool = false) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\r": out += "&#13;"
            case "\t" where attribute: out += "&#9;"
            case "\n" where attribute: out += "&#10;"
            case _ where isXMLCharacter(scalar.value): out.unicodeScalars.append(scalar)
            default: if notXML == .replace { out += "\u{FFFD}" }
            }
        }
        return out
    }

    /// XML 1.0's Char production (section 2.2).
    static func isXMLCharacter(_ v: UInt32) -> Bool {
        v == 0x09 || v == 0x0A || v == 0x0D || (0x20...0xD7FF).contains(v) || (0xE000...0xFFFD).contains(v)
            || (0x10000...0x10FFFF).contains(v)
    }
}
