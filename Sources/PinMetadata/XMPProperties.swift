import Foundation
import PinCore
import PinFormats

/// Receives the packet's events and keeps the texts of known properties of top-level
/// `rdf:Description` elements (attribute form and element form). First value wins.
struct PropertyCollector: XMLEventHandler {
    private(set) var properties: [String: String] = [:]
    private(set) var sawRDF = false

    /// The open elements: namespace URI and local name.
    private var stack: [(uri: String, local: String)] = []
    /// The element-form property being read: canonical key, its depth, the text so far, and
    /// whether its first `rdf:li` has ended.
    private var capture: (key: String, depth: Int, text: String, done: Bool)?

    private func canonical(_ uri: String, _ local: String) -> String? {
        XMP.knownNamespaces[uri].map { "\($0):\(local)" }
    }

    private mutating func keep(_ key: String, _ value: String) {
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, properties[key] == nil else { return }
        properties[key] = String(trimmed.utf8.prefix(MetadataLimits.maxXMPValueBytes)) ?? trimmed
    }

    mutating func start(uri: String, local: String, attributes: [XMLNamespacedAttribute]) {
        let depth = stack.count
        if uri == XMP.rdfURI && local == "RDF" { sawRDF = true }
        let parentIsRDF = depth >= 1 && stack[depth - 1].uri == XMP.rdfURI && stack[depth - 1].local == "RDF"
        let parentIsDescription = depth >= 2 && stack[depth - 1].uri == XMP.rdfURI
            && stack[depth - 1].local == "Description" && stack[depth - 2].local == "RDF"
            && stack[depth - 2].uri == XMP.rdfURI
        if parentIsRDF, uri == XMP.rdfURI, local == "Description" {
            for attribute in attributes {
                if let key = canonical(attribute.namespaceURI, attribute.localName) { keep(key, attribute.value) }
            }
        } else if parentIsDescription, capture == nil, let key = canonical(uri, local) {
            capture = (key, depth, "", false)
        }
        stack.append((uri, local))
    }

    mutating func end() {
        guard let (uri, local) = stack.popLast() else { return }
        guard var current = capture else { return }
        if stack.count == current.depth {
            keep(current.key, current.text)
            capture = nil
        } else if uri == XMP.rdfURI, local == "li",
                  !current.text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            current.done = true
            capture = current
        }
    }

    mutating func text(_ text: String) {
        guard var current = capture, !current.done else { return }
        // Direct text of the property, or text inside its first rdf:li.
        let depth = stack.count
        let inProperty = depth == current.depth + 1
        let inItem = depth >= current.depth + 3 && stack[depth - 1].uri == XMP.rdfURI && stack[depth - 1].local == "li"
        guard inProperty || inItem, current.text.utf8.count < MetadataLimits.maxXMPValueBytes else { return }
        current.text += text
        capture = current
    }
}
