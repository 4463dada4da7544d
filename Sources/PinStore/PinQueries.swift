import Foundation
import PinCore

/// A photo record behind a pin, as `pins show` lists it.
public struct PinPhotoRecord: Sendable {
    public var path: RawPath
    public var takenAt: Date?
    public var utcOffsetSeconds: Int?
    public var timeSource: String?
    public var coordinate: Coordinate?
    public var runID: Int64?
    public var missing: Bool
}

extension PinDatabase {
    /// The photo records that point at a pin, by path.
    public func photos(ofPin id: UUID) throws -> [PinPhotoRecord] {
        try connection.query("""
            SELECT path, taken_at, utc_offset, time_source, latitude, longitude, run_id, missing FROM photos
            WHERE location_id = ? ORDER BY path
            """, [id.uuidString.lowercased()]) { s in
            PinPhotoRecord(path: RawPath(bytes: s.blob(0)), takenAt: s.optionalDouble(1).map(Date.init(timeIntervalSince1970:)),
                           utcOffsetSeconds: s.isNull(2) ? nil : s.int(2), timeSource: s.optionalString(3),
                           coordinate: s.isNull(4) ? nil : Coordinate(latitude: s.double(4), longitude: s.double(5)),
                           runID: s.isNull(6) ? nil : s.int64(6), missing: s.int(7) != 0)
        }
    }
}
