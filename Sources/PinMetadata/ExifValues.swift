/// One RATIONAL (u32/u32) or SRATIONAL (i32/i32) value exactly as stored (section 1.2).
struct ExifRational: Sendable, Hashable, CustomStringConvertible {
    /// The stored numerator: 0...2³²−1 for RATIONAL, −2³¹...2³¹−1 for SRATIONAL.
    var numerator: Int64
    var denominator: Int64
    /// True for SRATIONAL (type 10).
    var isSigned: Bool

    init(_ numerator: Int64, _ denominator: Int64, signed: Bool = false) {
        self.numerator = numerator
        self.denominator = denominator
        self.isSigned = signed
    }

    var description: String { "\(numerator)/\(denominator)" }
}

/// The raw values `ExifDecoder` copies out of one Exif block: no interpretation beyond the
/// format checks (section 2.5). `GPSConversion` and `CaptureTime` turn them into a position and
/// an instant; keeping this a plain value makes those rules testable without libexif.
struct ExifValues: Sendable, Hashable {
    /// GPSLatitude (0x0002): the three parts d, m, s (RATIONAL or SRATIONAL × 3).
    var latitude: [ExifRational]?
    /// GPSLatitudeRef (0x0001) as stored (may carry NULs and spaces).
    var latitudeRef: String?
    var longitude: [ExifRational]?
    var longitudeRef: String?
    /// GPSAltitude (0x0006), metres, a magnitude.
    var altitude: ExifRational?
    /// GPSAltitudeRef (0x0005): 0/2 above, 1/3 below.
    var altitudeRef: UInt8?
    /// GPSTimeStamp (0x0007): hour, minute, second of the fix, UTC.
    var gpsTimeStamp: [ExifRational]?
    /// GPSDateStamp (0x001D): `YYYY:MM:DD`, UTC.
    var gpsDateStamp: String?
    /// GPSStatus (0x0009): `A` active, `V` void.
    var gpsStatus: String?
    /// DateTimeOriginal (0x9003), local wall clock.
    var dateTimeOriginal: String?
    /// SubSecTimeOriginal (0x9291): digits of the fraction of a second.
    var subSecTimeOriginal: String?
    /// OffsetTimeOriginal (0x9011): `+HH:MM` / `-HH:MM`.
    var offsetTimeOriginal: String?
    /// DateTimeDigitized (0x9004, ExifTool's CreateDate), the capture time when
    /// DateTimeOriginal is missing (docs/formats.md 9.14).
    var dateTimeDigitized: String?
    /// SubSecTimeDigitized (0x9292).
    var subSecTimeDigitized: String?
    /// OffsetTimeDigitized (0x9012).
    var offsetTimeDigitized: String?
    /// DateTime (0x0132, ExifTool's ModifyDate): when the file was last changed, local wall
    /// clock; the capture time only when nothing better is there (issue 36 item 2).
    var dateTime: String?
    /// SubSecTime (0x9290) and OffsetTime (0x9010), DateTime's fraction and offset.
    var subSecTime: String?
    var offsetTime: String?
    /// The block had a GPS IFD with at least one entry.
    var hasGPSDirectory: Bool
    /// Tags present with a format, count or size we cannot use, by name ("GPSLatitude") with
    /// the reason ("format SHORT × 3, expected RATIONAL × 3").
    var malformed: [String: String]
    /// libexif CORRUPT_DATA / NO_MEMORY messages and notes such as misplaced tags.
    var warnings: [String]

    init(latitude: [ExifRational]? = nil, latitudeRef: String? = nil,
                longitude: [ExifRational]? = nil, longitudeRef: String? = nil,
                altitude: ExifRational? = nil, altitudeRef: UInt8? = nil,
                gpsTimeStamp: [ExifRational]? = nil, gpsDateStamp: String? = nil,
                gpsStatus: String? = nil, dateTimeOriginal: String? = nil,
                subSecTimeOriginal: String? = nil, offsetTimeOriginal: String? = nil,
                dateTimeDigitized: String? = nil, subSecTimeDigitized: String? = nil,
                offsetTimeDigitized: String? = nil, hasGPSDirectory: Bool? = nil, malformed: [String: String] = [:],
                warnings: [String] = []) {
        self.latitude = latitude
        self.latitudeRef = latitudeRef
        self.longitude = longitude
        self.longitudeRef = longitudeRef
        self.altitude = altitude
        self.altitudeRef = altitudeRef
        self.gpsTimeStamp = gpsTimeStamp
        self.gpsDateStamp = gpsDateStamp
        self.gpsStatus = gpsStatus
        self.dateTimeOriginal = dateTimeOriginal
        self.subSecTimeOriginal = subSecTimeOriginal
        self.offsetTimeOriginal = offsetTimeOriginal
        self.dateTimeDigitized = dateTimeDigitized
        self.subSecTimeDigitized = subSecTimeDigitized
        self.offsetTimeDigitized = offsetTimeDigitized
        self.hasGPSDirectory = hasGPSDirectory
            ?? (latitude != nil || longitude != nil || latitudeRef != nil || longitudeRef != nil)
        self.malformed = malformed
        self.warnings = warnings
    }
}

extension String {
    /// The text with trailing (and leading) NULs and spaces removed: how Exif ASCII values are
    /// padded (section 1.4).
    var exifTrimmed: Substring {
        // ASCII text (every value a camera writes) is trimmed on its bytes: each Character is
        // one byte there (CR LF is one Character of two, neither of them padding), so the
        // bounds are the same as by Characters, without breaking the text into graphemes.
        let ascii: Substring?? = utf8.withContiguousStorageIfAvailable { bytes -> Substring? in
            for byte in bytes where byte >= 0x80 { return nil }
            var first = 0, end = bytes.count
            while first < end, bytes[first] == 0 || bytes[first] == 0x20 { first += 1 }
            while end > first, bytes[end - 1] == 0 || bytes[end - 1] == 0x20 { end -= 1 }
            let start = utf8.startIndex
            return self[utf8.index(start, offsetBy: first)..<utf8.index(start, offsetBy: end)]
        }
        if let ascii, let ascii { return ascii }
        let padding: (Character) -> Bool = { $0 == "\0" || $0 == " " }
        guard let first = firstIndex(where: { !padding($0) }) else { return "" }
        let last = lastIndex(where: { !padding($0) })!
        return self[first...last]
    }
}
