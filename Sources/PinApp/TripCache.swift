import Foundation
import PinCore
import PinStore
import Synchronization

/// The trips found from exactly these inputs, kept while they stay: what a trip is made of is
/// the points (each pin's and each skipped photo's date, offset, position, country, place),
/// the home set, the names given and which points are still in the future (the finder's
/// `now`). A pin's title, colour, note or tags are none of these, so editing them finds the
/// trips again no more; a moved date or position, a new or deleted pin, an import's photos,
/// a home or a name change the key and the trips are found anew. `pins serve` finds the
/// trips at each map data after any change and at each shown pin: what the points are made of
/// is read and hashed every time (the stored rows: `TripInputs`), the points made and the
/// finding (the sort and the days' rule) run only when it changed.
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

    /// The trips of the points `read` reads, from the kept timeline when their inputs are those
    /// it was found from: `read` is asked for the points unless (`known`) the inputs it hashed
    /// are those of a kept timeline (`PinDatabase.tripPoints(in:latest:unless:)`), so a change
    /// that is no input of a trip (a title, a colour) reads no point.
    func timeline(_ finder: TripFinder,
                  read: (_ latest: Date, _ known: (TripInputs) -> Bool) throws -> (inputs: TripInputs, points: [TripPoint]?)) throws -> TripTimeline {
        let finderHash = Self.finderHash(finder)
        let key = { (inputs: TripInputs) -> Key in
            var hasher = Hasher()
            hasher.combine(finderHash)
            hasher.combine(inputs.hash)
            return Key(count: inputs.count, hash: hasher.finalize())
        }
        let latest = finder.now.addingTimeInterval(86_400)
        var (inputs, points) = try read(latest) { inputs in kept.withLock { list in list.contains { $0.key == key(inputs) } } }
        if points == nil {
            if let hit = kept.withLock({ list in list.first { $0.key == key(inputs) }?.timeline }) { return hit }
            // Known when asked, dropped since by another thread's: read after all.
            (inputs, points) = try read(latest) { _ in false }
        }
        return timeline(key(inputs)) { finder.find(points ?? []) }
    }

    /// The timeline kept for `key`, else `find()`'s, kept.
    private func timeline(_ key: Key, find: () -> TripTimeline) -> TripTimeline {
        if let hit = kept.withLock({ $0.first { $0.key == key }?.timeline }) { return hit }
        let timeline = find()
        found.withLock { $0 += 1 }
        kept.withLock { list in
            list.removeAll { $0.key == key }
            list.insert((key, timeline), at: 0)
            if list.count > Self.capacity { list.removeLast() }
        }
        return timeline
    }

    /// The finder's own inputs: the home set and the names given.
    private static func finderHash(_ finder: TripFinder) -> Int {
        var hasher = Hasher()
        hasher.combine(finder.home)
        hasher.combine(finder.names.count)
        for name in finder.names {
            hasher.combine(name.start.number)
            hasher.combine(name.end.number)
            hasher.combine(name.name)
        }
        return hasher.finalize()
    }
}
