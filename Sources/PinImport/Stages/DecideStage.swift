import Foundation
import PinCore
import PinMetadata

/// Stage 4: the app's rules over the undecided photos, in capture order; each accepted photo
/// gets its pin planned (id, country, title) by CreationService. The items end up in report
/// order: decided photos as the rules saw them, then unreadable files and non-media by path.
struct DecideStage {
    var minInterval: Double
    var threshold: Double
    var includeVideos: Bool
    /// The zone of a capture time that carries no offset (for the title's date).
    var timeZone: TimeZone
    /// Plans the pin of an accepted photo: coordinate, capture instant, UTC offset.
    var plan: (Coordinate, Date, Int) throws -> PinPlan

    /// Videos left out by `--no-videos` (they become `.notMedia`).
    private(set) var videosLeftOut = 0

    /// The photos the rules will see, in index order; videos are left out here when asked.
    mutating func candidates(_ items: inout [ImportItem], undecided: [Int]) -> [ImportFilters.Candidate] {
        var candidates: [ImportFilters.Candidate] = []
        for i in undecided {
            guard let metadata = items[i].metadata else { continue }
            if !includeVideos, metadata.format.isVideo {
                items[i].decision = .notMedia
                videosLeftOut += 1
                continue
            }
            candidates.append(.init(index: i, instant: items[i].takenAt.timeIntervalSince1970, path: items[i].entry.relativePath,
                                    coordinate: metadata.coordinate, locationIssue: metadata.locationIssue))
        }
        return candidates
    }

    /// Decides `candidates` against the history and reorders `items` in place into report
    /// order, dropping the items that were not to be decided (touched and moved files).
    /// `candidates` is sorted in place: pass it with `consume` and no second copy is made.
    func decide(_ items: inout [ImportItem], candidates: consuming [ImportFilters.Candidate], undecided: [Int],
                history: ImportHistory, root: RawPath) throws {
        var filters = ImportFilters(minInterval: minInterval, threshold: threshold, existingPins: history.pins,
                                    earlierAccepted: Self.earlierAccepted(history.earlierAccepted, redeciding: candidates, root: root))
        var order: [Int] = []
        order.reserveCapacity(candidates.count)
        ImportFilters.order(&candidates)
        for candidate in candidates {
            let i = candidate.index
            let verdict = filters.decide(candidate, label: items[i].entry.relativePath.description)
            items[i].verdict = verdict
            items[i].decision = verdict.decision
            if verdict == .accepted, let coordinate = candidate.coordinate {
                let takenAt = Date(timeIntervalSince1970: candidate.instant)
                let offset = items[i].metadata?.utcOffsetSeconds ?? timeZone.secondsFromGMT(for: takenAt)
                items[i].pin = try plan(coordinate, takenAt, offset)
            }
            order.append(i)
        }
        // Unreadable files and non-media last, by path.
        let rest = undecided.filter { items[$0].verdict == nil }.sorted { items[$0].entry.relativePath < items[$1].entry.relativePath }
        // In place: a second copy of 200,000 items would double the run's memory.
        let reportOrder = order + rest
        items.permute(to: reportOrder)
        items.removeLast(items.count - reportOrder.count)
    }

    /// A photo decided again (its content changed) is not "previously accepted" to itself.
    static func earlierAccepted(_ earlier: [AcceptedPhoto], redeciding candidates: [ImportFilters.Candidate],
                                root: RawPath) -> [AcceptedPhoto] {
        guard !candidates.isEmpty, !earlier.isEmpty else { return earlier }
        let redecided = Set(candidates.map(\.path))
        let prefix = root.bytes + [UInt8(ascii: "/")]
        return earlier.filter { accepted in
            !(accepted.path.bytes.starts(with: prefix)
              && redecided.contains(RawPath(bytes: Array(accepted.path.bytes.dropFirst(prefix.count)))))
        }
    }
}

extension Array {
    /// Reorders the array in place so that element k becomes the old element `order[k]`;
    /// indices not in `order` end up after `order.count`. O(n) swaps, no second array of
    /// elements.
    mutating func permute(to order: [Int]) {
        precondition(Set(order).count == order.count && order.allSatisfy { indices.contains($0) }, "not a partial permutation")
        // Complete the order with the indices it leaves out, then follow cycles.
        var target = order
        var used = [Bool](repeating: false, count: count)
        for i in order { used[i] = true }
        for i in indices where !used[i] { target.append(i) }
        var done = [Bool](repeating: false, count: count)
        for start in indices where !done[start] {
            // Position p receives old element target[p]; walk the cycle from `start`.
            var p = start
            let saved = self[start]
            while true {
                done[p] = true
                let source = target[p]
                if source == start {
                    self[p] = saved
                    break
                }
                self[p] = self[source]
                p = source
            }
        }
    }
}
