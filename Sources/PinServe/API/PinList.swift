import Foundation
import Synchronization
import PinApp
import PinCore
import PinReport
import PinStore

/// One stored pin as the list keeps it, with what each request would otherwise work out again:
/// its id as text (the order's tie-break) and its text folded for the search and the filters.
final class ListedPin: Sendable {
    let pin: Location
    /// `pin.id.uuidString`, the tie-break of `PinFilter`'s date order.
    let idText: String
    /// Never nil: optional as `PinFilter.foldedMatcher` borrows it.
    let folded: FoldedPinText?
    /// Its object in the map data's pins-data and the trip it was made with (`PinApp.pageInput`'s
    /// `pinJSON`): made at the first map data after the pin entered the list, again only when
    /// its trip changed. A changed pin is a new `ListedPin`.
    private let pageJSON = Mutex<(trip: String?, json: String)?>(nil)
    /// Its object in the list's answer (`pinProperties`, as `pins list --json` prints it), made
    /// at the first list that shows it: a page of 100 pins is then 100 texts joined, not 100
    /// objects written again (1-2 ms of CPU a page at 100,000 pins, scripts/bench-serve).
    private let listText = Mutex<String?>(nil)

    init(_ pin: Location) {
        self.pin = pin
        idText = pin.id.uuidString
        folded = FoldedPinText(pin)
    }

    func pageJSON(trip: String?, make: () -> String) -> String {
        if let kept = pageJSON.withLock({ $0 }), kept.trip == trip { return kept.json }
        let json = make()
        pageJSON.withLock { $0 = (trip, json) }
        return json
    }

    var listJSON: String {
        if let kept = listText.withLock({ $0 }) { return kept }
        let json = JSONText.string(pinProperties(pin))
        listText.withLock { $0 = json }
        return json
    }

    /// Whether `self` comes first in the list: newest first, as `PinFilter` with `descending`
    /// sorts (by date then id text, reversed).
    func comesBefore(_ other: ListedPin) -> Bool {
        pin.date != other.pin.date ? pin.date > other.pin.date : idText > other.idText
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
        let snapshot = try app.pinSnapshot()
        // The snapshot is oldest first by date then id: reversed it is (nearly) the list's
        // order; the sort makes sure of it and costs one pass on sorted input.
        var pins = snapshot.pins.reversed().map(ListedPin.init)
        pins.sort { $0.comesBefore($1) }
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
    mutating func apply(_ changes: PinChanges) {
        seq = changes.seq
        guard !changes.pins.isEmpty else { return }
        matches = FilterMatches()
        let fresh = changes.pins.compactMap { $0.pin.map(ListedPin.init) }
        if changes.pins.count <= 64 {
            for change in changes.pins {
                if let index = pins.firstIndex(where: { $0.pin.id == change.id }) { pins.remove(at: index) }
            }
            for pin in fresh { pins.insert(pin, at: insertionIndex(of: pin)) }
        } else {
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
/// filtered page, most of it copying each pin to test it): now a filter asked again before
/// the next change is a slice of its indices. Two requests for a new filter at once may both
/// scan; neither waits.
final class FilterMatches: Sendable {
    private let kept = Mutex<[(key: String, indices: [Int32])]>([])
    static let capacity = 16

    /// The indices kept for `key`, else `scan()`'s, kept.
    func indices(for key: String, scan: () -> [Int32]) -> [Int32] {
        if let hit = kept.withLock({ list in list.first { $0.key == key }?.indices }) { return hit }
        let indices = scan()
        kept.withLock { list in
            list.removeAll { $0.key == key }
            list.insert((key, indices), at: 0)
            if list.count > Self.capacity { list.removeLast() }
        }
        return indices
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
