/// One timed position of a track: what every track reader of PinFormats yields and what
/// PinCore's `TrackTimeline` holds (one type for both, so a fix is never copied field by field
/// between them).
public struct TrackPoint: Sendable, Hashable {
    /// Seconds since 1970-01-01T00:00:00Z (fractions kept).
    public var time: Double
    public var latitude: Double
    public var longitude: Double
    /// Fixes sharing a non-zero span (the two ends of one KML `TimeSpan`) are always
    /// interpolated, however far apart (exiftool's rule).
    public var span: Int32

    @inlinable
    public init(time: Double, latitude: Double, longitude: Double, span: Int32 = 0) {
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
        self.span = span
    }

    /// The instants a fix may be at: `CivilDate.instants`, the years 1 to 9999 UTC. A time
    /// outside (`1e300` seconds, year 0) is a misread, named in the notes, never a fix: every
    /// later step (the nearest fix "2 h away", a photo's date) can then count it in whole seconds.
    @inlinable
    public static var times: ClosedRange<Double> { CivilDate.instants }

    /// Finite, |latitude| ≤ 90, |longitude| ≤ 180, time in `times`.
    @inlinable
    public var isValid: Bool {
        latitude.isFinite && longitude.isFinite && abs(latitude) <= 90 && abs(longitude) <= 180 && TrackPoint.times.contains(time)
    }

    /// Why the fix is not valid, for a note ("position 91.0, 2.0 out of range"); nil when it is.
    public var problem: String? {
        if !(latitude.isFinite && longitude.isFinite && abs(latitude) <= 90 && abs(longitude) <= 180) {
            return "position \(latitude), \(longitude) out of range"
        }
        if !TrackPoint.times.contains(time) { return "time \(time) s from 1970 outside the years 1 to 9999" }
        return nil
    }
}
