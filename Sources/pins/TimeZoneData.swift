import Foundation
import PinCore

/// The zone outlines (TimeZones.bin next to the country data), loaded and indexed on first use,
/// once, from any thread: only a photo with a position and a time without offset needs them.
/// When the file cannot be found or read, every such photo keeps `--timezone` and says why.
final class LazyTimeZones: TimeZoneLocating, @unchecked Sendable {
    // The state is guarded by `lock`.
    private let lock = NSLock()
    private var loaded: Result<TimeZoneResolver, TimeZoneUnavailable>?
    /// Set for one position (`pins add`, `pins edit`): only the zones near its latitude are
    /// indexed, and only points at that latitude may be asked.
    private let latitude: Double?

    init(onlyAtLatitude latitude: Double? = nil) {
        self.latitude = latitude
    }

    private func resolver() -> Result<TimeZoneResolver, TimeZoneUnavailable> {
        lock.lock()
        defer { lock.unlock() }
        if let loaded { return loaded }
        let made: Result<TimeZoneResolver, TimeZoneUnavailable>
        do {
            let data = try ResourceLocator.read("TimeZones.bin")
            made = .success(try latitude.map { try TimeZoneResolver(data: data, onlyAtLatitude: $0) } ?? TimeZoneResolver(data: data))
        } catch {
            var reason = (error as? CommandFailure)?.message ?? "\(error)"
            if reason.hasSuffix(".") { reason.removeLast() }
            made = .failure(TimeZoneUnavailable("no time-zone outlines: \(reason)"))
        }
        loaded = made
        return made
    }

    func timeZone(at point: Coordinate) throws -> TimeZone {
        precondition(latitude == nil || latitude == point.latitude, "a zone index made for one latitude")
        return try resolver().get().timeZone(at: point)
    }
}
