import Foundation
import PinCore

/// What a Google Takeout JSON sidecar says (docs/formats.md section 6.2).
struct TakeoutValues: Sendable, Hashable {
    /// The media's name in Google Photos (used to confirm truncated sidecar names).
    var title: String?
    /// `geoData`: may carry a location the person set or corrected in Google Photos.
    var geoData: Coordinate?
    var geoDataAltitude: Double?
    /// `geoDataExif`: what the uploaded file itself carried.
    var geoDataExif: Coordinate?
    var geoDataExifAltitude: Double?
    /// `photoTakenTime.timestamp`: Unix seconds, UTC (the person may have edited it).
    var photoTakenTime: Date?
    var warnings: [String]

    init(title: String? = nil, geoData: Coordinate? = nil, geoDataAltitude: Double? = nil,
                geoDataExif: Coordinate? = nil, geoDataExifAltitude: Double? = nil,
                photoTakenTime: Date? = nil, warnings: [String] = []) {
        self.title = title
        self.geoData = geoData
        self.geoDataAltitude = geoDataAltitude
        self.geoDataExif = geoDataExif
        self.geoDataExifAltitude = geoDataExifAltitude
        self.photoTakenTime = photoTakenTime
        self.warnings = warnings
    }
}

extension MetadataLimits {
    /// Largest Takeout sidecar parsed (bytes). Stops a huge `.json` that happens to sit next to
    /// a photo from being loaded and parsed; real sidecars are 1–3 KiB.
    static let maxTakeoutJSONBytes = 1024 * 1024
}

/// Parses Google Takeout `*.json` / `*.supplemental-metadata.json` sidecars with Foundation's
/// JSONDecoder. `formatted` strings and `creationTime` (the upload time) are never used.
enum TakeoutSidecar {
    /// - Returns: nil when the bytes are not a JSON object or carry none of `title`,
    ///   `photoTakenTime`, `geoData`, `geoDataExif` (not a Takeout sidecar).
    static func parse(_ bytes: [UInt8]) -> TakeoutValues? {
        guard bytes.count <= MetadataLimits.maxTakeoutJSONBytes, let json = try? JSONDecoder().decode(JSONSidecar.self, from: Data(bytes)),
              json.isTakeout else { return nil }
        var values = TakeoutValues()
        values.title = json.title
        (values.geoData, values.geoDataAltitude) = position(json.geoData, name: "geoData", warnings: &values.warnings)
        (values.geoDataExif, values.geoDataExifAltitude) = position(json.geoDataExif, name: "geoDataExif",
                                                                    warnings: &values.warnings)
        if let raw = json.photoTakenTime?.timestamp {
            if let seconds = raw.value, seconds > 0, seconds < 253_402_300_800 {  // before year 10000
                values.photoTakenTime = Date(timeIntervalSince1970: seconds)
            } else {
                values.warnings.append("photoTakenTime.timestamp \(raw.shown) is not a positive number of seconds: ignored")
            }
        }
        return values
    }

    /// A `geoData`-style object: 0.0/0.0 means "no location"; out of range is ignored.
    static func position(_ geo: JSONSidecar.Geo?, name: String, warnings: inout [String]) -> (Coordinate?, Double?) {
        guard let lat = geo?.latitude?.value, let lon = geo?.longitude?.value else { return (nil, nil) }
        if lat == 0 && lon == 0 { return (nil, nil) }
        let coordinate = Coordinate(latitude: lat, longitude: lon)
        guard coordinate.isValid else {
            warnings.append("\(name) \(lat),\(lon) is out of range: ignored")
            return (nil, nil)
        }
        return (coordinate, geo?.altitude?.value)
    }
}

/// The fields of a Takeout sidecar this app reads; every other field is ignored, and a field
/// of an unexpected type reads as absent rather than failing the whole file.
struct JSONSidecar: Decodable {
    /// A JSON number, or a string holding a decimal number (Takeout writes timestamps as
    /// strings). Booleans, objects and other strings give nil.
    struct Number: Decodable {
        var value: Double?
        var shown: String

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let text = try? container.decode(String.self) {
                value = XMP.decimal(text, allowSign: true)
                shown = "'\(CaptureTime.printable(text))'"
            } else if (try? container.decode(Bool.self)) != nil {
                value = nil
                shown = "(a boolean)"
            } else if let number = try? container.decode(Double.self), number.isFinite {
                value = number
                shown = "\(number)"
            } else {
                value = nil
                shown = "(not a number)"
            }
        }
    }

    struct Geo: Decodable {
        var latitude: Number?
        var longitude: Number?
        var altitude: Number?
    }

    struct Time: Decodable {
        var timestamp: Number?
    }

    var title: String?
    var photoTakenTime: Time?
    var geoData: Geo?
    var geoDataExif: Geo?
    var isTakeout = false

    enum Keys: String, CodingKey {
        case title, photoTakenTime, geoData, geoDataExif
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)  // throws unless a JSON object
        title = try? c.decodeIfPresent(String.self, forKey: .title)
        photoTakenTime = try? c.decodeIfPresent(Time.self, forKey: .photoTakenTime)
        geoData = try? c.decodeIfPresent(Geo.self, forKey: .geoData)
        geoDataExif = try? c.decodeIfPresent(Geo.self, forKey: .geoDataExif)
        isTakeout = !c.allKeys.isEmpty
    }
}
