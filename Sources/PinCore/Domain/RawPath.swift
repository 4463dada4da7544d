/// A file path as the kernel has it: raw bytes, which need not be UTF-8 (old camera cards, Samba
/// shares with Latin-1 names). Never round-trip a path through String to open a file.
public struct RawPath: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var bytes: [UInt8]

    /// Hashes the bytes in one call: the synthesized hash feeds them one at a time, which was
    /// most of the cost of matching 20,000 known files on a nightly run.
    public func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }

    public init(bytes: [UInt8]) { self.bytes = bytes }
    public init(_ string: String) { self.bytes = Array(string.utf8) }

    /// The path as text, for JSON, the database (`locations.photo_ids`), exports and the map
    /// page: valid UTF-8 as it is, except that a backslash is written twice (`\\`), and each
    /// byte that is not part of valid UTF-8 as `\xNN` (two upper-case hex digits). So the byte
    /// 0xFF in `a<FF>.jpg` gives `a\xFF.jpg`, and a file really named `a\xFF.jpg` gives
    /// `a\\xFF.jpg`: two different files never share a text, and `init(escaped:)` gives the
    /// bytes back. (Before schema 5 backslashes were not doubled, so those two collided.)
    /// Terminal output quotes paths with `TerminalText.quoted` instead, as git does.
    public var description: String {
        let backslash = UInt8(ascii: "\\")
        if let text = String(validating: bytes, as: UTF8.self) {
            guard bytes.contains(backslash) else { return text }
            var out = ""
            for scalar in text.unicodeScalars {
                if scalar == "\\" { out += "\\\\" } else { out.unicodeScalars.append(scalar) }
            }
            return out
        }
        var out = ""
        var i = 0
        while i < bytes.count {
            // Decode the longest valid UTF-8 scalar at i, else escape one byte.
            var decoded = false
            for length in (1...4).reversed() where i + length <= bytes.count {
                if let s = String(validating: bytes[i..<(i + length)], as: UTF8.self), s.unicodeScalars.count == 1 {
                    out += bytes[i] == backslash ? "\\\\" : s
                    i += length
                    decoded = true
                    break
                }
            }
            if !decoded {
                out += "\\x" + String(bytes[i], radix: 16, uppercase: true).leftPadded(to: 2)
                i += 1
            }
        }
        return out
    }

    /// The bytes of a path written as `description` writes it; nil for text it cannot have
    /// written (a lone backslash, `\x` without two hex digits, a backslash before anything else).
    public init?(escaped text: String) {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        var utf8 = text.utf8.makeIterator()
        while let byte = utf8.next() {
            guard byte == UInt8(ascii: "\\") else {
                out.append(byte)
                continue
            }
            switch utf8.next() {
            case UInt8(ascii: "\\"):
                out.append(byte)
            case UInt8(ascii: "x"):
                guard let high = utf8.next().flatMap(Self.hexValue), let low = utf8.next().flatMap(Self.hexValue) else { return nil }
                out.append(high << 4 | low)
            default:
                return nil
            }
        }
        self.bytes = out
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return digit - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// The bytes after the last `/` (the whole path when there is none).
    public var lastComponent: [UInt8] {
        guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return bytes }
        return Array(bytes[(slash + 1)...])
    }

    /// Appends a path component with a single `/` between.
    public func appending(_ component: [UInt8]) -> RawPath {
        // One allocation, of the final size (this runs for every file read).
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count + 1 + component.count)
        result.append(contentsOf: bytes)
        if let last = result.last, last != UInt8(ascii: "/") { result.append(UInt8(ascii: "/")) }
        result.append(contentsOf: component)
        return RawPath(bytes: result)
    }

    /// Calls `body` with a NUL-terminated C string of the path (in a temporary buffer, on the
    /// stack when it is small enough: every file opened goes through here).
    public func withCString<T>(_ body: (UnsafePointer<CChar>) throws -> T) rethrows -> T {
        try withUnsafeTemporaryAllocation(of: CChar.self, capacity: bytes.count + 1) { buffer in
            bytes.withUnsafeBytes { raw in
                UnsafeMutableRawBufferPointer(buffer).copyMemory(from: raw)
            }
            buffer[bytes.count] = 0
            return try body(UnsafePointer(buffer.baseAddress!))
        }
    }

    /// Byte-wise order: stable, locale-free, the tie-breaker after capture time.
    public static func < (lhs: RawPath, rhs: RawPath) -> Bool {
        lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
    }
}

extension String {
    public func leftPadded(to width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}
