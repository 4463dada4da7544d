import Foundation
import PinCore
import PinFormats
import PinGrammar

/// Resource limits for untrusted XMP packets (embedded or sidecar); each far above what real
/// writers produce.
extension MetadataLimits {
    /// Largest packet parsed (bytes). Stops a multi-gigabyte "sidecar" from being parsed;
    /// Lightroom sidecars with develop history stay well under 1 MiB.
    static let maxXMPPacketBytes = 8 * 1024 * 1024
    /// Deepest element nesting. Stops a packet of a million nested elements from growing
    /// the parser's stack array without bound (real packets nest fewer than 12 levels).
    static let maxXMPDepth = 256
    /// Most elements in one packet. Stops a packet of millions of empty elements from
    /// keeping a reader busy.
    static let maxXMPElements = 200_000
    /// Most attributes on one element, namespace declarations included. Stops a tag of millions
    /// of attributes; a Lightroom `rdf:Description` holds a few hundred `crs:` settings.
    static let maxXMPAttributes = 1_024
    /// Longest property value kept (bytes). Stops one huge text (an embedded thumbnail)
    /// from being copied into the result.
    static let maxXMPValueBytes = 4_096
}

/// What an XMP packet says about position and capture time (docs/formats.md section 6.1).
/// The same value comes from an embedded packet (JPEG APP1, HEIF `mime` item, PNG `iTXt`,
/// WebP `XMP `, QuickTime `uuid`/`XMP_`) and from a sidecar file.
struct XMPValues: Sendable, Hashable {
    /// Signed decimal degrees from `exif:GPSLatitude` / `exif:GPSLongitude`; nil when absent or
    /// unusable (see `locationIssue`).
    var coordinate: Coordinate?
    /// Metres (negative below sea level) from `exif:GPSAltitude` + `exif:GPSAltitudeRef`, only
    /// next to a coordinate.
    var altitude: Double?
    /// Why GPS properties gave no position ("malformed XMP GPSLatitude '…'", "0,0 (no GPS
    /// fix)", …); nil when there is a coordinate or no GPS property at all.
    var locationIssue: String?
    /// The capture instant from the first of `exif:DateTimeOriginal`, `xmp:CreateDate`,
    /// `photoshop:DateCreated` that has a date and a time of day.
    var takenAt: Date?
    /// The written offset (`isoWithOffset`) or the default zone's offset (`assumedZone`).
    var utcOffsetSeconds: Int?
    /// `.isoWithOffset` when the date carried a zone designator, `.assumedZone` when it was
    /// read in `MetadataOptions.defaultTimeZone`, `.none` without a usable date.
    var timeSource: TimeSource
    /// Which property gave `takenAt` (`"exif:DateTimeOriginal"`, …), canonical prefix.
    var timeProperty: String?
    /// That property's wall clock and written offset, to compare with an EXIF date.
    var captureDate: ISODateTime?
    /// Raw texts of the properties this reader knows, keyed by canonical prefix and local name
    /// (`"exif:GPSLatitude"`), whatever prefix the packet bound to the namespace URI.
    var properties: [String: String]
    /// Non-fatal problems (malformed values, syntax errors).
    var warnings: [String]

    init(coordinate: Coordinate? = nil, altitude: Double? = nil, locationIssue: String? = nil,
                takenAt: Date? = nil, utcOffsetSeconds: Int? = nil, timeSource: TimeSource = .none,
                timeProperty: String? = nil, properties: [String: String] = [:], warnings: [String] = []) {
        self.coordinate = coordinate
        self.altitude = altitude
        self.locationIssue = locationIssue
        self.takenAt = takenAt
        self.utcOffsetSeconds = utcOffsetSeconds
        self.timeSource = timeSource
        self.timeProperty = timeProperty
        self.properties = properties
        self.warnings = warnings
    }

    /// True when the packet gave neither a coordinate nor a capture time.
    var isEmpty: Bool { coordinate == nil && takenAt == nil }
}

/// A small reader for the subset of XMP this app needs (section 6.1): the properties of the
/// top-level `rdf:Description` elements, as attributes or as child elements (simple values, or
/// the first `rdf:li` of an `rdf:Alt`/`rdf:Seq`/`rdf:Bag`). Namespaces are matched by URI,
/// never by prefix. The XML is read by the project's one XML parser, PinFormats'
/// `XMLPullParser`, with XMP's options (`xmlOptions`: references that resolve, no DOCTYPE,
/// namespaces, the packet's end, the limits). Pure Swift.
enum XMP {
    /// Namespace URIs (section 6.1) and the canonical prefixes used in `XMPValues.properties`.
    static let exifURI = "http://ns.adobe.com/exif/1.0/"
    static let exifEXURI = "http://cipa.jp/exif/1.0/"
    static let photoshopURI = "http://ns.adobe.com/photoshop/1.0/"
    static let xmpURI = "http://ns.adobe.com/xap/1.0/"
    static let rdfURI = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
    /// `xmpNote:HasExtendedXMP`: the GUID of the JPEG's Extended XMP.
    static let xmpNoteURI = "http://ns.adobe.com/xmp/note/"
    /// IPTC Core: `Iptc4xmpCore:CountryCode`, which `pins sidecars` writes beside the place.
    static let iptcCoreURI = "http://iptc.org/std/Iptc4xmpCore/1.0/xmlns/"
    static let knownNamespaces: [String: String] = [
        exifURI: "exif", exifEXURI: "exifEX", photoshopURI: "photoshop", xmpURI: "xmp", xmpNoteURI: "xmpNote",
        iptcCoreURI: "Iptc4xmpCore",
    ]

    /// Properties tried for the capture time, in order (docs/formats.md 9.14: as ExifTool
    /// resolves DateTimeOriginal, then CreateDate).
    static let dateProperties = ["exif:DateTimeOriginal", "xmp:CreateDate", "photoshop:DateCreated"]

    /// Parses one XMP packet (UTF-8, or UTF-16 with a byte-order mark).
    /// - Returns: nil when the bytes hold no XMP (no `rdf:RDF` element before the end or before
    ///   a syntax error); otherwise the values, possibly empty. A packet with a syntax error
    ///   after its `rdf:RDF` start gives no values (nothing from a broken packet is trusted) and
    ///   a warning. The packet ends with its root element (`</x:xmpmeta>`) and the trailer
    ///   `<?xpacket end=…?>`: what follows (the tail of an older, longer packet that an editor
    ///   overwrote in place, as ExifTool also ignores) is not read and costs one warning.
    static func parse(_ bytes: [UInt8], options: MetadataOptions) -> XMPValues? {
        guard bytes.count <= MetadataLimits.maxXMPPacketBytes else {
            return XMPValues(warnings: ["XMP packet of \(bytes.count) bytes is over the \(MetadataLimits.maxXMPPacketBytes)-byte limit: ignored"])
        }
        let text = utf8(bytes)
        var collector = PropertyCollector()
        let trailing: Int?
        do {
            trailing = try read(text, into: &collector)
        } catch let error as FormatError {
            guard collector.sawRDF else { return nil }
            return XMPValues(warnings: ["malformed XMP at byte \(error.offset ?? 0): \(error.reason); ignored"])
        } catch {
            return nil
        }
        guard collector.sawRDF else { return nil }
        var values = interpret(collector.properties, options: options)
        if let leftover = trailing {
            values.warnings.append("\(text.count - leftover) bytes after the end of the XMP packet (from byte \(leftover)): ignored")
        }
        return values
    }

    /// The GUID of the Extended XMP a main packet names, when that packet lacks a position or a
    /// time the extension may hold (a JPEG's XMP over 64 KiB is split; ExifTool moves whole
    /// `rdf:Description`s out, GPS and dates included when they do not fit).
    static func extendedXMPNeeded(_ main: XMPValues) -> String? {
        guard main.coordinate == nil || main.takenAt == nil,
              let guid = main.properties["xmpNote:HasExtendedXMP"], guid.utf8.count == 32 else { return nil }
        return guid
    }

    /// `main` completed by its Extended XMP: the main packet's properties win, the extension's
    /// fill what it lacks, and the whole is interpreted again.
    static func completed(_ main: XMPValues, by extended: XMPValues, options: MetadataOptions) -> XMPValues {
        var values = interpret(main.properties.merging(extended.properties) { first, _ in first }, options: options)
        if extended.properties.isEmpty { values.warnings += extended.warnings.map { "Extended " + $0 } }
        return values
    }

    /// Turns property texts (canonical keys) into a position and a time.
    static func interpret(_ properties: [String: String], options: MetadataOptions) -> XMPValues {
        var values = XMPValues(properties: properties)

        // Position.
        let latText = properties["exif:GPSLatitude"], lonText = properties["exif:GPSLongitude"]
        if latText != nil || lonText != nil {
            if let latText, let lonText {
                let lat = coordinate(latText, positive: "N", negative: "S")
                let lon = coordinate(lonText, positive: "E", negative: "W")
                if lat == nil {
                    values.locationIssue = "malformed XMP GPSLatitude '\(CaptureTime.printable(latText))'"
                } else if lon == nil {
                    values.locationIssue = "malformed XMP GPSLongitude '\(CaptureTime.printable(lonText))'"
                } else if let lat, let lon {
                    if lat == 0 && lon == 0 {
                        values.locationIssue = GPSConversion.Issue.nullIsland
                    } else if abs(lat) > 90 {
                        values.locationIssue = GPSConversion.Issue.latitudeOutOfRange
                    } else if abs(lon) > 180 {
                        values.locationIssue = GPSConversion.Issue.longitudeOutOfRange
                    } else {
                        values.coordinate = Coordinate(latitude: lat, longitude: lon)
                        values.altitude = altitude(properties["exif:GPSAltitude"], ref: properties["exif:GPSAltitudeRef"],
                                                   warnings: &values.warnings)
                    }
                }
            } else {
                values.locationIssue = latText == nil ? GPSConversion.Issue.latitudeMissing
                    : GPSConversion.Issue.longitudeMissing
            }
        }

        // Time: the first property with a date and a time of day; a date alone is not a capture
        // instant.
        for key in dateProperties {
            guard let text = properties[key] else { continue }
            guard let parsed = ISODateTime.parse(text) else {
                values.warnings.append("XMP \(key) '\(CaptureTime.printable(text))' is not a usable date: ignored")
                continue
            }
            if parsed.hasTime {
                apply(parsed, from: key, to: &values, options: options)
                return values
            }
        }
        return values
    }

    private static func apply(_ parsed: ISODateTime, from key: String, to values: inout XMPValues,
                              options: MetadataOptions) {
        let (date, offset, source) = parsed.instant(defaultTimeZone: options.defaultTimeZone)
        values.takenAt = date
        values.utcOffsetSeconds = offset
        values.timeSource = source
        values.timeProperty = key
        values.captureDate = parsed
    }

    // MARK: Value parsers

    /// XMP GPSCoordinate (section 6.1): `DDD,MM,SSk`, `DDD,MM.mmk` (k one of the two letters,
    /// any case), `DDDk`, or a plain signed decimal. Minutes and seconds must be below 60 and
    /// the degrees non-negative when a letter is given. Nil for anything else (no position).
    static func coordinate(_ text: String, positive: Character, negative: Character) -> Double? {
        var body = Substring(text.trimmingCharacters(in: .whitespacesAndNewlines))
        guard let last = body.last else { return nil }
        var sign = 1.0
        var hasRef = false
        let upper = Character(last.uppercased())
        if upper == positive || upper == negative {
            hasRef = true
            sign = upper == negative ? -1 : 1
            body = body.dropLast()
        } else if last.isLetter {
            return nil  // a letter of the other axis, or garbage
        }
        let parts = body.split(separator: ",", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { return nil }
        if !hasRef {
            // Without a letter only a plain signed decimal is accepted.
            guard parts.count == 1, let value = decimal(parts[0], allowSign: true) else { return nil }
            return value
        }
        var numbers: [Double] = []
        for part in parts {
            guard let value = decimal(part, allowSign: false) else { return nil }
            numbers.append(value)
        }
        if numbers.count >= 2, numbers[1] >= 60 { return nil }
        if numbers.count == 3, numbers[2] >= 60 { return nil }
        // Fractions are only meaningful in the last part.
        if numbers.count >= 2, numbers.dropLast().contains(where: { $0 != $0.rounded() }) { return nil }
        let scales = [1.0, 60.0, 3600.0]
        let total = zip(numbers, scales).reduce(0.0) { $0 + $1.0 / $1.1 }
        return sign * total
    }

    /// `exif:GPSAltitude` (`n/d` or a decimal) with `exif:GPSAltitudeRef` (1 or 3 = below).
    static func altitude(_ text: String?, ref: String?, warnings: inout [String]) -> Double? {
        guard let text = text?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        var metres: Double?
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        if parts.count == 2 {
            if let n = decimal(parts[0], allowSign: true), let d = decimal(parts[1], allowSign: true), d != 0 {
                metres = n / d
            }
        } else if parts.count == 1 {
            metres = decimal(parts[0], allowSign: true)
        }
        guard let metres, metres.isFinite else {
            warnings.append("XMP GPSAltitude '\(CaptureTime.printable(text))' is not a number: ignored")
            return nil
        }
        switch ref?.trimmingCharacters(in: .whitespaces) {
        case "1", "3": return -abs(metres)
        case nil, "", "0", "2": return ref == nil ? metres : abs(metres)
        case let other?:
            warnings.append("XMP GPSAltitudeRef '\(CaptureTime.printable(other))' is not 0 or 1: altitude taken as stored")
            return metres
        }
    }

    /// A decimal number (`DecimalNumber`) between spaces: a sign when allowed, no exponent, at
    /// most 40 digits.
    static func decimal<S: StringProtocol>(_ text: S, allowSign: Bool) -> Double? {
        DecimalNumber.parse(text.trimmingCharacters(in: .whitespaces), allowSign ? signed : unsigned)
    }

    private static let signed = DecimalNumber.Grammar(sign: true, exponent: false, maxDigits: 40)
    private static let unsigned = DecimalNumber.Grammar(sign: false, exponent: false, maxDigits: 40)

    /// The packet as UTF-8: a UTF-8 BOM is dropped; UTF-16 (with a BOM) is converted.
    static func utf8(_ bytes: [UInt8]) -> [UInt8] {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { return Array(bytes.dropFirst(3)) }
        let bigEndian: Bool
        if bytes.starts(with: [0xFE, 0xFF]) {
            bigEndian = true
        } else if bytes.starts(with: [0xFF, 0xFE]) {
            bigEndian = false
        } else {
            return bytes
        }
        var units: [UInt16] = []
        units.reserveCapacity(bytes.count / 2)
        var i = 2
        while i + 1 < bytes.count {
            let a = UInt16(bytes[i]), b = UInt16(bytes[i + 1])
            units.append(bigEndian ? a << 8 | b : b << 8 | a)
            i += 2
        }
        return Array(String(decoding: units, as: UTF16.self).utf8)
    }
}
