import Foundation
import PinCore
import PinFormats
import PinGrammar

/// What `pins sidecars` says of a photo in its XMP sidecar: the position pins found and the
/// place there, as Immich, PhotoPrism and digiKam read them (issue 36 item 6).
public struct SidecarPlace: Sendable, Hashable {
    public var coordinate: Coordinate
    /// `photoshop:City`: the town.
    public var city: String?
    /// `photoshop:State`: the region.
    public var state: String?
    /// `photoshop:Country`: the country's English name.
    public var country: String?
    /// `Iptc4xmpCore:CountryCode`: ISO 3166-1 alpha-2.
    public var countryCode: String?

    public init(coordinate: Coordinate, city: String? = nil, state: String? = nil, country: String? = nil, countryCode: String? = nil) {
        self.coordinate = coordinate
        self.city = city
        self.state = state
        self.country = country
        self.countryCode = countryCode
    }
}

/// Writes the properties of a `SidecarPlace` into an XMP sidecar: a new packet, or the
/// properties an existing one lacks, added as one more top-level `rdf:Description` just before
/// its `</rdf:RDF>`, every other byte kept. A property the sidecar already has is never
/// replaced: a different value there wins and is a `Conflict`. The existing packet is read by
/// the one XMP reader (`XMP.read`, `PropertyCollector`), not by a grammar of its own.
public enum XMPSidecarEdit {
    /// A property pins would write and the sidecar holds otherwise (`theirs` is kept).
    public struct Conflict: Sendable, Hashable {
        /// "position", or the property's name ("photoshop:City").
        public var name: String
        public var theirs: String
        public var ours: String
    }

    /// The sidecar's bytes to write (nil: nothing to add), the properties added, the conflicts.
    public struct Edit: Sendable {
        public var bytes: [UInt8]?
        public var added: [String]
        public var conflicts: [Conflict]
    }

    /// An existing sidecar pins does not add to (not an XMP packet it can read, UTF-16, too
    /// large): it is left as it is, and the reason said.
    public struct Refusal: Error, CustomStringConvertible {
        public let description: String
    }

    /// Positions within this many degrees (about 11 cm) are the same: a sidecar holds minutes
    /// to 5 or 6 decimals, the database 7 decimals of a degree.
    static let sameDegrees = 1e-6

    /// A new sidecar holding every property of `place`.
    public static func create(_ place: SidecarPlace) -> Edit {
        let wanted = properties(place)
        let body = description(wanted, about: "")
        let text = "<?xpacket begin='\u{FEFF}' id='W5M0MpCehiHzreSzNTczkc9d'?>\n"
            + "<x:xmpmeta xmlns:x='adobe:ns:meta/' x:xmptk='pins'>\n"
            + "<rdf:RDF xmlns:rdf='\(XMP.rdfURI)'>\n" + body + "</rdf:RDF>\n</x:xmpmeta>\n<?xpacket end='w'?>\n"
        return Edit(bytes: Array(text.utf8), added: wanted.map(\.name), conflicts: [])
    }

    /// `existing` with the properties of `place` it lacks.
    public static func edit(_ existing: [UInt8], _ place: SidecarPlace) throws(Refusal) -> Edit {
        guard existing.count <= MetadataLimits.maxXMPPacketBytes else {
            throw Refusal(description: "it is over \(MetadataLimits.maxXMPPacketBytes / (1024 * 1024)) MiB")
        }
        let text = XMP.utf8(existing)
        // Offsets are in `text`: the same bytes, or without a UTF-8 byte-order mark.
        let shift = existing.count - text.count
        guard shift == 0 || shift == 3 && existing.starts(with: [0xEF, 0xBB, 0xBF]) else {
            throw Refusal(description: "it is UTF-16; pins adds only to UTF-8 sidecars")
        }
        var scan = SidecarScan()
        do {
            _ = try XMP.read(text, into: &scan)
        } catch let error as FormatError {
            throw Refusal(description: "it is not well-formed XMP (byte \((error.offset ?? 0) + Int64(shift)): \(error.reason))")
        } catch {
            throw Refusal(description: "it could not be read")
        }
        guard let end = scan.rdfEnd else {
            throw Refusal(description: scan.collector.sawRDF ? "its rdf:RDF element is empty (<rdf:RDF/>)" : "it holds no rdf:RDF element")
        }
        var add: [(name: String, value: String)] = [], conflicts: [Conflict] = []
        let wanted = properties(place)
        let have = scan.collector.properties
        for property in wanted {
            let isPosition = property.name == "exif:GPSLatitude" || property.name == "exif:GPSLongitude"
            if isPosition {
                guard !scan.present.contains("exif:GPSLatitude"), !scan.present.contains("exif:GPSLongitude") else { continue }
            } else if scan.present.contains(property.name) {
                let theirs = have[property.name] ?? ""
                if theirs != property.value { conflicts.append(Conflict(name: property.name, theirs: theirs, ours: property.value)) }
                continue
            }
            add.append(property)
        }
        if let conflict = positionConflict(have, present: scan.present, place.coordinate) { conflicts.insert(conflict, at: 0) }
        guard !add.isEmpty else { return Edit(bytes: nil, added: [], conflicts: conflicts) }
        let insertion = Array(("\n" + description(add, about: scan.about ?? "", declaringRDF: true)).utf8)
        let at = end + shift
        return Edit(bytes: Array(existing[..<at]) + insertion + Array(existing[at...]), added: add.map(\.name), conflicts: conflicts)
    }

    /// The sidecar's position when it is not `ours` (within `sameDegrees`), or one coordinate
    /// without the other.
    static func positionConflict(_ have: [String: String], present: Set<String>, _ ours: Coordinate) -> Conflict? {
        guard present.contains("exif:GPSLatitude") || present.contains("exif:GPSLongitude") else { return nil }
        let latText = have["exif:GPSLatitude"] ?? "", lonText = have["exif:GPSLongitude"] ?? ""
        let oursText = degrees(ours.latitude, "N", "S") + " " + degrees(ours.longitude, "E", "W")
        if let lat = XMP.coordinate(latText, positive: "N", negative: "S"),
           let lon = XMP.coordinate(lonText, positive: "E", negative: "W"),
           abs(lat - ours.latitude) <= sameDegrees, abs(lon - ours.longitude) <= sameDegrees {
            return nil
        }
        return Conflict(name: "position", theirs: latText + " " + lonText, ours: oursText)
    }

    /// The properties of `place`, in the order written; a name it lacks is not written.
    static func properties(_ place: SidecarPlace) -> [(name: String, value: String)] {
        var result = [("exif:GPSLatitude", degrees(place.coordinate.latitude, "N", "S")),
                      ("exif:GPSLongitude", degrees(place.coordinate.longitude, "E", "W"))]
        let names: [(String, String?)] = [("photoshop:City", place.city), ("photoshop:State", place.state),
                                          ("photoshop:Country", place.country), ("Iptc4xmpCore:CountryCode", place.countryCode)]
        for (name, value) in names {
            if let value = value?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty { result.append((name, value)) }
        }
        return result
    }

    /// XMP's GPSCoordinate as ExifTool writes it: `DDD,MM.mmmmmmK`, minutes to 6 decimals
    /// without trailing zeros (48.856614 is `48,51.39684N`), counted in millionths of a minute
    /// so that a minute never rounds up to 60.
    static func degrees(_ value: Double, _ positive: String, _ negative: String) -> String {
        let micro = Int64((abs(value) * 60 * 1_000_000).rounded())
        let whole = micro / 60_000_000, rest = micro % 60_000_000
        var fraction = String(rest % 1_000_000)
        fraction = String(repeating: "0", count: 6 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return "\(whole),\(rest / 1_000_000)" + (fraction.isEmpty ? "" : "." + fraction) + (value < 0 ? negative : positive)
    }

    /// One `rdf:Description` holding `properties`, declaring the namespaces they use (and
    /// `rdf`, when it goes into a packet that may bind it to another prefix).
    static func description(_ properties: [(name: String, value: String)], about: String, declaringRDF: Bool = false) -> String {
        let uris = ["exif": XMP.exifURI, "photoshop": XMP.photoshopURI, "Iptc4xmpCore": XMP.iptcCoreURI]
        var prefixes: [String] = []
        for property in properties {
            let prefix = String(property.name.prefix { $0 != ":" })
            if !prefixes.contains(prefix) { prefixes.append(prefix) }
        }
        var text = " <rdf:Description rdf:about='\(XMLReferences.escaped(about, notXML: .drop, attribute: true))'"
        if declaringRDF { text += "\n  xmlns:rdf='\(XMP.rdfURI)'" }
        for prefix in prefixes { text += "\n  xmlns:\(prefix)='\(uris[prefix] ?? "")'" }
        text += ">\n"
        for property in properties { text += "  <\(property.name)>\(XMLReferences.escaped(property.value, notXML: .drop))</\(property.name)>\n" }
        return text + " </rdf:Description>\n"
    }
}

/// The packet's events for `XMPSidecarEdit`: the properties (by `PropertyCollector`), which
/// known properties the top-level descriptions name even when empty, their `rdf:about`, and
/// where the `</rdf:RDF>` end tag starts.
struct SidecarScan: XMLEventHandler {
    var collector = PropertyCollector()
    private(set) var present: Set<String> = []
    private(set) var about: String?
    private(set) var rdfEnd: Int?
    private var stack: [(uri: String, local: String)] = []

    private func isRDF(_ element: (uri: String, local: String), _ local: String) -> Bool {
        element.uri == XMP.rdfURI && element.local == local
    }

    mutating func start(uri: String, local: String, attributes: [XMLNamespacedAttribute]) {
        let depth = stack.count
        if depth >= 1, isRDF(stack[depth - 1], "RDF"), uri == XMP.rdfURI, local == "Description" {
            for attribute in attributes {
                if let prefix = XMP.knownNamespaces[attribute.namespaceURI] { present.insert("\(prefix):\(attribute.localName)") }
                if about == nil, attribute.namespaceURI == XMP.rdfURI, attribute.localName == "about" { about = attribute.value }
            }
        } else if depth >= 2, isRDF(stack[depth - 1], "Description"), isRDF(stack[depth - 2], "RDF"),
                  let prefix = XMP.knownNamespaces[uri] {
            present.insert("\(prefix):\(local)")
        }
        stack.append((uri, local))
        collector.start(uri: uri, local: local, attributes: attributes)
    }

    mutating func willEnd(at offset: Int) {
        if let top = stack.last, isRDF(top, "RDF"), rdfEnd == nil { rdfEnd = offset }
    }

    mutating func end() {
        stack.removeLast()
        collector.end()
    }

    mutating func text(_ text: String) { collector.text(text) }
}
