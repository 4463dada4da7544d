#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One token of a JSON text (RFC 8259), as `JSONReader.next()` returns it.
public enum JSONToken: UInt8, Sendable, Hashable {
    case objectStart, objectEnd, arrayStart, arrayEnd
    /// A member name; `JSONReader.string` and friends give its text, the value follows.
    case key
    case string, number, `true`, `false`, null
}

/// Resource limits of the JSON reader: each stops one way crafted input could make it allocate or
/// recurse without bound.
enum JSONLimits {
    /// Deepest nesting of arrays and objects. Real location exports nest fewer than 10 levels;
    /// stops `[[[[...` from growing the container stack with the file.
    static let maxDepth = 512
    /// Longest single token (a string or number). Google exports' longest strings are addresses
    /// and place ids of a few hundred bytes; stops one endless string from taking the memory a
    /// whole file would.
    static let maxTokenBytes = 64 * 1024 * 1024
}

/// A streaming JSON pull reader: tokens one at a time from a `ByteInput`, in bounded memory (a
/// window of 1 MiB that grows only for one longer token), with the grammar checked as it goes
/// (a missing comma or colon, a bad escape, text after the value: each is a `FormatError` with the
/// byte offset). No value tree is built: a 1 GB `Records.json` costs the window and the caller's
/// own state.
///
/// The text of the current key, string or number stays valid until the next call of `next()`.
public final class JSONReader {
    private enum State: UInt8 { case start, value, keyOrEnd, key, colon, valueOrEnd, commaOrEnd, done }
    private static let objectMark: UInt8 = 0, arrayMark: UInt8 = 1

    private let window: InputWindow
    private var pos = 0
    private var state = State.start
    private var stack: [UInt8] = []
    private var tokStart = 0, tokEnd = 0
    private var tokEscaped = false
    private var decoded: [UInt8] = []
    private var decodedValid = false
    /// The token `next()` returned last (nil before the first and after the end).
    public private(set) var token: JSONToken?
    /// Input offset of the first byte of the current token.
    public private(set) var tokenOffset: Int64 = 0

    public init(input: ByteInput, bufferSize: Int = 1 << 20) {
        window = InputWindow(input: input, initialCapacity: bufferSize, limit: JSONLimits.maxTokenBytes,
                             format: "JSON")
        stack.reserveCapacity(16)
    }

    /// How many arrays and objects enclose the current position (an `objectStart` counts itself,
    /// an `objectEnd` no longer does).
    public var depth: Int { stack.count }

    /// True when the innermost open container is an array.
    var inArray: Bool { stack.last == JSONReader.arrayMark }

    private func fail(_ reason: String, at index: Int? = nil) -> FormatError {
        FormatError(format: "JSON", offset: window.baseOffset + Int64(index ?? pos), reason: reason)
    }

    /// The next token, or nil after the one top-level value has ended (only white space may follow).
    public func next() throws -> JSONToken? {
        decodedValid = false
        while true {
            // White space (RFC 8259 section 2: space, tab, LF, CR).
            var p = pos
            var eof = false
            while true {
                let base = window.base, end = window.end
                while p < end, base[p] == 0x20 || base[p] == 0x0A || base[p] == 0x0D || base[p] == 0x09 { p += 1 }
                if p < end { break }
                let r = try window.refill(keeping: p)
                p -= r.shift
                if !r.more { eof = true; break }
            }
            pos = p
            if eof {
                switch state {
                case .done: token = nil; return nil
                case .start: throw fail("no JSON value (empty input)")
                default: throw fail("the input ends inside \(stack.last == JSONReader.arrayMark ? "an array" : stack.isEmpty ? "a value" : "an object")")
                }
            }
            let c = window.base[p]
            switch state {
            case .done:
                throw fail("more text after the JSON value")
            case .colon:
                guard c == UInt8(ascii: ":") else { throw fail("expected ':' after a member name") }
                pos += 1
                state = .value
                continue
            case .commaOrEnd:
                let top = stack.last!
                if c == UInt8(ascii: ",") {
                    pos += 1
                    state = top == JSONReader.objectMark ? .key : .value
                    continue
                }
                if (c == UInt8(ascii: "}") && top == JSONReader.objectMark)
                    || (c == UInt8(ascii: "]") && top == JSONReader.arrayMark) {
                    return closeContainer()
                }
                throw fail(top == JSONReader.objectMark ? "expected ',' or '}'" : "expected ',' or ']'")
            case .keyOrEnd, .key:
                if c == UInt8(ascii: "}") && state == .keyOrEnd { return closeContainer() }
                guard c == UInt8(ascii: "\"") else { throw fail("expected a member name in quotes") }
                try scanString()
                state = .colon
                token = .key
                return .key
            case .valueOrEnd, .value, .start:
                if c == 0xEF, state == .start, window.baseOffset + Int64(p) == 0, try skipByteOrderMark() { continue }
                if c == UInt8(ascii: "]") && state == .valueOrEnd { return closeContainer() }
                return try scanValue(c)
            }
        }
    }

    /// A UTF-8 byte order mark at the very start (`pos`, offset 0) is read past: RFC 8259
    /// section 8.1 lets a parser ignore it, and Windows tools and some exports write one (the
    /// files were recognised by their content, then refused at byte 0). False when the bytes
    /// only begin like one (then the value is read as it is, and refused as before).
    private func skipByteOrderMark() throws -> Bool {
        var p = pos
        while window.end - p < 3 {
            let r = try window.refill(keeping: p)
            p -= r.shift
            if !r.more { break }
        }
        pos = p
        guard window.end - p >= 3, window.base[p + 1] == 0xBB, window.base[p + 2] == 0xBF else { return false }
        pos = p + 3
        return true
    }

    private func closeContainer() -> JSONToken {
        let top = stack.removeLast()
        tokenOffset = window.baseOffset + Int64(pos)
        pos += 1
        state = stack.isEmpty ? .done : .commaOrEnd
        let t: JSONToken = top == JSONReader.objectMark ? .objectEnd : .arrayEnd
        token = t
        return t
    }

    private func afterScalar(_ t: JSONToken) -> JSONToken {
        state = stack.isEmpty ? .done : .commaOrEnd
        token = t
        return t
    }

    private func scanValue(_ c: UInt8) throws -> JSONToken {
        tokenOffset = window.baseOffset + Int64(pos)
        switch c {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            guard stack.count < JSONLimits.maxDepth else {
                throw fail("nested deeper than \(JSONLimits.maxDepth) levels")
            }
            pos += 1
            let isObject = c == UInt8(ascii: "{")
            stack.append(isObject ? JSONReader.objectMark : JSONReader.arrayMark)
            state = isObject ? .keyOrEnd : .valueOrEnd
            token = isObject ? .objectStart : .arrayStart
            return token!
        case UInt8(ascii: "\""):
            try scanString()
            return afterScalar(.string)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            try scanNumber()
            return afterScalar(.number)
        case UInt8(ascii: "t"):
            try scanLiteral("true")
            return afterScalar(.true)
        case UInt8(ascii: "f"):
            try scanLiteral("false")
            return afterScalar(.false)
        case UInt8(ascii: "n"):
            try scanLiteral("null")
            return afterScalar(.null)
        default:
            throw fail("unexpected byte 0x\(String(c, radix: 16)) where a value was expected")
        }
    }

    private func scanLiteral(_ word: StaticString) throws {
        let n = word.utf8CodeUnitCount
        while window.end - pos < n {
            let r = try window.refill(keeping: pos)
            pos -= r.shift
            if !r.more { throw fail("the input ends inside a literal") }
        }
        if memcmp(window.base + pos, word.utf8Start, n) != 0 { throw fail("not a JSON value") }
        pos += n
        // The literal must end there ("truex" is not a value).
        if pos == window.end {
            let r = try window.refill(keeping: pos)
            pos -= r.shift
        }
        if pos < window.end, JSONReader.isWordByte(window.base[pos]) { throw fail("not a JSON value") }
    }

    private static func isWordByte(_ c: UInt8) -> Bool {
        (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2E
            || c == 0x2B || c == 0x2D || c == 0x5F
    }

    /// `pos` at the opening quote; on return the content is `[tokStart, tokEnd)` and `pos` is
    /// after the closing quote.
    private func scanString() throws {
        tokenOffset = window.baseOffset + Int64(pos)
        var start = pos      // the quote, kept through refills
        var p = pos + 1
        var escaped = false
        while true {
            if p >= window.end {
                let r = try window.refill(keeping: start)
                start -= r.shift
                p -= r.shift
                if !r.more { throw fail("the input ends inside a string", at: start) }
                continue
            }
            let base = window.base
            let end = window.end
            var q = p
            // The hot loop: plain bytes.
            while q < end {
                let c = base[q]
                if c == 0x22 || c == 0x5C || c < 0x20 { break }
                q += 1
            }
            p = q
            if p == end { continue }
            let c = base[p]
            if c == 0x22 {
                tokStart = start + 1
                tokEnd = p
                tokEscaped = escaped
                pos = p + 1
                return
            }
            if c < 0x20 { throw fail("a control character inside a string", at: p) }
            // A backslash: the escaped byte must be there too (checked when decoded, here only skipped).
            escaped = true
            if p + 1 >= window.end {
                let r = try window.refill(keeping: start)
                start -= r.shift
                p -= r.shift
                if !r.more || p + 1 >= window.end { throw fail("the input ends inside a string", at: start) }
            }
            let e = window.base[p + 1]
            switch e {
            case 0x22, 0x5C, 0x2F, 0x62, 0x66, 0x6E, 0x72, 0x74, 0x75: p += 2
            default: throw fail("a bad escape \\\(Character(Unicode.Scalar(e))) inside a string", at: p)
            }
        }
    }

    private func scanNumber() throws {
        var start = pos
        var p = pos
        while true {
            let base = window.base, end = window.end
            while p < end {
                let c = base[p]
                guard (c >= 0x30 && c <= 0x39) || c == 0x2D || c == 0x2B || c == 0x2E || c == 0x65 || c == 0x45 else { break }
                p += 1
            }
            if p < end {
                if JSONReader.isWordByte(base[p]) { throw fail("not a number", at: start) }
                break
            }
            let r = try window.refill(keeping: start)
            start -= r.shift
            p -= r.shift
            if !r.more { break }
        }
        tokStart = start
        tokEnd = p
        tokEscaped = false
        pos = p
        guard JSONReader.isValidNumber(window.base + start, count: p - start) else {
            throw fail("not a number", at: start)
        }
    }

    /// RFC 8259 section 6: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    static func isValidNumber(_ b: UnsafePointer<UInt8>, count n: Int) -> Bool {
        var i = 0
        func digit(_ k: Int) -> Bool { k < n && b[k] >= 0x30 && b[k] <= 0x39 }
        if i < n && b[i] == 0x2D { i += 1 }
        guard digit(i) else { return false }
        if b[i] == 0x30 { i += 1 } else { while digit(i) { i += 1 } }
        if i < n && b[i] == 0x2E {
            i += 1
            guard digit(i) else { return false }
            while digit(i) { i += 1 }
        }
        if i < n && (b[i] == 0x65 || b[i] == 0x45) {
            i += 1
            if i < n && (b[i] == 0x2B || b[i] == 0x2D) { i += 1 }
            guard digit(i) else { return false }
            while digit(i) { i += 1 }
        }
        return i == n
    }

    // MARK: The current token's text

    /// The decoded bytes of the current key or string (escapes resolved), or the number's text.
    func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        if !tokEscaped {
            return try body(UnsafeBufferPointer(start: window.base + tokStart, count: tokEnd - tokStart))
        }
        if !decodedValid { decodeEscapes() }
        return try decoded.withUnsafeBufferPointer(body)
    }

    /// The current key or string as text (invalid UTF-8 replaced by U+FFFD); a number's text.
    public var string: String {
        withBytes { String(decoding: $0, as: UTF8.self) }
    }

    /// Whether the current key or string is exactly `literal`.
    public func matches(_ literal: StaticString) -> Bool {
        if !tokEscaped {
            let n = tokEnd - tokStart
            return n == literal.utf8CodeUnitCount && memcmp(window.base + tokStart, literal.utf8Start, n) == 0
        }
        return withBytes { b in
            b.count == literal.utf8CodeUnitCount && memcmp(b.baseAddress!, literal.utf8Start, b.count) == 0
        }
    }

    /// The current number (or a string holding a number, as Google writes `timestampMs`) as a
    /// Double; nil when it is not one.
    public var double: Double? {
        withBytes { b -> Double? in
            guard b.count > 0, b.count < 64 else { return nil }
            if let i = JSONReader.parseInt(b), abs(i) < (1 << 53) { return Double(i) }
            guard JSONReader.isValidNumber(b.baseAddress!, count: b.count) else { return nil }
            return withUnsafeTemporaryAllocation(of: CChar.self, capacity: b.count + 1) { tmp in
                for k in 0..<b.count { tmp[k] = CChar(bitPattern: b[k]) }
                tmp[b.count] = 0
                let v = strtod(tmp.baseAddress!, nil)
                return v.isFinite ? v : nil
            }
        }
    }

    /// The current number or numeric string as an integer; nil when it is not a whole number in
    /// range.
    public var int64: Int64? {
        withBytes { JSONReader.parseInt($0) }
    }

    static func parseInt(_ b: UnsafeBufferPointer<UInt8>) -> Int64? {
        var i = 0
        var negative = false
        if i < b.count && b[i] == 0x2D { negative = true; i += 1 }
        guard i < b.count, b.count - i <= 18 else { return nil }
        var v: Int64 = 0
        while i < b.count {
            let d = b[i] &- 0x30
            guard d < 10 else { return nil }
            v = v * 10 + Int64(d)
            i += 1
        }
        return negative ? -v : v
    }

    private func decodeEscapes() {
        decoded.removeAll(keepingCapacity: true)
        let b = window.base
        var i = tokStart
        let end = tokEnd
        func hex4(_ k: Int) -> UInt32? {
            guard k + 4 <= end else { return nil }
            var v: UInt32 = 0
            for j in k..<(k + 4) {
                let c = b[j]
                let d: UInt8
                switch c {
                case 0x30...0x39: d = c - 0x30
                case 0x41...0x46: d = c - 0x41 + 10
                case 0x61...0x66: d = c - 0x61 + 10
                default: return nil
                }
                v = v << 4 | UInt32(d)
            }
            return v
        }
        func append(_ scalar: UInt32) {
            let s = Unicode.Scalar(scalar) ?? "\u{FFFD}"
            decoded.append(contentsOf: String(Character(s)).utf8)
        }
        while i < end {
            let c = b[i]
            if c != 0x5C { decoded.append(c); i += 1; continue }
            let e = b[i + 1]
            i += 2
            switch e {
            case 0x62: decoded.append(0x08)
            case 0x66: decoded.append(0x0C)
            case 0x6E: decoded.append(0x0A)
            case 0x72: decoded.append(0x0D)
            case 0x74: decoded.append(0x09)
            case 0x75:
                guard let u = hex4(i) else { append(0xFFFD); continue }
                i += 4
                if u >= 0xD800 && u < 0xDC00, i + 6 <= end, b[i] == 0x5C, b[i + 1] == 0x75,
                   let low = hex4(i + 2), low >= 0xDC00 && low < 0xE000 {
                    i += 6
                    append(0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00))
                } else {
                    append(u)  // a lone surrogate becomes U+FFFD
                }
            default: decoded.append(e)  // " \ /
            }
        }
        decodedValid = true
    }

    /// Skips what the current token opens: after `objectStart`/`arrayStart`, everything up to
    /// and including the matching end; after `key`, its whole value. Otherwise nothing.
    public func skipValue() throws {
        switch token {
        case .objectStart?, .arrayStart?:
            let d = depth
            while depth >= d {
                guard try next() != nil else { return }
            }
        case .key?:
            guard let t = try next() else { return }
            if t == .objectStart || t == .arrayStart { try skipValue() }
        default:
            return
        }
    }
}
