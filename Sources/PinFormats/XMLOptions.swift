import PinGrammar

/// What `XMLPullParser` asks of a document beyond XML 1.0's well-formedness, for the two kinds
/// of XML this project reads: track and place files (`XMLOptions()`: lenient, as GPS devices
/// and exporters write them) and XMP packets (PinMetadata's `XMP.xmlOptions`: strict, as XMP
/// requires, and bounded for untrusted packets inside photos). Each option is a real variant
/// of the one parser, not a grammar of its own.
public struct XMLOptions: Sendable {
    /// What a DOCTYPE does: skipped (its entity definitions unused: only the predefined
    /// entities are resolved), or refused (XMP allows none, and refusing it rules out
    /// entity-expansion tricks).
    public enum Doctype: Sendable { case skip, refuse }

    /// A reference that cannot be resolved (`&nbsp;`, a bare `&`, `&#0;`): kept as written
    /// (`.keep`, so a GPX whose `<name>` holds a bare `&` still gives its points), or an error
    /// at the `&` that `next()` throws (`.fail`).
    public var unresolvedReferences: XMLReferences.Unresolved
    public var doctype: Doctype
    /// Namespace prefixes resolved (Namespaces in XML 1.0): `namespaceURI`,
    /// `namespaceLocalName` and `namespacedAttributes` give each name's URI and local part,
    /// `xmlns` declarations scoped to their element; an unbound prefix is an error.
    public var namespaces: Bool
    /// The document is a packet inside other bytes (an XMP packet in a photo, or a sidecar):
    /// NUL bytes outside the root element are padding like white space; bytes holding no root
    /// element are no document and no error (`next()` gives nil); after the root element only
    /// the packet's trailer is read (white space, NUL padding, comments and processing
    /// instructions, up to `<?xpacket end=…?>` and the padding after it). Anything after that
    /// is not read: `next()` gives nil and `trailingOffset` says where it begins.
    public var packet: Bool
    /// Deepest element nesting (a start tag deeper than this is an error). By default 1,024:
    /// GPX and KML nest fewer than 10 levels; stops `<a><a><a>...` from growing the element
    /// stack with the file.
    public var maxDepth: Int
    /// Most attributes on one start tag, namespace declarations included. By default 256: stops
    /// a tag of a million attributes.
    public var maxAttributes: Int
    /// Most elements in the document (by default no limit).
    public var maxElements: Int

    /// The track and place files' options by default: references kept, a DOCTYPE skipped, no
    /// namespaces, no packet, the limits above.
    public init(unresolvedReferences: XMLReferences.Unresolved = .keep, doctype: Doctype = .skip, namespaces: Bool = false,
                packet: Bool = false, maxDepth: Int = 1_024, maxAttributes: Int = 256, maxElements: Int = .max) {
        self.unresolvedReferences = unresolvedReferences
        self.doctype = doctype
        self.namespaces = namespaces
        self.packet = packet
        self.maxDepth = maxDepth
        self.maxAttributes = maxAttributes
        self.maxElements = maxElements
    }
}

/// An attribute of the current start tag with its namespace resolved (`XMLOptions.namespaces`):
/// the URI its prefix is bound to (an unprefixed attribute has none: ""), its local name, and
/// its value with references resolved.
public struct XMLNamespacedAttribute: Sendable, Hashable {
    public var namespaceURI: String
    public var localName: String
    public var value: String
}

/// The namespace bindings in scope (`XMLOptions.namespaces`): each open element's `xmlns` and
/// `xmlns:prefix` declarations, innermost last, over the `xml` prefix's fixed one. Prefixes are
/// matched as bytes, where the parser holds the names.
struct XMLNamespaceScope {
    /// (prefix, URI); the default namespace has the prefix "".
    private var bindings: [(prefix: [UInt8], uri: String)] = [(Array("xml".utf8), "http://www.w3.org/XML/1998/namespace")]
    /// How many bindings each open element added.
    private var added: [Int] = []
    /// The open elements' namespace URIs and local names, innermost last.
    private var elements: [(uri: String, local: String)] = []

    /// One of the declarations of the element about to open: `prefix` ("" for `xmlns`) is bound
    /// to `uri`.
    mutating func bind(_ prefix: UnsafeBufferPointer<UInt8>, to uri: String) { bindings.append((Array(prefix), uri)) }

    /// The element opens, with the `declarations` bound just before, its namespace URI and
    /// local name.
    mutating func opened(declarations: Int, uri: String, local: String) {
        added.append(declarations)
        elements.append((uri, local))
    }

    /// The innermost element closes: its declarations go out of scope. Returns its URI and
    /// local name.
    mutating func close() -> (uri: String, local: String) {
        bindings.removeLast(added.removeLast())
        return elements.popLast() ?? ("", "")
    }

    /// The URI `prefix` is bound to (the empty prefix: the default namespace); nil for a prefix
    /// bound nowhere.
    func uri(of prefix: UnsafeBufferPointer<UInt8>) -> String? {
        for k in bindings.indices.reversed() where bindings[k].prefix.count == prefix.count {
            if bindings[k].prefix.withUnsafeBufferPointer({ $0.elementsEqual(prefix) }) { return bindings[k].uri }
        }
        return nil
    }

    /// Where the prefix a name `b[r]` declares begins, when the name is `xmlns` (the default
    /// namespace: an empty prefix at its end) or `xmlns:prefix`; nil for any other name.
    static func declaredPrefix(_ b: UnsafeBufferPointer<UInt8>, _ r: Range<Int>) -> Range<Int>? {
        let xmlns: [UInt8] = [0x78, 0x6D, 0x6C, 0x6E, 0x73]
        guard r.count >= 5, b[r.lowerBound..<(r.lowerBound + 5)].elementsEqual(xmlns) else { return nil }
        if r.count == 5 { return r.upperBound..<r.upperBound }
        return b[r.lowerBound + 5] == 0x3A ? (r.lowerBound + 6)..<r.upperBound : nil
    }

    /// Where a qualified name `b[r]` has its first colon: its prefix is before it and its local
    /// part after it, as Namespaces in XML writes a name, `prefix:local`. What that grammar
    /// refuses (an empty part, a second colon) is read the same way and not refused: an
    /// unknown name, which a reader ignores. Nil without a colon (no prefix).
    static func colon(_ b: UnsafeBufferPointer<UInt8>, _ r: Range<Int>) -> Int? {
        r.first { b[$0] == 0x3A }
    }
}
