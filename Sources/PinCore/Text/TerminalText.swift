import Foundation

/// Text for a terminal or a log: a file name, a reason, a pin's title, note, tags or place name
/// never breaks the one-line-per-file format, never carries an escape sequence (ESC, BEL) to the
/// terminal and never turns the rest of a line around (U+202E and the other bidirectional
/// controls). Every command that prints user text on a terminal goes through here.
public enum TerminalText {
    /// A path as git quotes one (`core.quotePath=false`): bare when it is plain; otherwise in
    /// double quotes with C escapes (`\n`, `\t`, `\"`, `\\`) and 3-digit octal for other control
    /// bytes and for bytes that are not UTF-8 (`"a\nb.jpg"`, `"\033[31mred.jpg"`, `"caf\351.jpg"`).
    /// Printable UTF-8 (accents, CJK) stays as it is.
    public static func quoted(_ path: RawPath) -> String {
        let bytes = path.bytes
        if let text = String(validating: bytes, as: UTF8.self), !text.unicodeScalars.contains(where: needsQuoting) {
            return text
        }
        var out = "\""
        var i = 0
        while i < bytes.count {
            // The longest valid UTF-8 scalar at i, else one raw byte.
            var scalar: Unicode.Scalar?
            var length = 1
            for n in (1...4).reversed() where i + n <= bytes.count {
                if let s = String(validating: bytes[i..<(i + n)], as: UTF8.self), s.unicodeScalars.count == 1 {
                    scalar = s.unicodeScalars.first
                    length = n
                    break
                }
            }
            if let scalar, !isControl(scalar) {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                default: out.unicodeScalars.append(scalar)
                }
            } else {
                for byte in bytes[i..<(i + length)] { out += escape(byte) }
            }
            i += length
        }
        return out + "\""
    }

    /// Free text (a reason, a detail naming other files, a title, a note, a tag, a place name):
    /// control characters escaped as in `quoted`, without quotes around the whole
    /// (`"a\033[31mred"` for a title with ESC, `"x\342\200\256y"` for U+202E).
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if isControl(scalar) {
                for byte in Array(String(scalar).utf8) { out += escape(byte) }
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Lines of a message (stderr): each line escaped as `escaped` does, the line breaks kept.
    public static func escapedLines(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { isControl($0) && $0 != "\n" }) else { return text }
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { escaped(String($0)) }.joined(separator: "\n")
    }

    /// C0 controls, DEL and C1 controls (which some terminals also obey), and the bidirectional
    /// controls that reorder the rest of the line until they are closed: the embeddings and
    /// overrides U+202A–U+202E and the isolates U+2066–U+2069. (The marks U+200E, U+200F and
    /// U+061C stay: they steer one neutral character and are part of written Hebrew and Arabic.)
    static func isControl(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0..<0x20, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }

    static func needsQuoting(_ s: Unicode.Scalar) -> Bool {
        isControl(s) || s == "\"" || s == "\\"
    }

    static func escape(_ byte: UInt8) -> String {
        switch byte {
        case 0x07: return "\\a"
        case 0x08: return "\\b"
        case 0x09: return "\\t"
        case 0x0A: return "\\n"
        case 0x0B: return "\\v"
        case 0x0C: return "\\f"
        case 0x0D: return "\\r"
        default: return "\\" + String(byte, radix: 8).leftPadded(to: 3)
        }
    }
}
