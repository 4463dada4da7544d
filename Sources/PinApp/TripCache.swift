import Foundation
import PinCore
import Synchronization

/// The trips found from exactly these inputs, kept while they stay: what a trip is made of is
/// the points (each pin's and each skipped photo's date, offset, position, country, place),
/// the home set, the names given and which points are still in the future (the finder's
/// `now`). A pin's title, colour, note or tags are none of these, so editing them finds the
/// trips again no more; a moved date or position, a new or deleted pin, an import's photos,
/// a home or a name change the key and the trips are found anew. `pins serve` finds the
/// trips at each map data after any change and at each shown pin: the points are read every
/// time (they are the key), the finding (the sort and the days' rule) only when they changed.
final class TripCache: Sendable {
    /// A 64-bit hash of every input with their count: a collision is 2^-64 likely.
    struct Key: Equatable, Sendable {
        let count: Int
        let hash: Int
    }

    /// The newest first, at most `capacity`: the map's whole history and the windows of the
    /// pins shown last (a window's timeline is small; the whole one a few MB at 100,000 pins).
    private let kept = Mutex<[(key: Key, timeline: TripTimeline)]>([])
    static let capacity = 6
    /// How many times the trips were found (not taken from `kept`): what the tests count.
    private let found = Mutex(0)
    var finds: Int { found.withLock { $0 } }

    /// `finder.find(points)`, from the kept timeline when the inputs are those it was found from.
    func timeline(_ finder: TripFinder, _ points: [TripPoint]) -> TripTimeline {
        let key = Self.key(finder, points)
        if let hit = kept.withLock({ $0.first { $0.key == key }?.timeline }) { return hit }
        let timeline = finder.find(points)
        found.withLock { $0 += 1 }
        kept.withLock { list in
            list.removeAll { $0.key == key }
            list.insert((key, timeline), at: 0)
            if list.count > Self.capacity { list.removeLast() }
        }
        return timeline
    }

    /// Everything `TripFinder.find` reads, but its country names (the catalog, fixed while
    /// pins runs): for `now`, only whether each point is past it (as `find` tells).
    static func key(_ finder: TripFinder, _ points: [TripPoint]) -> Key {
        var hasher = Hasher()
        hasher.combine(finder.home)
        hasher.combine(finder.names.count)
        for name in finder.names {
            hasher.combine(name.start.number)
            hasher.combine(name.end.number)
            hasher.combine(name.name)
        }
        let latest = finder.now.addingTimeInterval(86_400)
        for point in points {
            hasher.combine(point.instant.timeIntervalSince1970.bitPattern)
            hasher.combine(point.instant <= latest)
            hasher.combine(point.utcOffsetSeconds)
            hasher.combine(point.coordinate)
            hasher.combine(point.country)
            hasher.combine(point.place)
            hasher.combine(point.pinID)
            hasher.combine(point.photoPath)
        }
        return Key(count: points.count, hash: hasher.finalize())
    }
}
