import Foundation
import PinCore

/// The position read from GPS tags, or why there is none.
struct GPSPosition: Sendable, Hashable {
    /// Signed decimal degrees; nil when there is no usable position.
    var coordinate: Coordinate?
    /// Metres, negative below the reference; only reported next to a coordinate.
    var altitude: Double?
    /// Why GPS tags gave no position ("zero denominator", "0,0 (no GPS fix)", ...); nil when
    /// there is a coordinate or simply no GPS data.
    var issue: String?
    /// Non-fatal doubts about the position (missing ref, GPSStatus V, ...).
    var warnings: [String]

    init(coordinate: Coordinate? = nil, altitude: Double? = nil, issue: String? = nil,
                warnings: [String] = []) {
        self.coordinate = coordinate
        self.altitude = altitude
        self.issue = issue
        self.warnings = warnings
    }
}

/// Turns raw GPS tag values into signed degrees (docs/formats.md sections 1.4 and 1.5).
/// Pure Swift: no libexif, no I/O.
enum GPSConversion {
    /// Issue texts (stable: reports and tests use them).
    enum Issue {
        static let zeroDenominator = "zero denominator"
        static let nullIsland = "0,0 (no GPS fix)"
        static let latitudeOutOfRange = "latitude out of range"
        static let longitudeOutOfRange = "longitude out of range"
        static let latitudeMissing = "latitude missing"
        static let longitudeMissing = "longitude missing"
    }

    /// A RATIONAL part whose numerator is ≥ 2³¹ is read as a negative Int32 (a signed value
    /// written as unsigned, section 1.5) only when, read unsigned, the part would exceed this
    /// many units: no degree, minute or second part of a real coordinate is that large, while
    /// an honest unsigned value with a big denominator (3000000000/100000000 = 30°) stays as is.
    static let unsignedReinterpretationThreshold = 360.0

    /// The same rule for GPSAltitude, in metres: beyond 100 km an unsigned value is not a
    /// camera's altitude.
    static let altitudeReinterpretationThreshold = 100_000.0

    static func position(from values: ExifValues) -> GPSPosition {
        var result = GPSPosition()

        let hasAnything = values.latitude != nil || values.longitude != nil
            || values.latitudeRef != nil || values.longitudeRef != nil
            || values.malformed["GPSLatitude"] != nil || values.malformed["GPSLongitude"] != nil
        guard hasAnything else { return result }

        guard let latParts = values.latitude else {
            result.issue = values.malformed["GPSLatitude"].map { "malformed GPSLatitude: \($0)" }
                ?? Issue.latitudeMissing
            return result
        }
        guard let lonParts = values.longitude else {
            result.issue = values.malformed["GPSLongitude"].map { "malformed GPSLongitude: \($0)" }
                ?? Issue.longitudeMissing
            return result
        }
        guard let latValue = degrees(latParts, name: "GPSLatitude", warnings: &result.warnings),
              let lonValue = degrees(lonParts, name: "GPSLongitude", warnings: &result.warnings) else {
            result.issue = Issue.zeroDenominator
            return result
        }
        if latValue == 0 && lonValue == 0 {
            result.issue = Issue.nullIsland
            return result
        }
        let latitude = applyReference(values.latitudeRef, to: latValue, positive: "N", negative: "S",
                                      name: "GPSLatitudeRef", warnings: &result.warnings)
        let longitude = applyReference(values.longitudeRef, to: lonValue, positive: "E", negative: "W",
                                       name: "GPSLongitudeRef", warnings: &result.warnings)
        guard latitude.isFinite, abs(latitude) <= 90 else {
            result.issue = Issue.latitudeOutOfRange
            return result
        }
        guard longitude.isFinite, abs(longitude) <= 180 else {
            result.issue = Issue.longitudeOutOfRange
            return result
        }
        result.coordinate = Coordinate(latitude: latitude, longitude: longitude)

        if let status = values.gpsStatus?.exifTrimmed.uppercased(), status == "V" {
            result.warnings.append("GPSStatus is V (measurement void): the position may be invalid")
        }
        result.altitude = altitude(values.altitude, ref: values.altitudeRef, warnings: &result.warnings)
        return result
    }

    /// A coordinate written as ASCII instead of rationals (docs/formats.md 9.15): `n/d`
    /// fractions first (`48/1,51/1,3024/100`), else one to three decimals (`48 51 30.24`,
    /// `48.8584`, `48,51.504N`), separated by spaces or commas; a trailing N/S/E/W is returned as
    /// the hemisphere, a leading `-` makes the parts signed and negative. Nil for anything else.
    /// A zero denominator is kept (the caller reports it as for rationals).
    static func textRationals(_ text: String) -> (parts: [ExifRational], hemisphere: Character?)? {
        var body = Substring(text.trimmingCharacters(in: CharacterSet(charactersIn: " \t\r\n\0")))
        var hemisphere: Character?
        if let last = body.last, "NSEWnsew".contains(last) {
            hemisphere = Character(last.uppercased())
            body = body.dropLast()
        }
        var negative = false
        if body.first == "-" {
            negative = true
            body = body.dropFirst()
        }
        let pieces = body.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
        guard (1...3).contains(pieces.count), !(negative && hemisphere != nil) else { return nil }
        var parts: [ExifRational] = []
        for piece in pieces {
            let fraction = piece.split(separator: "/", omittingEmptySubsequences: false)
            var r: ExifRational
            if fraction.count == 2 {
                guard let n = UInt32(fraction[0]), let d = UInt32(fraction[1]) else { return nil }
                r = ExifRational(Int64(n), Int64(d))
            } else {
                let decimal = piece.split(separator: ".", omittingEmptySubsequences: false)
                guard (1...2).contains(decimal.count) else { return nil }
                let wholeText = String(decimal[0])
                let digits = decimal.count == 2 ? String(decimal[1].prefix(9)) : ""
                guard !(wholeText.isEmpty && digits.isEmpty),
                      wholeText.utf8.allSatisfy({ (48...57).contains($0) }),
                      digits.utf8.allSatisfy({ (48...57).contains($0) }),
                      let whole = UInt32(wholeText.isEmpty ? "0" : wholeText) else { return nil }
                var scale: Int64 = 1
                for _ in digits.utf8 { scale *= 10 }
                let fractionValue: Int64 = Int64(digits) ?? 0
                r = ExifRational(Int64(whole) * scale + fractionValue, scale)
            }
            if negative {
                r = ExifRational(-r.numerator, r.denominator, signed: true)
            }
            parts.append(r)
        }
        while parts.count < 3 { parts.append(ExifRational(0, 1, signed: negative)) }
        return (parts, hemisphere)
    }

    /// d + m/60 + s/3600 (section 1.4); nil when any part has a zero denominator. Minutes or
    /// seconds ≥ 60 are accepted: only the final value is range-checked.
    static func degrees(_ parts: [ExifRational], name: String, warnings: inout [String]) -> Double? {
        guard parts.count >= 3 else { return nil }
        var total = 0.0
        for (part, scale) in zip(parts.prefix(3), [1.0, 60.0, 3600.0]) {
            guard let value = value(part, threshold: unsignedReinterpretationThreshold, name: name,
                                    warnings: &warnings) else { return nil }
            total += value / scale
        }
        return total
    }

    /// n/d as a Double; nil when d is 0. Applies the unsigned → signed reinterpretation rule.
    static func value(_ r: ExifRational, threshold: Double, name: String,
                             warnings: inout [String]) -> Double? {
        guard r.denominator != 0 else { return nil }
        var numerator = r.numerator
        if !r.isSigned, numerator >= 1 << 31,
           Double(numerator) / Double(r.denominator) > threshold {
            numerator = Int64(Int32(truncatingIfNeeded: numerator))
            warnings.append("\(name): unsigned \(r) read as signed \(numerator)/\(r.denominator)")
        }
        return Double(numerator) / Double(r.denominator)
    }

    /// Magnitude with the sign of the ref (S and W negate); when the ref is missing or not one of
    /// the two letters, the value's own sign, with a warning (section 1.4).
    static func applyReference(_ ref: String?, to value: Double, positive: Character, negative: Character,
                               name: String, warnings: inout [String]) -> Double {
        let letter = ref.map { $0.exifTrimmed.uppercased() } ?? ""
        if letter == String(positive) { return abs(value) }
        if letter == String(negative) { return -abs(value) }
        if ref == nil || letter.isEmpty {
            warnings.append("\(name) missing: sign taken from the value")
        } else {
            warnings.append("\(name) '\(letter)' is not \(positive) or \(negative): sign taken from the value")
        }
        return value
    }

    /// GPSAltitude with its ref: 1 (Exif 2.x below sea level) or 3 (Exif 3.0 below sea level)
    /// negate; 0, 2 or missing mean above (section 1.3).
    static func altitude(_ value: ExifRational?, ref: UInt8?, warnings: inout [String]) -> Double? {
        guard let value, let metres = self.value(value, threshold: altitudeReinterpretationThreshold,
                                                 name: "GPSAltitude", warnings: &warnings) else { return nil }
        switch ref {
        case nil: return metres
        case 0, 2: return abs(metres)
        case 1, 3: return -abs(metres)
        case let other?:
            warnings.append("GPSAltitudeRef \(other) is not 0–3: altitude taken as stored")
            return metres
        }
    }
}
