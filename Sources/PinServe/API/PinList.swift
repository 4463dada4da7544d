import Foundation
import Synchronization
import PinApp
import PinCore
import PinFormats
import PinReport
import PinStore

/// One stored pin as the list keeps it, with what each request would otherwise work out again:
/// its text folded for the search and the filters. Its object in the list's answer is written
/// from the pin for each page (`PinObjectText`): each pin's text kept beside it was 32 MB at
/// 100,000 pins, a quarter of the service's memory.
final class ListedPin: Sendable {
    /// The pin, handed by reference to the map data's pins (`PinApp.pageInput(stored:)`).
    let stored: StoredLocation
    var pin: Location { stored.location }
    /// Never nil: optional as `PinFilter.foldedMatcher` borrows it.
    let folded: FoldedPinText?
    /// A changed pin is a new `ListedPin`.
    private init(_ stored: StoredLocation, folded: FoldedPinText?) {
        self.stored = stored
        self.folded = folded
    }

    /// `locations` listed, in their order: the pins held, then their folded texts, in passes
    /// of their own.
    static func made(_ locations: [Location]) -> [ListedPin] {
        let stored = locations.map(StoredLocation.init)
        let folded = stored.map { FoldedPinText($0.location) }
        return stored.indices.map { ListedPin(stored[$0], folded: folded[$0]) }
    }

    /// Whether `self` comes first in the list: newest first, as `PinFilter` with `descending`
    /// sorts (by date then id text, reversed). The id texts (`uuidString`: upper-case hex, the
    /// dashes at the same places) are in the order of the ids' bytes, compared here: a text of
    /// 36 characters kept per pin for it was 8 MB at 100,000 pins.
    func comesBefore(_ other: ListedPin) -> Bool { Self.comesBefore(pin, other.pin) }

    static func comesBefore(_ a: Location, _ b: Location) -> Bool {
        a.date != b.date ? a.date > b.date : idBytesFollow(a.id, b.id)
    }

    /// Whether `a`'s bytes come after `b`'s (so `a.uuidString > b.uuidString`).
    static func idBytesFollow(_ a: UUID, _ b: UUID) -> Bool {
        withUnsafeBytes(of: a.uuid) { x in
            withUnsafeBytes(of: b.uuid) { y in x.lexicographicallyPrecedes(y) ? false : !x.elementsEqual(y) }
        }
    }
}

/// Every stored pin, newest first, as of the change log's position `seq` in the file `file`.
/// A change of the database reads only the pins the log names (`updated`), and patches them in
/// place, in order; when the log cannot tell (no log, pruned past, another file at the path),
/// every pin is read again.
struct PinList: Sendable {
    var seq: Int64?
    var file: FileIdentity?
    var pins: [ListedPin]
    /// The filters answered from these pins; a new one whenever a pin changes (`apply`).
    var matches = FilterMatches()

    /// Every pin, read now.
    static func load(_ app: PinApp) throws -> PinList {
        let file = FileIdentity(path: app.databasePath)
        var snapshot = try app.pinSnapshot()
        var locations = snapshot.pins
        snapshot.pins = []
        // The snapshot is oldest first by date then id: reversed it is (nearly) the list's
        // order; the sort makes sure of it and costs one pass on sorted input.
        locations.reverse()
        locations.sort(by: ListedPin.comesBefore)
        let pins = ListedPin.made(locations)
        return PinList(seq: snapshot.seq, file: file, pins: pins)
    }

    /// This list brought to the database's present state.
    func updated(_ app: PinApp) throws -> PinList {
        guard let seq, let file, file == FileIdentity(path: app.databasePath), let changes = try app.pinChanges(since: seq) else {
            return try Self.load(app)
        }
        var list = self
        list.apply(changes)
        return list
    }

    /// The changed pins taken out and put back (a deleted pin only out) where the order puts them.
    /// The filters answered before are carried over a change of a few pins (`FilterMatches.carried`),
    /// not scanned again: with an edit every 2 s, the 12 filters of scripts/bench-serve scanned the
    /// 100,000 pins again after each (a third of the service's CPU).
    mutating func apply(_ changes: PinChanges) {
        seq = changes.seq
        guard !changes.pins.isEmpty else { return }
        let fresh = ListedPin.made(changes.pins.compactMap(\.pin))
        if changes.pins.count <= 64 {
            let removed = Set(changes.pins.compactMap { change in pins.firstIndex { $0.pin.id == change.id } }).sorted()
            // The last first: the places of the others stay as they were.
            for index in removed.reversed() { pins.remove(at: index) }
            for pin in fresh { pins.insert(pin, at: insertionIndex(of: pin)) }
            // Each put-back pin's place now (the first place its pin does not come before: its own).
            let inserted = fresh.map { insertionIndex(of: $0) }.sorted()
            matches = matches.carried(removed: removed, inserted: inserted, in: pins)
        } else {
            matches = FilterMatches()
            let changed = Set(changes.pins.map(\.id))
            pins.removeAll { changed.contains($0.pin.id) }
            pins += fresh
            pins.sort { $0.comesBefore($1) }
        }
    }

    /// The first index whose pin `pin` comes before (binary search of the sorted list).
    private func insertionIndex(of pin: ListedPin) -> Int {
        var low = 0, high = pins.count
        while low < high {
            let middle = (low + high) / 2
            if pins[middle].comesBefore(pin) { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

/// The filters answered from one `PinList`: each one's matching pins as indices into its `pins`,
/// the last `capacity` filters asked for. Browsers ask the same few filters again and again (a
/// country, a year, a search as typed); each answer scanned the 100,000 pins (20-40 ms of CPU a
/// filtered page, most of it copying each pin to test it): now a filter asked again is a slice of
/// its indices, also after a change of a few pins (`carried`). Two requests for a new filter at
/// once may both scan; neither waits.
final class FilterMatches: Sendable {
    struct Entry: Sendable {
        let key: String
        /// What the indices answer: the carried indices test the changed pins with it.
        let filter: PinFilter
        let indices: [Int32]
    }

    private let kept = Mutex<[Entry]>([])
    static let capacity = 16

    /// The indices kept for `key` (the filter `filter`), else `scan()`'s, kept.
    func indices(for key: String, filter: PinFilter, scan: () -> [Int32]) -> [Int32] {
        if let hit = kept.withLock({ list in list.first { $0.key == key }?.indices }) { return hit }
        let indices = scan()
        kept.withLock { list in
            list.removeAll { $0.key == key }
            list.insert(Entry(key: key, filter: filter, indices: indices), at: 0)
            if list.count > Self.capacity { list.removeLast() }
        }
        return indices
    }

    /// The indices of the pins of `pins` that `filter` passes.
    static func scan(_ filter: PinFilter, _ pins: [ListedPin]) -> [Int32] {
        let accepts = filter.foldedMatcher { _ in nil }
        var found: [Int32] = []
        for (index, listed) in pins.enumerated() where accepts(listed.pin, listed.folded) { found.append(Int32(index)) }
        return found
    }

    /// The filters kept here, answered for the pins after a change: `removed`, the places the
    /// changed pins had (ascending); `inserted`, the places of the pins put back, in `pins` as it
    /// is now (ascending). The other pins keep their order, so each index moves by the pins
    /// taken out before it and put in before it; only the pins put back are tested.
    func carried(removed: [Int], inserted: [Int], in pins: [ListedPin]) -> FilterMatches {
        let next = FilterMatches()
        let entries = kept.withLock { $0 }.map { entry in
            let accepts = entry.filter.foldedMatcher { _ in nil }
            let added = inserted.filter { accepts(pins[$0].pin, pins[$0].folded) }
            return Entry(key: entry.key, filter: entry.filter,
                         indices: Self.carry(entry.indices, removed: removed, inserted: inserted, added: added))
        }
        next.kept.withLock { $0 = entries }
        return next
    }

    /// `old`'s indices without `removed`, moved past the places `inserted`, with `added` (those of
    /// `inserted` that pass the filter) among them: ascending, as a scan finds them.
    static func carry(_ old: [Int32], removed: [Int], inserted: [Int], added: [Int]) -> [Int32] {
        var result: [Int32] = []
        result.reserveCapacity(old.count + added.count)
        var before = 0, put = 0, next = 0  // removed below it; places put in before it; added written
        for value in old {
            let index = Int(value)
            while before < removed.count, removed[before] < index { before += 1 }
            if before < removed.count, removed[before] == index { continue }
            // Its rank among the pins kept, then past each place put in at or before it.
            let rank = index - before
            while put < inserted.count, inserted[put] <= rank + put { put += 1 }
            let now = rank + put
            while next < added.count, added[next] < now { result.append(Int32(added[next])); next += 1 }
            result.append(Int32(now))
        }
        result += added[next...].map(Int32.init)
        return result
    }
}

/// The device and inode of a file: a database replaced at its path (a repair, a restore) is
/// another file, whose change log positions say nothing of the one read before.
struct FileIdentity: Equatable, Sendable {
    let device: UInt64
    let inode: UInt64

    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }
}
