import Foundation
import PinCore
import PinGrammar

extension MetadataMerge {
    /// The one instant of a photo, decided once at the end of its read (issue 36 item 1): a
    /// wall clock without an offset on a photo with a position read in the zone there
    /// (`placeInZoneOfPosition`); then, on a photo without a position of its own, the camera's
    /// clock offset added. Every later use (tracks, rules, stored date, reports) takes
    /// `takenAt` as it is.
    public static func settleTime(_ metadata: PhotoMetadata, options: MetadataOptions) -> PhotoMetadata {
        var result = offsetOfZoneOfPosition(placeInZoneOfPosition(metadata, options: options), options: options)
        let shift = options.cameraClockOffset
        guard shift != 0, result.coordinate == nil, let takenAt = result.takenAt,
              result.timeSource != .fileModification, result.timeSource != .none else { return result }
        result.takenAt = takenAt.addingTimeInterval(shift)
        result.timeTag = (result.timeTag ?? result.timeSource.rawValue) + " + camera clock offset \(signedSeconds(shift))"
        return result
    }

    /// `+65 s`, `-12 s`, `+0.5 s`: a clock offset as the time tag names it.
    static func signedSeconds(_ seconds: Double) -> String {
        let whole = seconds.rounded() == seconds && abs(seconds) < 1e15
        return (seconds < 0 ? "-" : "+") + (whole ? "\(Int(abs(seconds)))" : "\(abs(seconds))") + " s"
    }

    /// Issue 14: a wall-clock time that carried no offset and no usable GPS time (`assumedZone`,
    /// read in `--timezone`) on a photo that has a position is read again in the time zone of
    /// that position on that date (`localTimeZoneOfPosition`). Applied once, to the final result
    /// of a read (after the sidecars), so the position and time that won are the ones used.
    /// DST gaps and overlaps of the position's zone go through `CaptureTime.instant`: a wall time
    /// that happens twice is the earlier instant, one that never happens is shifted forward by
    /// the gap. Without `options.timeZones`, without a position, or when the zone cannot be had
    /// (data missing, zone unknown to the system), the result is unchanged, the last with a
    /// warning.
    ///
    /// The wall time is taken back as `takenAt + utcOffsetSeconds`, which is what the camera wrote
    /// except for a time inside a DST gap of `--timezone` itself (there the reading already moved
    /// it one gap later, and that shift is kept).
    /// A ModifyDate read in the default zone (`timeTag` exactly `ModifyDate`, issue 36 item 2)
    /// is read again the same way; it stays `.modifyDate`, its tag saying the zone's.
    static func placeInZoneOfPosition(_ metadata: PhotoMetadata, options: MetadataOptions) -> PhotoMetadata {
        let modify = metadata.timeSource == .modifyDate && metadata.timeTag == CaptureTime.modifyDateName
        guard metadata.timeSource == .assumedZone || modify, let coordinate = metadata.coordinate,
              let takenAt = metadata.takenAt, let offset = metadata.utcOffsetSeconds,
              abs(takenAt.timeIntervalSince1970) < 1e12, let zones = options.timeZones else { return metadata }
        var result = metadata
        do {
            let zone = try zones.timeZone(at: coordinate)
            let local = LocalDateTime(secondsIfUTC: takenAt.timeIntervalSince1970 + Double(offset))
            let (instant, zoneOffset) = CaptureTime.instant(of: local, in: zone)
            result.takenAt = instant
            result.utcOffsetSeconds = zoneOffset
            if modify {
                result.timeTag = CaptureTime.modifyDateName + " + zone of the position"
            } else {
                result.timeSource = .localTimeZoneOfPosition
            }
        } catch {
            result.warnings.append("\(error): the time is read in \(options.defaultTimeZone.identifier)")
        }
        return capped(result)
    }
}

extension MetadataMerge {
    /// Issue 36 item 3: a UTC-only time (QuickTime `mvhd`, Matroska `DateUTC`, Takeout
    /// `photoTakenTime`, the GPS stamp) on a photo or video with a position of its own gets the
    /// offset of that position's zone at that instant, so that it is shown in the clock a person
    /// there read; the instant is unchanged, and the time tag says where the offset came from.
    /// Without zones, or when the zone cannot be had, the time stays in UTC (with a warning).
    static func offsetOfZoneOfPosition(_ metadata: PhotoMetadata, options: MetadataOptions) -> PhotoMetadata {
        guard metadata.timeSource == .containerUTC || metadata.timeSource == .gpsTime, metadata.utcOffsetSeconds == nil,
              let coordinate = metadata.coordinate, let takenAt = metadata.takenAt,
              abs(takenAt.timeIntervalSince1970) < 1e12, let zones = options.timeZones else { return metadata }
        var result = metadata
        do {
            let zone = try zones.timeZone(at: coordinate)
            result.utcOffsetSeconds = zone.secondsFromGMT(for: takenAt)
            result.timeTag = (metadata.timeTag ?? metadata.timeSource.rawValue) + " + offset of \(zone.identifier) at the position"
        } catch {
            result.warnings.append("\(error): the time is shown in UTC")
        }
        return capped(result)
    }
}

extension LocalDateTime {
    /// The wall-clock reading of `seconds` since 1970 read as UTC (the inverse of `secondsIfUTC`;
    /// `CivilDate.split`).
    init(secondsIfUTC seconds: Double) {
        let whole = seconds.rounded(.down)
        let (year, month, day, secondOfDay) = CivilDate.split(seconds: Int(saturating: whole))
        self.init(year: year, month: month, day: day,
                  hour: secondOfDay / 3_600, minute: secondOfDay % 3_600 / 60, second: secondOfDay % 60,
                  fraction: seconds - whole)
    }
}
