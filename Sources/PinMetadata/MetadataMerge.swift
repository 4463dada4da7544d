import Foundation
import PinCore

/// Precedence between the sources of a position and a capture time, applied by every reader
/// (container results, embedded XMP, sidecars). The winner is named in
/// `PhotoMetadata.positionSource` / `timeSource`.
///
/// Position, first usable wins (a source with no usable position is skipped):
///
/// | rank | source | positionSource |
/// | --- | --- | --- |
/// | 1 | XMP sidecar (`IMG.CR2.xmp` before `IMG.xmp`) | `xmp-sidecar` |
/// | 2 | Takeout `geoData` (may be set by the person in Google Photos) | `takeout` |
/// | 3 | embedded Exif GPS | `exif` |
/// | 4 | embedded XMP (JPEG APP1, HEIF `mime`, MP4 `uuid`, MOV `XMP_`) | `xmp` |
/// | 5 | QuickTime `mdta` key `location.ISO6709` | `quicktime` |
/// | 6 | QuickTime `©xyz` (`udta`, then `udta/meta/ilst`), then 3GPP `loci` | `quicktime` |
/// | 7 | Takeout `geoDataExif` | `takeout` |
///
/// A person-edited sidecar wins because it is the correction; `geoDataExif` is only a copy
/// of what the uploaded file carried, so it is the last resort (for a file whose own
/// metadata was stripped).
///
/// Time: the step of docs/formats.md section 7 decides (1 Exif with OffsetTimeOriginal,
/// 2 ISO 8601 with an offset, 3 Exif with the offset inferred from GPS time, 4 a UTC value
/// from the container or a sidecar, 5 a wall time read in the default zone, then the GPS
/// date and time stamp, IFD0 DateTime (ModifyDate), and last the file's mtime); within one step a person-edited XMP sidecar beats what is embedded, embedded Exif
/// beats embedded XMP, XMP beats the QuickTime atoms, `mvhd` beats Takeout
/// `photoTakenTime`.
enum MetadataMerge {
    /// Section 7's step for a time source (lower is better).
    static func step(_ source: TimeSource) -> Int {
        switch source {
        case .exifOffset: return 1
        case .isoWithOffset: return 2
        case .gpsInferredOffset: return 3
        case .containerUTC: return 4
        case .assumedZone, .localTimeZoneOfPosition: return 5
        // Issue 36 item 2: after every capture date, the GPS stamp, then ModifyDate, and only
        // then the file's own time.
        case .gpsTime: return 6
        case .modifyDate: return 7
        case .fileModification: return 8
        case .none: return 9
        }
    }

    /// Merges a movie's embedded XMP packet (`uuid`, `XMP_`) into what the QuickTime reader
    /// built from its atoms: XMP wins the position over the atoms, and the time when its step
    /// is as good or better. (Containers with Exif go through `CaptureTime.resolve`, where the
    /// EXIF date wins and XMP may only lend its offset.) A `fileModification` time in `base` is
    /// replaced by any XMP date.
    static func applyEmbeddedXMP(_ xmp: XMPValues, toMovie base: PhotoMetadata) -> PhotoMetadata {
        var result = base
        applyPosition(of: xmp, to: &result, overriding: true)
        if let takenAt = xmp.takenAt, step(xmp.timeSource) <= step(base.timeSource) {
            result.takenAt = takenAt
            result.utcOffsetSeconds = xmp.utcOffsetSeconds
            result.timeSource = xmp.timeSource
            result.timeTag = xmp.timeProperty.map { "XMP \($0)" }
        }
        return capped(result)
    }

    /// An embedded XMP packet's warnings and its position: over the one already there
    /// (`overriding`), else only where there is none; without a position of its own, its reason
    /// why, where nothing else gave one.
    static func applyPosition(of xmp: XMPValues, to result: inout PhotoMetadata, overriding: Bool) {
        result.warnings += xmp.warnings
        if let coordinate = xmp.coordinate, overriding || result.coordinate == nil {
            result.coordinate = coordinate
            result.altitude = xmp.altitude
            result.positionSource = .xmp
            result.locationIssue = nil
        } else if result.coordinate == nil, result.locationIssue == nil {
            result.locationIssue = xmp.locationIssue
        }
    }

    /// Merges sidecars into the result of reading the media file itself. `xmp` and `takeout`
    /// are in preference order (as `Sidecars.match` sorts them). `modificationTime` is the
    /// last resort when nothing gives a time.
    static func applySidecars(xmp: [XMPValues], takeout: [TakeoutValues], to base: PhotoMetadata,
                                     modificationTime: Date?) -> PhotoMetadata {
        var result = base

        // Position.
        var chosen: (Coordinate, Double?, PositionSource)?
        if let x = xmp.first(where: { $0.coordinate != nil }) {
            chosen = (x.coordinate!, x.altitude, .xmpSidecar)
        } else if let t = takeout.first(where: { $0.geoData != nil }) {
            chosen = (t.geoData!, t.geoDataAltitude, .takeout)
        } else if base.coordinate == nil, let t = takeout.first(where: { $0.geoDataExif != nil }) {
            chosen = (t.geoDataExif!, t.geoDataExifAltitude, .takeout)
        }
        if let (coordinate, altitude, source) = chosen {
            if let old = base.coordinate, old != coordinate {
                result.warnings.append("position \(coordinate) from \(source) replaces \(old) from \(base.positionSource?.rawValue ?? "the file")")
            } else if base.coordinate == nil, let issue = base.locationIssue {
                result.warnings.append("the file's GPS data is unusable (\(issue)); position from \(source)")
            }
            result.coordinate = coordinate
            result.altitude = altitude
            result.positionSource = source
            result.locationIssue = nil
        } else if result.coordinate == nil, result.locationIssue == nil {
            result.locationIssue = xmp.compactMap(\.locationIssue).first
        }

        // Time: (step, tie-break) — sidecar XMP 0, the file 1, Takeout 2.
        struct Candidate {
            var step: Int, tie: Int
            var takenAt: Date, offset: Int?, source: TimeSource, tag: String?
        }
        var candidates: [Candidate] = []
        if let x = xmp.first(where: { $0.takenAt != nil }) {
            candidates.append(Candidate(step: step(x.timeSource), tie: 0, takenAt: x.takenAt!,
                                        offset: x.utcOffsetSeconds, source: x.timeSource,
                                        tag: x.timeProperty.map { "XMP sidecar \($0)" }))
        }
        if let takenAt = base.takenAt, base.timeSource != .fileModification, base.timeSource != .none {
            candidates.append(Candidate(step: step(base.timeSource), tie: 1, takenAt: takenAt,
                                        offset: base.utcOffsetSeconds, source: base.timeSource, tag: base.timeTag))
        }
        if let t = takeout.first(where: { $0.photoTakenTime != nil }) {
            candidates.append(Candidate(step: step(.containerUTC), tie: 2, takenAt: t.photoTakenTime!,
                                        offset: nil, source: .containerUTC, tag: "Takeout photoTakenTime"))
        }
        if let best = candidates.min(by: { ($0.step, $0.tie) < ($1.step, $1.tie) }) {
            result.takenAt = best.takenAt
            result.utcOffsetSeconds = best.offset
            result.timeSource = best.source
            result.timeTag = best.tag
        } else if base.timeSource != .fileModification, let modificationTime {
            result.takenAt = modificationTime
            result.utcOffsetSeconds = nil
            result.timeSource = .fileModification
            result.timeTag = nil
        }
        return capped(result)
    }

    /// Keeps at most `MetadataLimits.maxWarnings` warnings.
    static func capped(_ m: PhotoMetadata) -> PhotoMetadata {
        guard m.warnings.count > MetadataLimits.maxWarnings else { return m }
        var result = m
        result.warnings = Array(m.warnings.prefix(MetadataLimits.maxWarnings - 1)) + ["(more warnings not shown)"]
        return result
    }
}
