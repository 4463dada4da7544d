import PinFormats

/// Receives an XMP packet's elements (namespace-resolved) and text, as `XMP.read` hands them
/// from the one XML parser.
protocol XMLEventHandler {
    mutating func start(uri: String, local: String, attributes: [XMLNamespacedAttribute])
    mutating func end()
    mutating func text(_ text: String)
    /// An end tag starts at byte `offset` of the packet (`</`): where a sidecar's editor inserts
    /// before `</rdf:RDF>`. Called before `end()`; not for an empty element (`<a/>`).
    mutating func willEnd(at offset: Int)
}

extension XMLEventHandler {
    mutating func willEnd(at offset: Int) {}
}

extension XMP {
    /// How XMP is read by `XMLPullParser` (docs/formats.md section 6.1): references must
    /// resolve, a DOCTYPE is refused (XMP forbids DTDs, and refusing it rules out
    /// entity-expansion abuse), namespaces are resolved (properties are matched by URI), the
    /// packet ends with its root element and trailer, within `MetadataLimits`' bounds.
    static let xmlOptions = XMLOptions(unresolvedReferences: .fail, doctype: .refuse, namespaces: true, packet: true,
                                       maxDepth: MetadataLimits.maxXMPDepth, maxAttributes: MetadataLimits.maxXMPAttributes,
                                       maxElements: MetadataLimits.maxXMPElements)

    /// Reads the packet `text` (UTF-8) with `xmlOptions`, handing its events to `handler`.
    /// Returns where bytes after the packet begin (nil: none, or only padding); throws the
    /// parser's `FormatError` (its offset in `text`) at the first thing that is not
    /// well-formed.
    static func read<H: XMLEventHandler>(_ text: [UInt8], into handler: inout H) throws -> Int? {
        let parser = XMLPullParser(input: MemoryInput(text), bufferSize: text.count + 1, options: xmlOptions)
        while let event = try parser.next() {
            switch event {
            case .startElement:
                handler.start(uri: parser.namespaceURI, local: parser.namespaceLocalName, attributes: parser.namespacedAttributes)
            case .endElement:
                if let at = parser.endTagOffset { handler.willEnd(at: Int(at)) }
                handler.end()
            case .text:
                handler.text(parser.text)
            }
        }
        return parser.trailingOffset.map { Int($0) }
    }
}
