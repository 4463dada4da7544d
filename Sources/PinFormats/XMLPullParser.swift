#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PinGrammar

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

/// Resource limits of the XML parser (the others are `XMLOptions`').
enum XMLLimits {
    /// Longest token (a tag with its attributes, one run of text, a comment). KML puts a whole
    /// LineString in one `<coordinates>` text, a few MiB at most; stops one endless token from
    /// taking the memory a whole file would.
    static let maxTokenBytes = 64 * 1024 * 1024
}

/// A streaming XML 1.0 pull parser over a `ByteInput`, in bounded memory: the project's one XML
/// reader, for the track and place files (GPX, KML, TCX) and for XMP packets and sidecars
/// (PinMetadata), each with its `XMLOptions`. It needs no libxml2, so the static release binary
/// keeps working.
///
/// What it checks: tags nest and match, attributes are quoted, the document has a root (not in a
/// packet), and what `options` asks: references that resolve, no DOCTYPE, namespace prefixes
/// that are bound, the limits. What it does not do: validation, external or internal entity
/// definitions (a DOCTYPE is skipped or refused; only the five predefined entities and
/// character references are resolved), encodings other than UTF-8 (ASCII and UTF-8 are what
/// these files are written in; invalid bytes become U+FFFD). Without `options.namespaces` a
/// prefix is only split off (`localName`).
///
/// An event costs no String: the names, attributes and text stay bytes in the window (names of
/// open elements in one flat buffer) until `name`, `attributes`, `text` or `attribute(_:)` asks
/// for them, so a reader that matches names with `localNameIs` and reads values as bytes
/// (`withAttribute`, `readTextBytes`) reads a 1 GB track without making one String a point.
public final class XMLPullParser {
    private let window: InputWindow
    private var pos = 0
    /// Start of the token being scanned; refills keep the bytes from here.
    private var mark = 0
    /// The names of the open elements, one after the other in `nameBytes`; `nameStarts[k]` is
    /// where the k-th begins (it ends where the next begins, the last at `nameEnd`).
    private var nameBytes = ByteStack()
    private var nameStarts: [Int] = []
    private var nameEnd = 0
    /// The current event's element name: `nameBytes[currentName]` (an end event's name stays
    /// there, past `nameEnd`, until the next start).
    private var currentName = 0..<0
    private var currentLocal = 0
    private var nameCache: String?
    /// The current start tag's attributes, as offsets from `mark` (the tag's '<').
    private struct Span { var name: Range<Int>; var value: Range<Int>; var entities: Bool }
    private var spans: [Span] = []
    /// The current text event's bytes `[textRange)` of the window, and how to read them: a CDATA
    /// section's or not, and whether they hold something `decodeText` changes (a CR, or a
    /// reference outside CDATA) or can be read as written.
    private var textRange = 0..<0
    private var textIsCDATA = false
    private var textNeedsDecoding = false
    private var scratch: [UInt8] = []
    private var textCopy = ByteStack()
    private var pendingEnd = false
    private var sawRoot = false
    private var started = false
    /// A packet's trailer has been read (`options.packet`): `next()` gives nil from now on.
    private var finished = false
    private var elements = 0
    private let options: XMLOptions
    /// With `options.namespaces`: the bindings in scope.
    private var scope = XMLNamespaceScope()
    /// With `options.namespaces`, at a start event: its attributes but the namespace
    /// declarations, each with its namespace.
    public private(set) var namespacedAttributes: [XMLNamespacedAttribute] = []
    /// With `options.namespaces`: the namespace URI of the current start or end element ("" for
    /// none), and its local name (after its prefix and the first colon: `x:a:b` is `a:b` in
    /// `x`'s namespace, where `localName` is `b`).
    public private(set) var namespaceURI = ""
    public private(set) var namespaceLocalName = ""

    /// Input offset where the current event's markup or text begins.
    public private(set) var offset: Int64 = 0
    /// At an end event from an end tag: the input offset of its `</` (`offset`); nil at the end
    /// of an empty element `<a/>` (it has no end tag) and at other events. A sidecar's editor
    /// inserts there, before `</rdf:RDF>`.
    public var endTagOffset: Int64? { endFromTag ? offset : nil }
    private var endFromTag = false
    /// With `options.packet`, once `next()` has given nil: where the bytes after the packet's
    /// root element and trailer begin; nil when nothing follows them.
    public private(set) var trailingOffset: Int64?

    public init(input: ByteInput, bufferSize: Int = 1 << 18, options: XMLOptions = XMLOptions()) {
        window = InputWindow(input: input, initialCapacity: bufferSize, limit: XMLLimits.maxTokenBytes,
                             format: "XML")
        self.options = options
        nameStarts.reserveCapacity(16)
        spans.reserveCapacity(8)
    }

    /// Open elements around the current position (a start event counts its own element).
    public var depth: Int { nameStarts.count }

    /// The qualified name of the current start or end element (`gx:Track`).
    public var name: String {
        if let nameCache { return nameCache }
        let s = String(decoding: UnsafeBufferPointer(rebasing: nameBytes.buffer[currentName]), as: UTF8.self)
        nameCache = s
        return s
    }

    /// The current element's name after its namespace prefix (`gx:coord` → `coord`).
    public var localName: Substring { XMLPullParser.local(name) }

    static func local(_ name: String) -> Substring {
        if let colon = name.lastIndex(of: ":") { return name[name.index(after: colon)...] }
        return name[...]
    }

    /// Where the local part of `b[range]` begins (after the last ':').
    private static func localStart(_ b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int {
        var k = range.upperBound
        while k > range.lowerBound && b[k - 1] != 0x3A { k -= 1 }
        return k
    }

    /// Whether `b[range]` is `s` (a loop: the names are a few bytes, shorter than a call of memcmp).
    @inline(__always)
    private static func equal(_ b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ s: StaticString) -> Bool {
        guard range.count == s.utf8CodeUnitCount else { return false }
        let p = s.utf8Start
        for k in 0..<range.count where b[range.lowerBound + k] != p[k] { return false }
        return true
    }

    /// Whether the current element's local name is `local` (`localName == local`, without a String).
    func localNameIs(_ local: StaticString) -> Bool {
        XMLPullParser.equal(nameBytes.buffer, currentLocal..<currentName.upperBound, local)
    }

    /// The current name and where its local part begins.
    private func setCurrentName(_ range: Range<Int>) {
        currentName = range
        currentLocal = XMLPullParser.localStart(nameBytes.buffer, range)
    }

    /// The current start tag's attributes (none at other events).
    public var attributes: [XMLAttribute] {
        let b = UnsafeBufferPointer(start: window.base + mark, count: window.end - mark)
        return spans.map { s in
            XMLAttribute(name: String(decoding: UnsafeBufferPointer(rebasing: b[s.name]), as: UTF8.self),
                         value: XMLPullParser.decode(b.baseAddress! + s.value.lowerBound, count: s.value.count,
                                                     entities: s.entities, attribute: true))
        }
    }

    /// The first of the current start tag's attributes whose name, after its prefix, passes `matches`.
    private func span(_ matches: (UnsafeBufferPointer<UInt8>, Range<Int>) -> Bool) -> Span? {
        let b = UnsafeBufferPointer(start: window.base + mark, count: window.end - mark)
        return spans.first { matches(b, XMLPullParser.localStart(b, $0.name)..<$0.name.upperBound) }
    }

    /// The value of the current start tag's attribute with this local name (prefix ignored).
    public func attribute(_ localName: String) -> String? {
        let wanted = Array(localName.utf8)
        guard let s = span({ b, r in r.count == wanted.count && memcmp(b.baseAddress! + r.lowerBound, wanted, r.count) == 0 }) else {
            return nil
        }
        return XMLPullParser.decode(window.base + mark + s.value.lowerBound, count: s.value.count, entities: s.entities, attribute: true)
    }

    /// `body` over the bytes of the attribute `attribute(local)` would give (entities resolved,
    /// white space characters as spaces); nil without one.
    func withAttribute<R>(_ local: StaticString, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R? {
        guard let s = span({ b, r in XMLPullParser.equal(b, r, local) }) else { return nil }
        let start = window.base + mark + s.value.lowerBound
        let plain = !s.entities && !UnsafeBufferPointer(start: start, count: s.value.count).contains { $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        if plain { return body(UnsafeBufferPointer(start: start, count: s.value.count)) }
        if !scratch.isEmpty { scratch.removeAll(keepingCapacity: true) }
        XMLPullParser.decode(start, count: s.value.count, entities: s.entities, attribute: true, into: &scratch)
        return scratch.withUnsafeBufferPointer(body)
    }

    /// The current text event's characters (empty at other events).
    public var text: String {
        let b = UnsafeBufferPointer(start: window.base + textRange.lowerBound, count: textRange.count)
        if !textNeedsDecoding { return String(decoding: b, as: UTF8.self) }
        var out: [UInt8] = []
        decodeText(b, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// The current text event's characters as `text` gives them, appended to `out`: line ends
    /// normalised (XML 1.0 section 2.11), and outside CDATA references resolved.
    private func decodeText(_ b: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        if textIsCDATA {
            XMLReferences.normaliseLineEnds(b, into: &out)
        } else {
            _ = XMLReferences.decode(b, attribute: false, unresolved: .keep, into: &out)
        }
    }

    private func fail(_ reason: String, at index: Int? = nil) -> FormatError {
        FormatError(format: "XML", offset: window.baseOffset + Int64(index ?? pos), reason: reason)
    }

    /// Makes at least `need` bytes available from `pos`, keeping those from `mark`. False at the
    /// end of the input.
    @inline(__always)
    private func fill(_ need: Int) throws -> Bool {
        window.end - pos >= need ? true : try refill(need)
    }

    private func refill(_ need: Int) throws -> Bool {
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

    /// Advances `pos` over the bytes `keep` accepts, reading more as needed; false when the input
    /// ends first.
    @inline(__always)
    private func advance(while keep: (UInt8) -> Bool) throws -> Bool {
        var p = pos
        while true {
            let base = window.base, end = window.end
            while p < end && keep(base[p]) { p += 1 }
            pos = p
            if p < end { return true }
            guard try fill(1) else { return false }
            p = pos
        }
    }

    private func skipSpace() throws {
        _ = try advance(while: XMLPullParser.isSpace)
    }

    /// The next event, or nil after the root element has ended (with `options.packet`, also for
    /// bytes that hold no root element).
    public func next() throws -> XMLEvent? {
        forgetLastEvent()
        if pendingEnd {
            pendingEnd = false
            popName()
            return .endElement
        }
        if !started { try startDocument() }
        if options.packet && sawRoot && depth == 0 { return try packetTrailer() }
        while true {
            mark = pos
            offset = window.baseOffset + Int64(pos)
            guard try fill(1) else {
                if depth > 0 { throw fail("the document ends inside <\(openName(depth - 1))>") }
                if !sawRoot && !options.packet { throw fail("no root element") }
                return nil
            }
            if byte() != 0x3C {
                if try characterData() { return .text }
                continue
            }
            guard try fill(2) else { throw fail("the document ends inside a tag") }
            switch byte(1) {
            case 0x2F: // </name>
                try scanEndTag()
                return .endElement
            case 0x3F: // <? ... ?>
                pos += 2
                mark = pos
                try skip(past: "?>", inside: "a processing instruction")
                continue
            case 0x21: // <!-- -->, <![CDATA[ ]]>, <!DOCTYPE >
                if try markupDeclaration() { return .text }
                continue
            default:
                try scanStartTag()
                return .startElement
            }
        }
    }

    /// What the last event kept (its name, attributes and text) is dropped: `text` at any other
    /// event is empty, as the window moves and the range would not.
    @inline(__always)
    private func forgetLastEvent() {
        nameCache = nil
        if !spans.isEmpty { spans.removeAll(keepingCapacity: true) }
        textRange = 0..<0
        textIsCDATA = false
        textNeedsDecoding = false
        endFromTag = false
        if options.namespaces {
            namespaceURI = ""
            namespaceLocalName = ""
            if !namespacedAttributes.isEmpty { namespacedAttributes.removeAll(keepingCapacity: true) }
        }
    }

    /// The first event: a UTF-8 byte order mark is not content.
    private func startDocument() throws {
        started = true
        if try startsWith("\u{FEFF}") { pos += 3 }
    }

    /// `<!` at `pos`: a comment or a DOCTYPE (skipped, false) or a CDATA section (true: a text event).
    private func markupDeclaration() throws -> Bool {
        if try startsWith("<!--") {
            pos += 4
            mark = pos  // a comment's bytes are not kept
            try skip(past: "-->", inside: "a comment")
            return false
        }
        if try startsWith("<![CDATA[") {
            guard depth > 0 else { throw fail("a CDATA section outside the root element") }
            pos += 9
            let contentStart = pos - mark
            try skip(past: "]]>", inside: "a CDATA section")
            textRange = (mark + contentStart)..<(pos - 3)
            textIsCDATA = true
            textNeedsDecoding = memchr(window.base + textRange.lowerBound, 0x0D, textRange.count) != nil
            return true
        }
        if try startsWith("<!DOCTYPE") {
            guard options.doctype == .skip else { throw fail("a DOCTYPE, which these documents may not have") }
            guard !sawRoot else { throw fail("a DOCTYPE after the root element") }
            try skipDoctype()
            return false
        }
        throw fail("unknown markup '<!'")
    }

    /// Character data from `pos` up to the next '<': true when it is a text event, false when it
    /// was white space outside the root (skipped).
    private func characterData() throws -> Bool {
        var needsDecoding = false
        while true {
            guard try fill(1) else { break }
            let base = window.base
            let end = window.end
            var p = pos
            while p < end {
                let c = base[p]
                if c == 0x3C { break }
                if c == 0x26 || c == 0x0D { needsDecoding = true }
                p += 1
            }
            pos = p
            if p < end { break }
        }
        if depth == 0 {
            // Outside the root only white space is allowed (and NUL padding around a packet).
            for k in mark..<pos where !XMLPullParser.isSpace(window.base[k]) && !(options.packet && window.base[k] == 0) {
                throw fail(sawRoot ? "text after the root element" : "text before the root element", at: k)
            }
            return false
        }
        textRange = mark..<pos
        textIsCDATA = false
        textNeedsDecoding = needsDecoding
        if needsDecoding && options.unresolvedReferences == .fail { try checkReferences(textRange, attribute: false) }
        return true
    }

    /// With `.fail` references: bytes `[range)` of the window (text, or an attribute's value)
    /// must hold only references that resolve; the first that does not is an error at its `&`.
    private func checkReferences(_ range: Range<Int>, attribute: Bool) throws {
        if !scratch.isEmpty { scratch.removeAll(keepingCapacity: true) }
        let b = UnsafeBufferPointer(start: window.base + range.lowerBound, count: range.count)
        if let problem = XMLReferences.decode(b, attribute: attribute, unresolved: .fail, into: &scratch) {
            throw fail(problem.reason, at: range.lowerBound + problem.offset)
        }
    }

    /// The name of the k-th open element, for a message.
    private func openName(_ k: Int) -> String {
        let end = k + 1 < nameStarts.count ? nameStarts[k + 1] : nameEnd
        return String(decoding: UnsafeBufferPointer(rebasing: nameBytes.buffer[nameStarts[k]..<end]), as: UTF8.self)
    }

    private func popName() {
        let start = nameStarts.removeLast()
        setCurrentName(start..<nameEnd)
        nameEnd = start
        if options.namespaces { (namespaceURI, namespaceLocalName) = scope.close() }
    }

    /// Bytes `[range)` after `mark` as text (a name, for a message).
    private func written(_ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(start: window.base + mark + range.lowerBound, count: range.count), as: UTF8.self)
    }

    /// `</name>` at `pos`: it must close the innermost open element.
    private func scanEndTag() throws {
        pos += 2
        let n = try scanTagName()
        try skipSpace()
        guard try fill(1), byte() == 0x3E else { throw fail("expected '>' to close </\(written(n))") }
        pos += 1
        guard depth > 0 else { throw fail("</\(written(n))> closes nothing", at: mark) }
        let top = nameStarts[depth - 1]
        let same = nameEnd - top == n.count
            && memcmp(nameBytes.buffer.baseAddress! + top, window.base + mark + n.lowerBound, n.count) == 0
        guard same else { throw fail("</\(written(n))> closes <\(openName(depth - 1))>", at: mark) }
        popName()
        endFromTag = true
    }

    /// A name at `pos` (the tag's), ending at white space, '/', '>': its bytes, as offsets from `mark`.
    private func scanTagName() throws -> Range<Int> {
        let startOffset = pos - mark
        guard try advance(while: { !XMLPullParser.isNameEnd($0) }) else { throw fail("the document ends inside a tag") }
        let length = pos - mark - startOffset
        guard length > 0 else { throw fail("a tag without a name") }
        return startOffset..<(startOffset + length)
    }

    private func scanStartTag() throws {
        guard depth < options.maxDepth else { throw fail("elements nested deeper than \(options.maxDepth)") }
        if depth == 0 && sawRoot { throw fail("a second root element") }
        elements += 1
        guard elements <= options.maxElements else { throw fail("more than \(options.maxElements) elements") }
        pos += 1
        let n = try scanTagName()
        while true {
            try skipSpace()
            guard try fill(1) else { throw fail("the document ends inside <\(written(n))>") }
            let c = byte()
            if c == 0x3E { pos += 1; break }
            if c == 0x2F {
                guard try fill(2), byte(1) == 0x3E else { throw fail("expected '>' after '/' in <\(written(n))>") }
                pos += 2
                pendingEnd = true
                break
            }
            try scanAttribute(of: n)
        }
        sawRoot = true
        nameBytes.truncate(nameEnd)
        nameStarts.append(nameEnd)
        nameBytes.append(window.base + mark + n.lowerBound, count: n.count)
        nameEnd = nameBytes.count
        setCurrentName(nameStarts[depth - 1]..<nameEnd)
        if options.namespaces { try resolveNamespaces() }
    }

    /// With `options.namespaces`, at a start event: the tag's declarations come into scope
    /// (they apply to its own name and attributes), then its name and other attributes are
    /// resolved (an unprefixed element is in the default namespace, an unprefixed attribute in
    /// none). Names are read as bytes; only URIs, local names and values become Strings.
    private func resolveNamespaces() throws {
        let b = UnsafeBufferPointer(start: window.base + mark, count: window.end - mark)
        var declarations = 0
        for s in spans {
            guard let prefix = XMLNamespaceScope.declaredPrefix(b, s.name) else { continue }
            scope.bind(UnsafeBufferPointer(rebasing: b[prefix]), to: value(s))
            declarations += 1
        }
        let (uri, local) = try resolve(nameBytes.buffer, currentName, unprefixed: scope.uri(of: UnsafeBufferPointer(start: nil, count: 0)) ?? "")
        namespaceURI = uri
        namespaceLocalName = local
        scope.opened(declarations: declarations, uri: uri, local: local)
        for s in spans where XMLNamespaceScope.declaredPrefix(b, s.name) == nil {
            let (uri, local) = try resolve(b, s.name, unprefixed: "")
            namespacedAttributes.append(XMLNamespacedAttribute(namespaceURI: uri, localName: local, value: value(s)))
        }
    }

    /// The qualified name `b[r]`'s namespace URI (`unprefixed` without a prefix) and local name.
    private func resolve(_ b: UnsafeBufferPointer<UInt8>, _ r: Range<Int>, unprefixed: String) throws -> (String, String) {
        guard let colon = XMLNamespaceScope.colon(b, r) else { return (unprefixed, String(decoding: UnsafeBufferPointer(rebasing: b[r]), as: UTF8.self)) }
        let prefix = UnsafeBufferPointer(rebasing: b[r.lowerBound..<colon])
        guard let uri = scope.uri(of: prefix) else { throw fail("unbound prefix '\(String(decoding: prefix, as: UTF8.self))'", at: mark) }
        return (uri, String(decoding: UnsafeBufferPointer(rebasing: b[(colon + 1)..<r.upperBound]), as: UTF8.self))
    }

    /// The value of the current start tag's attribute `s`, as `attributes` gives it.
    private func value(_ s: Span) -> String {
        XMLPullParser.decode(window.base + mark + s.value.lowerBound, count: s.value.count, entities: s.entities, attribute: true)
    }

    /// `name = "value"` at `pos`, added to `spans`.
    private func scanAttribute(of tag: Range<Int>) throws {
        let attr = try scanTagName()
        func attrName() -> String { written(attr) }
        func tagName() -> String { written(tag) }
        try skipSpace()
        guard try fill(1), byte() == 0x3D else { throw fail("attribute \(attrName()) of <\(tagName())> has no '='") }
        pos += 1
        try skipSpace()
        guard try fill(1), byte() == 0x22 || byte() == 0x27 else {
            throw fail("attribute \(attrName()) of <\(tagName())> is not quoted")
        }
        let quote = byte()
        pos += 1
        let valueStart = pos - mark
        var hasEntity = false
        var p = pos
        while true {
            let base = window.base, end = window.end
            while p < end {
                let c = base[p]
                if c == quote || c == 0x3C { break }
                if c == 0x26 { hasEntity = true }
                p += 1
            }
            pos = p
            if p < end { break }
            guard try fill(1) else { throw fail("the document ends inside an attribute value") }
            p = pos
        }
        if byte() == 0x3C { throw fail("'<' inside the value of attribute \(attrName())") }
        let value = valueStart..<(pos - mark)
        if hasEntity && options.unresolvedReferences == .fail { try checkReferences((mark + value.lowerBound)..<pos, attribute: true) }
        pos += 1
        guard spans.count < options.maxAttributes else { throw fail("more than \(options.maxAttributes) attributes on <\(tagName())>") }
        spans.append(Span(name: attr, value: value, entities: hasEntity))
    }

    /// With `options.packet`, after the root element: its trailer (white space, NUL padding,
    /// comments, processing instructions, then `<?xpacket end=…?>` and padding) is read, and
    /// where anything else begins is `trailingOffset`: an XMP packet rewritten in place over a
    /// longer one keeps the older packet's tail after its own end. Gives nil (no more events).
    private func packetTrailer() throws -> XMLEvent? {
        guard !finished else { return nil }
        finished = true
        func padding(_ c: UInt8) -> Bool { XMLPullParser.isSpace(c) || c == 0 }
        while true {
            mark = pos
            guard try advance(while: padding) else { return nil }
            mark = pos
            let at = window.baseOffset + Int64(pos)
            if try startsWith("<?xpacket end") {
                guard (try? skip(past: "?>", inside: "the packet trailer")) != nil else { trailingOffset = at; return nil }
                mark = pos
                if try advance(while: padding) { trailingOffset = window.baseOffset + Int64(pos) }
                return nil
            }
            let comment = try startsWith("<!--")
            let instruction = try !comment && startsWith("<?") && !startsWith("<?xpacket")
            guard comment || instruction else { trailingOffset = at; return nil }
            pos += comment ? 4 : 2
            mark = pos
            guard (try? skip(past: comment ? "-->" : "?>", inside: "")) != nil else { trailingOffset = at; return nil }
        }
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

    /// Text with its line ends normalised and the predefined entities and character references
    /// resolved, an unknown or malformed reference kept as written (with `.fail` references
    /// `next()` has checked there is none); an attribute's white space characters become spaces
    /// (`XMLReferences`). `entities` false:
    /// the bytes hold no `&` (and, for text, no CR).
    static func decode(_ b: UnsafePointer<UInt8>, count n: Int, entities: Bool, attribute: Bool = false) -> String {
        let bytes = UnsafeBufferPointer(start: b, count: n)
        // Nothing to change: no reference, and in a value no white space character but the space.
        if !entities && !(attribute && bytes.contains { $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            return String(decoding: bytes, as: UTF8.self)
        }
        var out: [UInt8] = []
        decode(b, count: n, entities: entities, attribute: attribute, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// `decode`'s bytes, appended to `out`.
    static func decode(_ b: UnsafePointer<UInt8>, count n: Int, entities: Bool, attribute: Bool, into out: inout [UInt8]) {
        _ = XMLReferences.decode(UnsafeBufferPointer(start: b, count: n), attribute: attribute, unresolved: .keep, into: &out)
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

    /// `readText()`'s text as UTF-8 bytes, to `body`, without a String when the element holds one
    /// run of text (a `<time>`, a `<gx:coord>`); several runs are joined as `readText` joins them.
    func readTextBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) throws -> R {
        let d = depth
        textCopy.truncate(0)
        var runs = 0
        // The one run as written is in `textCopy`; one that needs decoding, decoded in `scratch`.
        var written = true
        var joined = ""
        loop: while let e = try next() {
            switch e {
            case .text:
                runs += 1
                if runs == 2 { joined = written ? String(decoding: textCopy.buffer, as: UTF8.self) : String(decoding: scratch, as: UTF8.self) }
                if runs >= 2 { joined += text; continue }
                let b = window.base + textRange.lowerBound
                if !textNeedsDecoding {
                    textCopy.append(b, count: textRange.count)
                } else {
                    written = false
                    if !scratch.isEmpty { scratch.removeAll(keepingCapacity: true) }
                    decodeText(UnsafeBufferPointer(start: b, count: textRange.count), into: &scratch)
                }
            case .endElement where depth < d: break loop
            default: break
            }
        }
        if runs >= 2 { scratch = Array(joined.utf8); written = false }
        return written ? try body(textCopy.buffer) : try scratch.withUnsafeBufferPointer(body)
    }

    /// After a start event: everything up to and including the element's end tag.
    public func skipElement() throws {
        let d = depth
        while let e = try next() {
            if e == .endElement && depth < d { return }
        }
    }
}
