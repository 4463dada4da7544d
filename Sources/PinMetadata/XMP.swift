import Foundation
import PinCore
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

/// A small namespace-aware reader for the subset of XMP this app needs (section 6.1): the
/// properties of the top-level `rdf:Description` elements, as attributes or as child elements
/// (simple values, or the first `rdf:li` of an `rdf:Alt`/`rdf:Seq`/`rdf:Bag`). Namespaces are
/// matched by URI, never by prefix. No XML library: the grammar handled is elements,
/// attributes, namespace declarations, text, the five predefined entities and character
/// references, CDATA, comments and processing instructions (`<?xpacket?>`). A DOCTYPE is
/// refused (XMP forbids DTDs, and refusing it rules out entity-expansion abuse). Pure Swift.
enum XMP {
    /// Namespace URIs (section 6.1) and the canonical prefixes used in `XMPValues.properties`.
    static let exifURI = "http://ns.adobe.com/exif/1.0/"
    static let exifEXURI = "http://cipa.jp/exif/1.0/"
    static let photoshopURI = "http://ns.adobe.com/photoshop/1.0/"
    static let xmpURI = "http://ns.adobe.com/xap/1.0/"
    static let rdfURI = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
    /// `xmpNote:HasExtendedXMP`: the GUID of the JPEG's Extended XMP.
    static let xmpNoteURI = "http://ns.adobe.com/xmp/note/"
    static let knownNamespaces: [String: String] = [
        exifURI: "exif", exifEXURI: "exifEX", photoshopURI: "photoshop", xmpURI: "xmp", xmpNoteURI: "xmpNote",
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
        var parser = XMLScanner(text)
        do {
            try parser.run(&collector)
        } catch let error as XMLScanner.SyntaxError {
            guard collector.sawRDF else { return nil }
            return XMPValues(warnings: ["malformed XMP at byte \(error.offset): \(error.reason); ignored"])
        } catch {
            return nil
        }
        guard collector.sawRDF else { return nil }
        var values = interpret(collector.properties, options: options)
        if let leftover = parser.leftoverAt {
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

// MARK: - ISO 8601 subsets (XMP dates, QuickTime creationdate)

/// A date-time as written in XMP (section 6.1) or a QuickTime `creationdate` (section 5.4):
/// `YYYY-MM-DD`, `YYYY-MM-DDThh:mm[:ss[.s+]][TZD]`, TZD `Z`, `±hh:mm`, `±h:mm`, `±hhmm` or `±hh`,
/// after optional spaces (`2015-01-22T00:00:00 +00:00`).
/// Also accepted, as ExifTool does: `:` between the date parts and a space for `T`
/// (`2023:07:14 10:11:12`). `YYYY` and `YYYY-MM` alone are not a capture time (nil).
extension String {
    /// The UTF-8 bytes without leading and trailing spaces, tabs, CR, LF and NULs: what
    /// `trimmingCharacters(in: CharacterSet(charactersIn: " \t\r\n\0"))` keeps (those are
    /// one-byte scalars, never part of a longer one), without building a character set per call.
    var utf8TrimmingPadding: [UInt8] {
        let bytes = Array(utf8)
        func padding(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0D || b == 0x0A || b == 0 }
        guard let first = bytes.firstIndex(where: { !padding($0) }) else { return [] }
        let last = bytes.lastIndex(where: { !padding($0) })!
        return first == 0 && last == bytes.count - 1 ? bytes : Array(bytes[first...last])
    }
}

/// A cursor over the bytes of a date text (`ISODateTime.parse`): each step consumes what it
/// reads, or nothing when it fails.
private struct DateCursor {
    let s: [UInt8]
    var i = 0

    init(_ bytes: [UInt8]) { s = bytes }

    var atEnd: Bool { i == s.count }

    /// `minDigits` to `maxDigits` decimal digits.
    mutating func number(_ minDigits: Int, _ maxDigits: Int) -> Int? {
        let start = i
        var value = 0, count = 0
        while i < s.count, count < maxDigits, (48...57).contains(s[i]) {
            value = value * 10 + Int(s[i] - 48)
            i += 1
            count += 1
        }
        guard count >= minDigits else {
            i = start
            return nil
        }
        return value
    }

    /// One of the characters of `options`.
    mutating func take(_ options: String) -> Bool {
        if i < s.count, options.utf8.contains(s[i]) { i += 1; return true }
        return false
    }

    /// `HH:MM[:SS[.fraction]]` into `local`; false when malformed.
    mutating func time(into local: inout LocalDateTime) -> Bool {
        guard let hour = number(2, 2), take(":"), let minute = number(2, 2), hour <= 23, minute <= 59 else { return false }
        local.hour = hour
        local.minute = minute
        guard take(":") else { return true }
        guard let second = number(2, 2), second <= 60 else { return false }
        local.second = second
        guard take(".,") else { return true }
        let start = i
        while i < s.count, (48...57).contains(s[i]) { i += 1 }
        guard i > start else { return false }
        local.fraction = Double("0." + String(decoding: s[start..<min(i, start + 9)], as: UTF8.self)) ?? 0
        return true
    }

    /// Spaces before a zone designator (`2015-01-22T00:00:00 +00:00`, seen in
    /// photoshop:DateCreated; ExifTool reads it with its offset); other spaces stay.
    mutating func skipSpacesBeforeZone() {
        var designator = i
        while designator < s.count, s[designator] == 0x20 { designator += 1 }
        if designator > i, designator < s.count, "+-Zz".utf8.contains(s[designator]) { i = designator }
    }

    /// The zone designator's offset in seconds: `.some(nil)` when there is none, nil when it
    /// is malformed or out of range.
    mutating func zone() -> Int?? {
        if take("Zz") { return .some(0) }
        guard i < s.count, s[i] == UInt8(ascii: "+") || s[i] == UInt8(ascii: "-") else { return .some(nil) }
        let negative = s[i] == UInt8(ascii: "-")
        i += 1
        let hoursStart = i
        guard let hours = number(1, 2) else { return nil }
        let oneDigitHour = i - hoursStart == 1
        var minutes = 0
        if take(":") {
            guard let m = number(2, 2) else { return nil }
            minutes = m
        } else if oneDigitHour {
            return nil  // `+100` is ambiguous
        } else if let m = number(2, 2) {
            minutes = m
        }
        guard minutes < 60 else { return nil }
        let seconds = (hours * 3_600 + minutes * 60) * (negative ? -1 : 1)
        guard CaptureTime.offsetRange.contains(seconds) else { return nil }
        return .some(seconds)
    }
}

struct ISODateTime: Sendable, Hashable {
    var local: LocalDateTime
    var hasTime: Bool
    /// Seconds east of UTC when a zone designator was written.
    var offset: Int?

    /// `YYYY-MM-DD`, optionally `THH:MM[:SS[.fraction]]` and a zone designator (`Z`, `±HH:MM`,
    /// `±HHMM`, `±HH`, `±H:MM`), `:` accepted for `-` in the date as EXIF writes it; the whole
    /// text or nothing.
    static func parse(_ text: String) -> ISODateTime? {
        var cursor = DateCursor(text.utf8TrimmingPadding)
        guard let year = cursor.number(4, 4), cursor.take("-:"), let month = cursor.number(2, 2), cursor.take("-:"),
              let day = cursor.number(2, 2), CivilDate.isValid(year: year, month: month, day: day) else { return nil }
        var parsed = ISODateTime(local: LocalDateTime(year: year, month: month, day: day), hasTime: false, offset: nil)
        if cursor.take("T ") {
            guard cursor.time(into: &parsed.local) else { return nil }
            parsed.hasTime = true
            cursor.skipSpacesBeforeZone()
            guard let offset = cursor.zone() else { return nil }
            parsed.offset = offset
        }
        return cursor.atEnd ? parsed : nil
    }

    /// The instant: with a written offset directly (`isoWithOffset`), otherwise the wall time
    /// in `defaultTimeZone` (`assumedZone`, section 7 step 5).
    func instant(defaultTimeZone: TimeZone) -> (Date, Int, TimeSource) {
        if let offset {
            return (Date(timeIntervalSince1970: local.secondsIfUTC - Double(offset)), offset, .isoWithOffset)
        }
        let (date, zoneOffset) = CaptureTime.instant(of: local, in: defaultTimeZone)
        return (date, zoneOffset, .assumedZone)
    }
}

// MARK: - Collecting properties

/// Receives the scanner's events and keeps the texts of known properties of top-level
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

    mutating func start(uri: String, local: String, attributes: [(uri: String, local: String, value: String)]) {
        let depth = stack.count
        if uri == XMP.rdfURI && local == "RDF" { sawRDF = true }
        let parentIsRDF = depth >= 1 && stack[depth - 1].uri == XMP.rdfURI && stack[depth - 1].local == "RDF"
        let parentIsDescription = depth >= 2 && stack[depth - 1].uri == XMP.rdfURI
            && stack[depth - 1].local == "Description" && stack[depth - 2].local == "RDF"
            && stack[depth - 2].uri == XMP.rdfURI
        if parentIsRDF, uri == XMP.rdfURI, local == "Description" {
            for attribute in attributes {
                if let key = canonical(attribute.uri, attribute.local) { keep(key, attribute.value) }
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

// MARK: - A minimal XML scanner

protocol XMLEventHandler {
    mutating func start(uri: String, local: String, attributes: [(uri: String, local: String, value: String)])
    mutating func end()
    mutating func text(_ text: String)
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
                handler.text(String(decoding: s[content], as: UTF8.self))
            } else if starts("<!") {
                throw fail("DOCTYPE or declaration not allowed in XMP")
            } else if starts("</") {
                i += 2
                let qname = try name()
                skipSpace()
                guard i < s.count, s[i] == UInt8(ascii: ">") else { throw fail("expected '>' in end tag") }
                i += 1
                guard let top = open.popLast(), top.qname == qname else {
                    throw fail("end tag '\(String(decoding: qname, as: UTF8.self))' does not match")
                }
                scope.removeLast(top.bindings.count)
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
        let value = try Self.decodeEntities(s[start..<i], at: start)
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

    /// Text with `&lt;` `&gt;` `&amp;` `&quot;` `&apos;` and `&#N;` / `&#xH;` replaced.
    static func decodeEntities(_ bytes: ArraySlice<UInt8>, at offset: Int) throws -> String {
        guard bytes.contains(UInt8(ascii: "&")) else { return String(decoding: bytes, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let b = bytes[i]
            guard b == UInt8(ascii: "&") else {
                out.append(b)
                i += 1
                continue
            }
            guard let semicolon = bytes[i...].prefix(12).firstIndex(of: UInt8(ascii: ";")) else {
                throw SyntaxError(offset: offset + (i - bytes.startIndex), reason: "unterminated entity")
            }
            let entity = String(decoding: bytes[(i + 1)..<semicolon], as: UTF8.self)
            var scalar: Unicode.Scalar?
            switch entity {
            case "lt": scalar = "<"
            case "gt": scalar = ">"
            case "amp": scalar = "&"
            case "quot": scalar = "\""
            case "apos": scalar = "'"
            default:
                if entity.hasPrefix("#x") || entity.hasPrefix("#X") {
                    scalar = UInt32(entity.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init)
                } else if entity.hasPrefix("#") {
                    scalar = UInt32(entity.dropFirst(), radix: 10).flatMap(Unicode.Scalar.init)
                }
            }
            guard let scalar else {
                throw SyntaxError(offset: offset + (i - bytes.startIndex), reason: "unknown entity '&\(entity);'")
            }
            out.append(contentsOf: Array(String(scalar).utf8))
            i = semicolon + 1
        }
        return String(decoding: out, as: UTF8.self)
    }
}

// MARK: - Embedded XMP in JPEG

extension JPEG {
    /// The APP1 identifier of the main XMP packet (section 6.1).
    static let xmpIdentifier: [UInt8] = Array("http://ns.adobe.com/xap/1.0/\0".utf8)
    /// Getty Images' non-standard identifier (section 9.13).
    static let gettyXMPIdentifier: [UInt8] = Array("XMP\0://ns.adobe.com/xap/1.0/\0".utf8)
    /// How far into an APP1 without a known identifier a packet start is looked for.
    static let xmpSniffLength = 1_024

    /// The main XMP packet of a JPEG, or nil: the first APP1 starting with `xmpIdentifier`, or
    /// (with a warning) with Getty's `XMP\0://...` identifier or another header followed by an
    /// `<?xpacket` or `<x:xmpmeta` start within its first KiB (ExifTool reads those too).
    /// Extended XMP is joined separately (`findExtendedXMP`), only when the main packet names it
    /// and lacks a position or a time.
    static func findXMP<S: ByteSource>(in source: inout S, warnings: inout [String]) -> [UInt8]? {
        var packet: [UInt8]?
        walkSegments(in: &source, warnings: &warnings) { source, code, at, payloadStart, payloadCount, warnings in
            guard code == 0xE1, let payload = try? source.reader(at: payloadStart, count: payloadCount, context: container),
                  let start = xmpStart(in: payload) else { return true }
            if start.nonStandard {
                note("APP1 XMP segment at byte \(at) has a non-standard header", in: &warnings)
            }
            packet = try? payload.bytes(at: start.offset, count: payload.endOffset - start.offset)
            return false
        }
        return packet
    }

    /// A second, lenient walk over the marker segments before SOS (the Exif walk in `findExif`
    /// stops at the Exif APP1, and XMP usually follows it): `visit` gets each segment's code,
    /// offset and payload range and returns false to stop. Junk between segments is skipped as
    /// there; anything else odd ends the walk, since `findExif` has already judged the file's
    /// structure.
    static func walkSegments<S: ByteSource>(
        in source: inout S, warnings: inout [String],
        _ visit: (inout S, _ code: UInt8, _ at: Int, _ payloadStart: Int, _ payloadCount: Int, inout [String]) -> Bool
    ) {
        let size = source.size
        var position = 2
        var segments = 0
        while position + 4 <= size, position < MetadataLimits.maxJPEGHeaderBytes,
              segments < MetadataLimits.maxJPEGSegments {
            segments += 1
            guard let header = try? source.reader(at: position, count: 4, context: container),
                  let first = try? header.u8(at: position),
                  let code = try? header.u8(at: position + 1) else { return }
            if first != 0xFF {
                guard let next = try? skipJunk(in: &source, from: position, warnings: &warnings) else { return }
                position = next
                continue
            }
            if code == 0xFF { position += 1; continue }  // fill byte
            switch code {
            case 0xD0...0xD7, 0x01: position += 2; continue
            case 0xDA, 0xD9, 0x00, 0xD8: return
            default: break
            }
            guard let length = try? Int(header.u16(at: position + 2, .bigEndian)), length >= 2,
                  position + 2 + length <= size else { return }
            guard visit(&source, code, position, position + 4, length - 2, &warnings) else { return }
            position += 2 + length
        }
    }

    /// The APP1 identifier of an Extended XMP chunk: then a 32-character GUID, the full
    /// length and this chunk's offset (both 32-bit big-endian), then the chunk's bytes
    /// (XMP specification part 3, 1.1.3.1).
    static let extendedXMPIdentifier: [UInt8] = Array("http://ns.adobe.com/xmp/extension/\0".utf8)

    /// The Extended XMP whose GUID the main packet names (`xmpNote:HasExtendedXMP`), joined
    /// from its APP1 chunks in any order, or nil (with a warning when chunks were there but do
    /// not make it whole). Chunks with another GUID are left out, as ExifTool does; the GUID is
    /// not checked against the MD5 of the joined bytes (ExifTool does not either). Bounded: the
    /// full length is at most `maxXMPPacketBytes`, chunks must agree on it and lie inside it.
    static func findExtendedXMP<S: ByteSource>(in source: inout S, guid: String, warnings: inout [String]) -> [UInt8]? {
        let id = extendedXMPIdentifier, guidBytes = Array(guid.utf8)
        guard guidBytes.count == 32 else { return nil }
        var joined: [UInt8] = []
        var fullLength: Int?
        var pieces: [Range<Int>] = []
        var problem: String?
        walkSegments(in: &source, warnings: &warnings) { source, code, at, payloadStart, payloadCount, _ in
            let headerLength = id.count + 32 + 8
            guard code == 0xE1, payloadCount >= headerLength,
                  let head = try? source.reader(at: payloadStart, count: headerLength, context: container),
                  head.matches(id, at: payloadStart), head.matches(guidBytes, at: payloadStart + id.count),
                  let full = try? Int(head.u32(at: payloadStart + id.count + 32, .bigEndian)),
                  let offset = try? Int(head.u32(at: payloadStart + id.count + 36, .bigEndian)) else { return true }
            let count = payloadCount - headerLength
            guard full <= MetadataLimits.maxXMPPacketBytes else {
                problem = "Extended XMP of \(full) bytes is over the limit: ignored"
                return false
            }
            guard fullLength == nil || fullLength == full else {
                problem = "Extended XMP chunk at byte \(at) gives another full length (\(full)): ignored"
                return false
            }
            guard offset <= full, count <= full - offset else {
                problem = "Extended XMP chunk at byte \(at) lies outside its \(full) bytes: ignored"
                return false
            }
            if fullLength == nil {
                fullLength = full
                joined = [UInt8](repeating: 0, count: full)
            }
            guard let data = try? source.reader(at: payloadStart + headerLength, count: count, context: container)
                .bytes(at: payloadStart + headerLength, count: count) else { return false }
            joined.replaceSubrange(offset..<(offset + count), with: data)
            pieces.append(offset..<(offset + count))
            return true
        }
        if let problem {
            warnings.append(problem)
            return nil
        }
        guard let fullLength else { return nil }
        var covered = 0
        for piece in pieces.sorted(by: { $0.lowerBound < $1.lowerBound }) where piece.lowerBound <= covered {
            covered = max(covered, piece.upperBound)
        }
        guard covered == fullLength else {
            warnings.append("Extended XMP \(guid) is incomplete (\(covered) of \(fullLength) bytes in order): ignored")
            return nil
        }
        return joined
    }

    /// Where the XMP packet starts inside an APP1 payload, if it holds one.
    static func xmpStart(in payload: ByteReader) -> (offset: Int, nonStandard: Bool)? {
        let base = payload.range.lowerBound
        if payload.matches(xmpIdentifier, at: base) { return (base + xmpIdentifier.count, false) }
        if payload.matches(gettyXMPIdentifier, at: base) { return (base + gettyXMPIdentifier.count, true) }
        // Exif, extended XMP and other APP1s are not the main packet.
        if payload.matches(Array("Exif".utf8), at: base) || payload.matches(Array("http://ns.adobe.com/xmp/extension/".utf8), at: base) {
            return nil
        }
        guard let head = try? payload.bytes(at: base, count: min(payload.count, xmpSniffLength)) else { return nil }
        for marker in ["<?xpacket", "<x:xmpmeta"] {
            let needle = Array(marker.utf8)
            if let i = firstIndex(of: needle, in: head) { return (base + i, true) }
        }
        return nil
    }

    /// The first index of `needle` in `haystack`.
    static func firstIndex(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard needle.count <= haystack.count else { return nil }
        for i in 0...(haystack.count - needle.count) where haystack[i] == needle[0] {
            if haystack[i..<(i + needle.count)].elementsEqual(needle) { return i }
        }
        return nil
    }
}
