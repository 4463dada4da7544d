import Foundation

/// What the importer learns about one file: where and when it was taken, and where each came from.
/// Filled by PinMetadata; read by the import rules, reports and `pins inspect`.
public struct PhotoMetadata: Sendable, Hashable {
    /// Container format recognised from the first bytes.
    public var format: FileKind
    /// Signed decimal degrees; nil when the file has no usable position (see `locationIssue`).
    public var coordinate: Coordinate?
    /// Metres above sea level (negative below), when recorded.
    public var altitude: Double?
    /// Why there is no coordinate although the file has GPS tags ("zero denominator",
    /// "latitude out of range", "0,0 (no fix)", ...); nil when there is simply no GPS data.
    public var locationIssue: String?
    /// Where the position came from.
    public var positionSource: PositionSource?
    /// For a position from the tracks (`positionSource == .track`): the track file of the nearest
    /// fix, and how many seconds the photo's instant is from it.
    public var trackFile: String?
    public var secondsToTrackFix: Double?
    /// The capture instant (absolute); nil only when nothing usable was found (the pipeline then
    /// falls back to the file's modification time and sets `timeSource = .fileModification`).
    public var takenAt: Date?
    /// Offset from UTC of the local wall clock at capture, in seconds, when known or inferred.
    public var utcOffsetSeconds: Int?
    public var timeSource: TimeSource
    /// The tag, property or atom `takenAt` was read from, for `pins inspect`
    /// ("DateTimeOriginal", "DateTimeDigitized", "DateTimeOriginal + offset of XMP xmp:CreateDate",
    /// "XMP photoshop:DateCreated", "QuickTime ©day", ...); nil for the file's modification time.
    public var timeTag: String?
    /// Non-fatal problems met while decoding (libexif CORRUPT_DATA messages and the like).
    public var warnings: [String]
    /// A digest (16 hex digits, FNV-1a 64) of the raw metadata block (the Exif TIFF bytes), used
    /// to recognise a moved or renamed photo; nil when the file has no metadata block.
    public var metadataDigest: String? {
        get { storedDigest?.text }
        set { storedDigest = newValue.map(StoredDigest.init) }
    }
    /// The same, as kept: the readers set the digest's value, with no text made per file.
    public var storedDigest: StoredDigest?

    public init(format: FileKind, coordinate: Coordinate? = nil, altitude: Double? = nil,
                locationIssue: String? = nil, positionSource: PositionSource? = nil, takenAt: Date? = nil,
                utcOffsetSeconds: Int? = nil, timeSource: TimeSource = .none, timeTag: String? = nil,
                warnings: [String] = [], metadataDigest: String? = nil) {
        self.format = format
        self.coordinate = coordinate
        self.altitude = altitude
        self.locationIssue = locationIssue
        self.positionSource = positionSource
        self.takenAt = takenAt
        self.utcOffsetSeconds = utcOffsetSeconds
        self.timeSource = timeSource
        self.timeTag = timeTag
        self.warnings = warnings
        self.storedDigest = metadataDigest.map(StoredDigest.init)
    }
}

/// Where a photo's position came from (docs/formats.md section 8, MetadataMerge's ranks).
/// The raw values are what `inspect --json` and the import report print.
public enum PositionSource: String, Codable, Sendable, CaseIterable, CustomStringConvertible {
    /// The file's Exif GPS directory.
    case exif
    /// XMP embedded in the file (exif:GPSLatitude, ...).
    case xmp
    /// A QuickTime/MP4 location (ISO 6709 text, `loci`).
    case quickTime = "quicktime"
    /// A Matroska/WebM `LOCATION` tag (ISO 6709 text).
    case matroska
    /// An XMP sidecar beside the file.
    case xmpSidecar = "xmp-sidecar"
    /// A Google Takeout JSON sidecar.
    case takeout
    /// The person's own tracks (`--track`), by the photo's capture instant (issue 29).
    case track
    /// The photos around it that carry a position (`--estimate-positions`, issue 36 item 4).
    case estimate

    /// The raw value, so that interpolation prints what is stored and printed.
    public var description: String { rawValue }
}

/// Which step of the time rules (docs/formats.md section 7) produced `takenAt`. The raw
/// values are stored (`photos.time_source`) and printed.
public enum TimeSource: String, Codable, Sendable, CaseIterable, CustomStringConvertible {
    /// DateTimeOriginal (+SubSec) with OffsetTimeOriginal.
    case exifOffset
    /// An ISO 8601 value carrying its own offset (XMP with zone, QuickTime creationdate).
    case isoWithOffset
    /// DateTimeOriginal with the offset inferred from GPSDateStamp/GPSTimeStamp (rounded to 15 min).
    case gpsInferredOffset
    /// A UTC value from the container or a sidecar (mvhd, Takeout photoTakenTime).
    case containerUTC
    /// DateTimeOriginal read in the default zone (`--timezone`): approximate.
    case assumedZone
    /// A wall-clock time with no offset and no usable GPS time, on a photo with a position, read
    /// in the time zone of that position on that date (TimeZones.bin, Foundation's zone rules).
    case localTimeZoneOfPosition
    /// No capture date, but the GPS date and time stamp (GPSDateStamp + GPSTimeStamp): a UTC
    /// instant, that of the last fix (issue 36 item 2).
    case gpsTime
    /// No capture date and no GPS stamp: IFD0 DateTime (ExifTool's ModifyDate), read as the
    /// capture dates are (its OffsetTime, an offset inferred from GPS time, the zone of the
    /// position, the default zone; `timeTag` says which). When the file was last changed:
    /// still a time the camera or an editor wrote, unlike the file's own.
    case modifyDate
    /// No capture time in the file: the file's modification time.
    case fileModification
    /// Nothing at all (before the pipeline's fallback).
    case none

    public var description: String { rawValue }
}
