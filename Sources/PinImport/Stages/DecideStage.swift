import Foundation
import PinCore
import PinMetadata

/// Stage 4: the app's rules over the undecided photos, in capture order; each accepted photo
/// gets its pin planned (id, country, title) by CreationService. The items come sorted into
/// report order (`ItemSorter`: decided photos as the rules see them, then unreadable files and
/// non-media by path) and go on to the report's records (`DecidedFiles`) one by one.
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

    /// Whether the rules decide `item` (a photo); a video is left out here when asked (it
    /// becomes `.notMedia`). Unreadable files and other files are not decided.
    mutating func admit(_ item: inout ImportItem) -> Bool {
        guard Self.isCandidate(item) else { return false }
        if !includeVideos, item.isVideo {
            item.decision = .notMedia
            videosLeftOut += 1
            return false
        }
        return true
    }

    /// A photo the rules decide: read as a photo, not left out (see `admit`).
    static func isCandidate(_ item: ImportItem) -> Bool { item.isMedia && item.decision != .notMedia }

    /// Decides the photos of `sorted` (report order: the photos the rules see by capture instant
    /// then path, then the rest by path) against the history, and writes every item, decided or
    /// not, to `out` as it goes: nothing of the run is held but the rules' own state.
    /// `redecided`: the photos (relative to `root`) among them that an earlier run accepted.
    func decide(_ sorted: inout ItemSorter.Merge, history: ImportHistory, redecided: Set<RawPath>, root: RawPath,
                into out: inout DecidedFiles.Writer) throws {
        var filters = ImportFilters(minInterval: minInterval, threshold: threshold, existingPins: history.pins,
                                    earlierAccepted: Self.earlierAccepted(history.earlierAccepted, redeciding: redecided, root: root))
        // Each item is decided in place: no copy of it (a copy retains every reference it holds).
        while var next = sorted.next() {
            guard next.candidate else {
                try out.append(next.item)
                continue
            }
            let instant = next.item.takenAt.timeIntervalSince1970
            let coordinate = next.item.coordinate
            let verdict = filters.decide(.init(index: 0, instant: instant, path: next.item.entry.relativePath, coordinate: coordinate,
                                               locationIssue: next.item.locationIssue),
                                         label: next.item.entry.relativePath.description)
            next.item.verdict = verdict
            next.item.decision = verdict.decision
            if verdict.decision == .accepted, let coordinate {
                let takenAt = Date(timeIntervalSince1970: instant)
                next.item.pin = try plan(coordinate, takenAt, next.item.utcOffsetSeconds ?? timeZone.secondsFromGMT(for: takenAt))
            }
            try out.append(next.item)
        }
    }

    /// The paths of `accepted` below `root`, relative to it.
    static func relativePaths(of accepted: [AcceptedPhoto], below root: RawPath) -> Set<RawPath> {
        let prefix = root.bytes + [UInt8(ascii: "/")]
        return Set(accepted.lazy.filter { $0.path.bytes.starts(with: prefix) }.map { RawPath(bytes: Array($0.path.bytes.dropFirst(prefix.count))) })
    }

    /// A photo decided again (its content changed) is not "previously accepted" to itself.
    static func earlierAccepted(_ earlier: [AcceptedPhoto], redeciding redecided: Set<RawPath>, root: RawPath) -> [AcceptedPhoto] {
        guard !redecided.isEmpty, !earlier.isEmpty else { return earlier }
        let prefix = root.bytes + [UInt8(ascii: "/")]
        return earlier.filter { accepted in
            !(accepted.path.bytes.starts(with: prefix)
              && redecided.contains(RawPath(bytes: Array(accepted.path.bytes.dropFirst(prefix.count)))))
        }
    }
}
