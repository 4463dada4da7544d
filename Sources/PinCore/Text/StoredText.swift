/// Text as pins keeps it: every text that enters from a file (a place file's titles, notes,
/// tags, names) goes through `clean` once, where it is read, so what is compared to decide
/// "unchanged" is what is stored, and stored whole.
///
/// - Control characters U+0000-U+001F and U+007F are dropped, except TAB, LF and CR: SQLite's
///   C interface, terminals and most readers of pins' exports end or misread text at a NUL
///   (`a\0bcdef` was stored as `a`, and never compared equal again), and the other controls
///   are invisible escapes, not words.
/// - Length is capped (`maxTitle`, `maxNote` characters): a title is a line on a map, a note a
///   page; a 63 MiB name cost every later `list`, `report` and `export` a gigabyte.
public enum StoredText {
    /// Titles, names, addresses, tags and colours: at most this many characters.
    public static let maxTitle = 1_000
    /// Notes: at most this many characters (64 Ki).
    public static let maxNote = 65_536

    /// `text` without the control characters pins does not keep (see the type's comment).
    public static func clean(_ text: String) -> String {
        guard text.utf8.contains(where: isDropped) else { return text }
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: text.unicodeScalars.lazy.filter { !($0.value < 0x80 && isDropped(UInt8($0.value))) })
        return String(scalars)
    }

    /// `clean(text)` cut to `limit` characters; `cut` is true when it was longer.
    public static func clean(_ text: String, limit: Int) -> (text: String, cut: Bool) {
        let cleaned = clean(text)
        // A character is at least one byte: a text of at most `limit` bytes is within the limit
        // without counting its characters (most texts; counting 63 MiB is what is avoided).
        guard cleaned.utf8.count > limit else { return (cleaned, false) }
        let end = cleaned.index(cleaned.startIndex, offsetBy: limit, limitedBy: cleaned.endIndex) ?? cleaned.endIndex
        return end == cleaned.endIndex ? (cleaned, false) : (String(cleaned[..<end]), true)
    }

    @inline(__always)
    static func isDropped(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != 0x09 && byte != 0x0A && byte != 0x0D) || byte == 0x7F
    }
}
