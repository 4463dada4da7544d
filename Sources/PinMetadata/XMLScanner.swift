import Foundation
import PinCore
import PinGrammar

protocol XMLEventHandler {
    mutating func start(uri: String, local: String, attributes: [(uri: String, local: String, value: String)])
    mutating func end()
    mutating func text(_ text: String)
    /// An end tag starts at byte `offset` of the scanned text (`</`): where a sidecar's editor
    /// inserts before `</rdf:RDF>`. Called before `end()`; not for a self-closing element.
    mutating func willEnd(at offset: Int)
}

extension XMLEventHandler {
    mutating func willEnd(at offset: Int) {}
}

/// Walks UTF-8 XML and reports elements (namespace-resolved) and text to a handler. Checks
/// well-formedness of what it reads: matching end tags, quoted attribute values, one root.
struct XMLScanner {
    struct SyntaxError: Error {
        var offset: Int
        var reason: String
    }

    private let s: [UInt8]
    private var i = 0
    /// Open elements: qualified name and the namespace bindings they introduced.
    private var open: [(qname: [UInt8], bindings: [(prefix: String, uri: String)])] = []
    /// In-scope bindings, innermost last (`""` = default namespace).
    private var scope: [(prefix: String, uri: String)] = [("xml", "http://www.w3.org/XML/1998/namespace")]
    private var elements = 0
    /// Where bytes that are not part of the document begin, after its root element and the
    /// packet trailer (`epilogue`); nil when only white space, NUL padding, comments and
    /// processing instructions follow the root.
    private(set) var leftoverAt: Int?

    init(_ bytes: [UInt8]) { s = bytes }

    private func fail(_ reason: String) -> SyntaxError { SyntaxError(offset: i, reason: reason) }

    private func starts(_ text: String) -> Bool {
        let t = Array(text.utf8)
        return i + t.count <= s.count && s[i..<(i + t.count)].elementsEqual(t)
    }

    /// Moves past the next occurrence of `terminator`.
    private mutating func skip(past terminator: String, what: String) throws -> Range<Int> {
        let t = Array(terminator.utf8)
        var j = i
        while j + t.count <= s.count {
            if s[j] == t[0] && s[j..<(j + t.count)].elementsEqual(t) {
                let content = i..<j
                i = j + t.count
                return content
            }
            j += 1
        }
        throw fail("unterminated \(what)")
    }

    private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }
    private static func isNameByte(_ b: UInt8) -> Bool {
        !(isSpace(b) || b == UInt8(ascii: "/") || b == UInt8(ascii: ">") || b == UInt8(ascii: "=")
          || b == UInt8(ascii: "<") || b == UInt8(ascii: "\"") || b == UInt8(ascii: "'"))
    }

    private mutating func skipSpace() {
        while i < s.count, Self.isSpace(s[i]) { i += 1 }
    }

    private mutating func name() throws -> [UInt8] {
        let start = i
        while i < s.count, Self.isNameByte(s[i]) { i += 1 }
        guard i > start else { throw fail("expected a name") }
        return Array(s[start..<i])
    }

    mutating func run<H: XMLEventHandler>(_ handler: inout H) throws {
        var sawRoot = false
        while i < s.count {
            if sawRoot && open.isEmpty {
                epilogue()
                return
            }
            if s[i] != UInt8(ascii: "<") {
                let start = i
                while i < s.count, s[i] != UInt8(ascii: "<") { i += 1 }
                if open.isEmpty {
                    // Outside the root only white space (and NUL padding after a packet) may appear.
                    guard s[start..<i].allSatisfy({ Self.isSpace($0) || $0 == 0 }) else {
                        throw SyntaxError(offset: start, reason: "text outside the root element")
                    }
                } else {
                    handler.text(try Self.decodeEntities(s[start..<i], at: start))
                }
                continue
            }
            if starts("<?") {
                _ = try skip(past: "?>", what: "processing instruction")
            } else if starts("<!--") {
                i += 4
                _ = try skip(past: "-->", what: "comment")
            } else if starts("<![CDATA[") {
                guard !open.isEmpty else { throw fail("CDATA outside the root element") }
                i += 9
                let content = try skip(past: "]]>", what: "CDATA section")
                handler.text(Self.cdata(s[content]))
            } else if starts("<!") {
                throw fail("DOCTYPE or declaration not allowed in XMP")
            } else if starts("</") {
                let tagStart = i
                i += 2
                let qname = try name()
                skipSpace()
                guard i < s.count, s[i] == UInt8(ascii: ">") else { throw fail("expected '>' in end tag") }
                i += 1
                guard let top = open.popLast(), top.qname == qname else {
                    throw fail("end tag '\(String(decoding: qname, as: UTF8.self))' does not match")
                }
                scope.removeLast(top.bindings.count)
                handler.willEnd(at: tagStart)
                handler.end()
            } else {
                sawRoot = true
                try startTag(&handler)
            }
        }
        guard open.isEmpty else { throw fail("end of data inside an element") }
    }

    /// What follows the root element: white space, NUL padding, comments and processing
    /// instructions, up to the packet trailer `<?xpacket end=…?>`, after which nothing belongs
    /// to the packet. Anything else (text, a tag, a second root, a cut comment) ends the
    /// document there, at `leftoverAt`: an XMP packet rewritten in place over a longer one keeps
    /// the older packet's tail after its own end.
    private mutating func epilogue() {
        func skipPadding() {
            while i < s.count, Self.isSpace(s[i]) || s[i] == 0 { i += 1 }
        }
        while true {
            skipPadding()
            guard i < s.count else { return }
            if starts("<?xpacket end") {
                guard (try? skip(past: "?>", what: "packet trailer")) != nil else { break }
                skipPadding()
                break
            } else if starts("<!--") {
                i += 4
                guard (try? skip(past: "-->", what: "comment")) != nil else { i -= 4; break }
            } else if starts("<?"), !starts("<?xpacket") {
                guard (try? skip(past: "?>", what: "processing instruction")) != nil else { break }
            } else {
                break
            }
        }
        if i < s.count { leftoverAt = i }
    }

    private mutating func startTag<H: XMLEventHandler>(_ handler: inout H) throws {
        i += 1
        let qname = try name()
        let (raw, selfClosing) = try attributeList()
        elements += 1
        guard elements <= MetadataLimits.maxXMPElements else { throw fail("more than \(MetadataLimits.maxXMPElements) elements") }
        guard open.count < MetadataLimits.maxXMPDepth else { throw fail("nesting deeper than \(MetadataLimits.maxXMPDepth)") }
        // Namespace declarations first: they apply to the element's own name and attributes.
        let bindings = Self.namespaceBindings(raw)
        scope.append(contentsOf: bindings)
        let attributes = try namespacedAttributes(raw)
        let (uri, local) = try namespaced(String(decoding: qname, as: UTF8.self), unprefixedURI: lookup("") ?? "")
        handler.start(uri: uri, local: local, attributes: attributes)
        if selfClosing {
            scope.removeLast(bindings.count)
            handler.end()
        } else {
            open.append((qname, bindings))
        }
    }

    /// A start tag's attributes as written, up to `>` or `/>` (then `selfClosing`).
    private mutating func attributeList() throws -> (attributes: [(name: [UInt8], value: String)], selfClosing: Bool) {
        var raw: [(name: [UInt8], value: String)] = []
        while true {
            skipSpace()
            guard i < s.count else { throw fail("end of data in a start tag") }
            if s[i] == UInt8(ascii: ">") {
                i += 1
                return (raw, false)
            }
            if s[i] == UInt8(ascii: "/") {
                guard i + 1 < s.count, s[i + 1] == UInt8(ascii: ">") else { throw fail("expected '/>'") }
                i += 2
                return (raw, true)
            }
            let attribute = try name()
            skipSpace()
            guard i < s.count, s[i] == UInt8(ascii: "=") else { throw fail("expected '=' after an attribute name") }
            i += 1
            skipSpace()
            let value = try attributeValue()
            guard raw.count < 1_024 else { throw fail("too many attributes") }
            raw.append((attribute, value))
        }
    }

    /// A quoted attribute value, its entities decoded.
    private mutating func attributeValue() throws -> String {
        guard i < s.count, s[i] == UInt8(ascii: "\"") || s[i] == UInt8(ascii: "'") else {
            throw fail("attribute value not quoted")
        }
        let quote = s[i]
        i += 1
        let start = i
        while i < s.count, s[i] != quote {
            guard s[i] != UInt8(ascii: "<") else { throw fail("'<' in an attribute value") }
            i += 1
        }
        guard i < s.count else { throw fail("unterminated attribute value") }
        let value = try Self.decodeEntities(s[start..<i], at: start, attribute: true)
        i += 1
        return value
    }

    /// The `xmlns` and `xmlns:prefix` attributes, as (prefix, URI).
    private static func namespaceBindings(_ raw: [(name: [UInt8], value: String)]) -> [(prefix: String, uri: String)] {
        raw.compactMap { attribute, value in
            let text = String(decoding: attribute, as: UTF8.self)
            if text == "xmlns" { return ("", value) }
            return text.hasPrefix("xmlns:") ? (String(text.dropFirst(6)), value) : nil
        }
    }

    /// The other attributes with their namespace URIs (unprefixed attributes have none).
    private func namespacedAttributes(_ raw: [(name: [UInt8], value: String)]) throws -> [(uri: String, local: String, value: String)] {
        var attributes: [(uri: String, local: String, value: String)] = []
        for (attribute, value) in raw {
            let text = String(decoding: attribute, as: UTF8.self)
            if text == "xmlns" || text.hasPrefix("xmlns:") { continue }
            let (uri, local) = try namespaced(text, unprefixedURI: "")
            attributes.append((uri, local, value))
        }
        return attributes
    }

    /// A qualified name's namespace URI and local part; a prefix in no binding in scope fails.
    private func namespaced(_ qname: String, unprefixedURI: String) throws -> (uri: String, local: String) {
        guard let colon = qname.firstIndex(of: ":") else { return (unprefixedURI, qname) }
        let prefix = String(qname[..<colon])
        guard let uri = lookup(prefix) else { throw fail("unbound prefix '\(prefix)'") }
        return (uri, String(qname[qname.index(after: colon)...]))
    }

    private func lookup(_ prefix: String) -> String? {
        scope.last(where: { $0.prefix == prefix })?.uri
    }

    /// Text (or, `attribute`, an attribute value) with its line ends normalised and its
    /// references resolved (`XMLReferences`, shared with the track readers' parser); one that
    /// cannot be is an error.
    static func decodeEntities(_ bytes: ArraySlice<UInt8>, at offset: Int, attribute: Bool = false) throws -> String {
        if !bytes.contains(where: { $0 == 0x26 || $0 == 0x0D || (attribute && ($0 == 0x0A || $0 == 0x09)) }) {
            return String(decoding: bytes, as: UTF8.self)
        }
        var out: [UInt8] = []
        let problem = bytes.withUnsafeBufferPointer {
            XMLReferences.decode($0, attribute: attribute, unresolved: .fail, into: &out)
        }
        if let problem { throw SyntaxError(offset: offset + problem.offset, reason: problem.reason) }
        return String(decoding: out, as: UTF8.self)
    }

    /// A CDATA section's characters: its line ends normalised (XML 1.0 section 2.11), nothing else.
    static func cdata(_ bytes: ArraySlice<UInt8>) -> String {
        guard bytes.contains(0x0D) else { return String(decoding: bytes, as: UTF8.self) }
        var out: [UInt8] = []
        bytes.withUnsafeBufferPointer { XMLReferences.normaliseLineEnds($0, into: &out) }
        return String(decoding: out, as: UTF8.self)
    }
}
