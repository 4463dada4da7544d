#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One event of an XML document, as `XMLPullParser.next()` returns it.
public enum XMLEvent: UInt8, Sendable, Hashable {
    /// `name`, `attributes` hold the element's. An empty element `<a/>` gives a start and an end.
    case startElement
    case endElement
    /// Character data or a CDATA section, entities resolved (`XMLPullParser.text`). One run of
    /// text may come as several events (around comments, CDATA sections).
    case text
}

/// An attribute of the current start tag: its qualified name as written, and its value with
/// entities resolved.
public struct XMLAttribute: Sendable, Hashable {
    public var name: String
    public var value: String
    /// The name after its namespace prefix (`xsi:schemaLocation` → `schemaLocation`).
    public var localName: Substring { XMLPullParser.local(name) }
}

/// Resource limits of the XML parser.
public enum XMLLimits {
    /// Deepest element nesting. GPX and KML nest fewer than 10 levels; stops `<a><a><a>...` from
    /// growing the element stack with the file.
    public static let maxDepth = 1_024
    /// Longest token (a tag with its attributes, one run of text, a comment). KML puts a whole
    /// LineString in one `<coordinates>` text, a few MiB at most; stops one endless token from
    /// taking the memory a whole file would.
    public static let maxTokenBytes = 64 * 1024 * 1024
    /// Most attributes on one tag. Stops a tag of a million attributes.
    public static let maxAttributes = 256
}

/// A streaming XML 1.0 pull parser over a `ByteInput`, in bounded memory, written for the track
/// and place files of this module (GPX, KML, TCX): it needs no libxml2, so the static release
/// binary keeps working.
///
/// What it checks: tags nest and match, attributes are quoted, the document has a root. What it
/// does not do: validation, namespaces beyond splitting the prefix (`localName`), external or
/// internal entity definitions (a DOCTYPE is skipped; only the five predefined entities and
/// character references are resolved, an unknown one is kept as written), encodings other than
/// UTF-8 (ASCII and UTF-8 are what these files are written in; invalid bytes become U+FFFD).
public final class XMLPullParser {
    private let window: InputWindow
    private var pos = 0
    /// Start of the token being scanned; refills keep the bytes from here.
    private var mark = 0
    private var stack: [String] = []
    private var pendingEnd = false
    private var sawRoot = false
    private var started = false

    /// The qualified name of the current start or end element (`gx:Track`).
    public private(set) var name = ""
    public private(set) var attributes: [XMLAttribute] = []
    /// The current text event's characters.
    public private(set) var text = ""
    /// Input offset where the current event's markup or text begins.
    public private(set) var offset: Int64 = 0

    public init(input: ByteInput, bufferSize: Int = 1 << 18) {
        window = InputWindow(input: input, initialCapacity: bufferSize, limit: XMLLimits.maxTokenBytes,
                             format: "XML")
    }

    /// Open elements around the current position (a start event counts its own element).
    public var depth: Int { stack.count }

    /// The current element's name after its namespace prefix (`gx:coord` → `coord`).
    public var localName: Substring { XMLPullParser.local(name) }

    static func local(_ name: String) -> Substring {
        if let colon = name.lastIndex(of: ":") { return name[name.index(after: colon)...] }
        return name[...]
    }

    /// The value of the current start tag's attribute with this local name (prefix ignored).
    public func attribute(_ localName: String) -> String? {
        attributes.first { $0.localName == localName }?.value
    }

    private func fail(_ reason: String, at index: Int? = nil) -> FormatError {
        FormatError(format: "XML", offset: window.baseOffset + Int64(index ?? pos), reason: reason)
    }

    /// Makes at least `need` bytes available from `pos`, keeping those from `mark`. False at the
    /// end of the input.
    private func fill(_ need: Int) throws -> Bool {
        while window.end - pos < need {
            let r = try window.refill(keeping: mark)
            pos -= r.shift
            mark -= r.shift
            if !r.more { return window.end - pos >= need }
        }
        return true
    }

    private func byte(_ k: Int = 0) -> UInt8 { window.base[pos + k] }

    private func startsWith(_ s: StaticString) throws -> Bool {
        guard try fill(s.utf8CodeUnitCount) else { return false }
        return memcmp(window.base + pos, s.utf8Start, s.utf8CodeUnitCount) == 0
    }

    /// Advances `pos` past the next occurrence of `terminator`; throws `what` at the end of input.
    private func skip(past terminator: StaticString, inside what: String) throws {
        let n = terminator.utf8CodeUnitCount
        let first = terminator.utf8Start[0]
        while true {
            guard try fill(n) else { throw fail("the document ends inside \(what)", at: mark) }
            let base = window.base
            let last = window.end - n
            var p = pos
            while p <= last {
                if base[p] == first && memcmp(base + p, terminator.utf8Start, n) == 0 {
                    pos = p + n
                    return
                }
                p += 1
            }
            pos = last + 1
        }
    }

    private static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 }
    private static func isNameEnd(_ c: UInt8) -> Bool {
        isSpace(c) || c == 0x2F || c == 0x3E || c == 0x3D || c == 0x3C || c == 0x22 || c == 0x27
    }

    private func skipSpace() throws {
        while true {
            guard try fill(1) else { return }
            if XMLPullParser.isSpace(byte()) { pos += 1 } else { return }
        }
    }

    /// The next event, or nil after the root element has ended.
    public func next() throws -> XMLEvent? {
        if pendingEnd {
            pendingEnd = false
            name = stack.removeLast()
            attributes = []
            return .endElement
        }
        if !started {
            started = true
            if try startsWith("\u{FEFF}") { pos += 3 }
        }
        while true {
            mark = pos
            offset = window.baseOffset + Int64(pos)
            guard try fill(1) else {
                if let open = stack.last { throw fail("the document ends inside <\(open)>") }
                if !sawRoot { throw fail("no root element") }
                return nil
            }
            if byte() != 0x3C {
                // Character data up to the next '<'.
                var hasEntity = false
                while true {
                    guard try fill(1) else { break }
                    let base = window.base
                    let end = window.end
                    var p = pos
                    while p < end {
                        let c = base[p]
                        if c == 0x3C { break }
                        if c == 0x26 { hasEntity = true }
                        p += 1
                    }
                    pos = p
                    if p < end { break }
                }
                if stack.isEmpty {
                    // Outside the root only white space is allowed.
                    for k in mark..<pos where !XMLPullParser.isSpace(window.base[k]) {
                        throw fail(sawRoot ? "text after the root element" : "text before the root element", at: k)
                    }
                    continue
                }
                text = XMLPullParser.decode(window.base + mark, count: pos - mark, entities: hasEntity)
                return .text
            }
            guard try fill(2) else { throw fail("the document ends inside a tag") }
            switch byte(1) {
            case 0x2F: // </name>
                pos += 2
                let n = try scanTagName()
                try skipSpace()
                guard try fill(1), byte() == 0x3E else { throw fail("expected '>' to close </\(n)") }
                pos += 1
                guard let open = stack.last else { throw fail("</\(n)> closes nothing", at: mark) }
                guard open == n else { throw fail("</\(n)> closes <\(open)>", at: mark) }
                stack.removeLast()
                name = n
                attributes = []
                return .endElement
            case 0x3F: // <? ... ?>
                pos += 2
                mark = pos
                try skip(past: "?>", inside: "a processing instruction")
                continue
            case 0x21: // <!-- -->, <![CDATA[ ]]>, <!DOCTYPE >
                if try startsWith("<!--") {
                    pos += 4
                    mark = pos  // a comment's bytes are not kept
                    try skip(past: "-->", inside: "a comment")
                    continue
                }
                if try startsWith("<![CDATA[") {
                    guard !stack.isEmpty else { throw fail("a CDATA section outside the root element") }
                    pos += 9
                    let contentStart = pos - mark
                    try skip(past: "]]>", inside: "a CDATA section")
                    text = String(decoding: UnsafeBufferPointer(start: window.base + mark + contentStart,
                                                                 count: pos - 3 - mark - contentStart),
                                  as: UTF8.self)
                    return .text
                }
                if try startsWith("<!DOCTYPE") {
                    guard !sawRoot else { throw fail("a DOCTYPE after the root element") }
                    try skipDoctype()
                    continue
                }
                throw fail("unknown markup '<!'")
            default:
                try scanStartTag()
                return .startElement
            }
        }
    }

    /// A name at `pos` (the tag's), ending at white space, '/', '>'.
    private func scanTagName() throws -> String {
        let startOffset = pos - mark
        while true {
            guard try fill(1) else { throw fail("the document ends inside a tag") }
            if XMLPullParser.isNameEnd(byte()) { break }
            pos += 1
        }
        let length = pos - mark - startOffset
        guard length > 0 else { throw fail("a tag without a name") }
        return String(decoding: UnsafeBufferPointer(start: window.base + mark + startOffset, count: length),
                      as: UTF8.self)
    }

    private func scanStartTag() throws {
        guard stack.count < XMLLimits.maxDepth else { throw fail("elements nested deeper than \(XMLLimits.maxDepth)") }
        if stack.isEmpty && sawRoot { throw fail("a second root element") }
        pos += 1
        let n = try scanTagName()
        var attrs: [XMLAttribute] = []
        while true {
            try skipSpace()
            guard try fill(1) else { throw fail("the document ends inside <\(n)>") }
            let c = byte()
            if c == 0x3E { pos += 1; break }
            if c == 0x2F {
                guard try fill(2), byte(1) == 0x3E else { throw fail("expected '>' after '/' in <\(n)>") }
                pos += 2
                pendingEnd = true
                break
            }
            let attrName = try scanTagName()
            try skipSpace()
            guard try fill(1), byte() == 0x3D else { throw fail("attribute \(attrName) of <\(n)> has no '='") }
            pos += 1
            try skipSpace()
            guard try fill(1), byte() == 0x22 || byte() == 0x27 else {
                throw fail("attribute \(attrName) of <\(n)> is not quoted")
            }
            let quote = byte()
            pos += 1
            let valueStart = pos - mark
            var hasEntity = false
            while true {
                guard try fill(1) else { throw fail("the document ends inside an attribute value") }
                let c = byte()
                if c == quote { break }
                if c == 0x3C { throw fail("'<' inside the value of attribute \(attrName)") }
                if c == 0x26 { hasEntity = true }
                pos += 1
            }
            let value = XMLPullParser.decode(window.base + mark + valueStart, count: pos - mark - valueStart,
                                             entities: hasEntity, attribute: true)
            pos += 1
            guard attrs.count < XMLLimits.maxAttributes else { throw fail("more than \(XMLLimits.maxAttributes) attributes on <\(n)>") }
            attrs.append(XMLAttribute(name: attrName, value: value))
        }
        sawRoot = true
        stack.append(n)
        name = n
        attributes = attrs
    }

    /// `<!DOCTYPE name [ internal subset ]>`: skipped, brackets and quotes respected.
    private func skipDoctype() throws {
        pos += 9
        var bracket = 0
        var quote: UInt8 = 0
        while true {
            guard try fill(1) else { throw fail("the document ends inside a DOCTYPE", at: mark) }
            let c = byte()
            pos += 1
            if quote != 0 { if c == quote { quote = 0 }; continue }
            switch c {
            case 0x22, 0x27: quote = c
            case 0x5B: bracket += 1
            case 0x5D: bracket -= 1
            case 0x3E where bracket <= 0: return
            default: break
            }
            // Keep the window from growing with a long internal subset.
            if pos - mark > 4096 { mark = pos }
        }
    }

    /// Text with the predefined entities and character references resolved (XML 1.0 section 4.6,
    /// 4.1); an attribute's white space characters become spaces (section 3.3.3). An unknown
    /// entity is kept as written.
    static func decode(_ b: UnsafePointer<UInt8>, count n: Int, entities: Bool, attribute: Bool = false) -> String {
        if !entities && !attribute { return String(decoding: UnsafeBufferPointer(start: b, count: n), as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(n)
        var i = 0
        while i < n {
            let c = b[i]
            if attribute && (c == 0x0A || c == 0x0D || c == 0x09) { out.append(0x20); i += 1; continue }
            guard c == 0x26 else { out.append(c); i += 1; continue }
            var j = i + 1
            while j < n && j - i < 12 && b[j] != 0x3B { j += 1 }
            guard j < n && b[j] == 0x3B else { out.append(c); i += 1; continue }
            let ref = String(decoding: UnsafeBufferPointer(start: b + i + 1, count: j - i - 1), as: UTF8.self)
            var scalar: UInt32?
            switch ref {
            case "lt": scalar = 0x3C
            case "gt": scalar = 0x3E
            case "amp": scalar = 0x26
            case "quot": scalar = 0x22
            case "apos": scalar = 0x27
            default:
                if ref.hasPrefix("#x") || ref.hasPrefix("#X") {
                    scalar = UInt32(ref.dropFirst(2), radix: 16)
                } else if ref.hasPrefix("#") {
                    scalar = UInt32(ref.dropFirst(1), radix: 10)
                }
            }
            if let s = scalar {
                let u = Unicode.Scalar(s) ?? "\u{FFFD}"
                out.append(contentsOf: String(Character(u)).utf8)
            } else {
                out.append(contentsOf: UnsafeBufferPointer(start: b + i, count: j - i + 1))
            }
            i = j + 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    // MARK: Conveniences

    /// After a start event: the element's text (its own and its descendants', in order) up to and
    /// including its end tag.
    public func readText() throws -> String {
        let d = depth
        var collected = ""
        while let e = try next() {
            switch e {
            case .text: collected += text
            case .endElement where depth < d: return collected
            default: break
            }
        }
        return collected
    }

    /// After a start event: everything up to and including the element's end tag.
    public func skipElement() throws {
        let d = depth
        while let e = try next() {
            if e == .endElement && depth < d { return }
        }
    }
}
