import Foundation

/// Text for a terminal or a log: a file name or a reason never breaks the one-line-per-file
/// format and never carries an escape sequence to the terminal.
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

    /// Free text (a reason, a detail naming other files): control characters escaped as in
    /// `quoted`, without quotes around the whole.
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

    /// C0 controls, DEL and C1 controls (which some terminals also obey).
    static func isControl(_ s: Unicode.Scalar) -> Bool {
        s.value < 0x20 || (0x7F...0x9F).contains(s.value)
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
