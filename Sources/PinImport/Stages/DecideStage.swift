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
    /// Plans the pin of an accepted photo: coordinate, capture instant, UTC offset. Called on
    /// the writer's thread (`DecidedWriter`), in the rules' order.
    var plan: @Sendable (Coordinate, Date, Int) throws -> PinPlan

    /// Videos left out by `--no-videos` (they become `.notMedia`).
    private(set) var videosLeftOut = 0
    /// The photos around (issue 36 item 4): applied to photos without a position when
    /// `applyEstimates`, else only counted (`estimatesPossible`, a dry run's one line).
    var estimator: PositionEstimator?
    var applyEstimates = false
    private(set) var estimated = 0
    private(set) var estimatesPossible = 0
    /// The camera photos without offsets the photos around missed (issue 36 item 5).
    private(set) var zoneGuess = CameraZoneGuess()

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
    ///
    /// The rules are sequential, but what follows them is not: the pins of accepted photos are
    /// planned (country, id, title) and every item is encoded into the records on a second
    /// thread (`DecidedWriter`), in the same order, while the rules go on. At the end of a run
    /// the rules run alone (everything else is read), so this halves the stage's wall time on
    /// two cores.
    mutating func decide(_ sorted: inout ItemSorter.Merge, history: ImportHistory, redecided: Set<RawPath>, root: RawPath,
                into out: inout DecidedFiles.Writer) throws {
        var filters = ImportRules(minInterval: minInterval, threshold: threshold, existingPins: history.pins,
                                    earlierAccepted: Self.earlierAccepted(history.earlierAccepted, redeciding: redecided, root: root))
        let writer = DecidedWriter(out, plan: plan, timeZone: timeZone)
        defer { writer.stop() }
        var chunk: [DecidedWriter.Pending] = []
        chunk.reserveCapacity(DecidedWriter.chunkSize)
        // Each item is moved, not copied (a copy retains every reference it holds).
        while case (let candidate, var item)? = sorted.next() {
            var planned = false
            if candidate, item.coordinate == nil, let estimator, !item.datedByFile {
                let estimate = estimator.estimate(at: item.takenAt.timeIntervalSince1970)
                // Only a run that estimates says the camera's zone is wrong: its options can right it.
                if applyEstimates {
                    zoneGuess.note(source: item.timeSource, instant: item.takenAt.timeIntervalSince1970,
                                   offset: item.utcOffsetSeconds, placed: (try? estimate.get()) != nil)
                }
                if case let .success(found) = estimate {
                    if applyEstimates {
                        item.place(estimate: found)
                        estimated += 1
                    } else {
                        estimatesPossible += 1
                    }
                }
            }
            if candidate {
                let verdict = filters.decide(.init(index: 0, instant: item.takenAt.timeIntervalSince1970, path: item.entry.relativePath,
                                                   coordinate: item.coordinate, locationIssue: item.locationIssue,
                                                   datedByFile: item.datedByFile),
                                             label: item.entry.relativePath.description)
                item.verdict = verdict
                item.decision = verdict.decision
                planned = verdict.decision == .accepted && item.coordinate != nil
            }
            chunk.append(.init(item: item, planned: planned))
            if chunk.count == DecidedWriter.chunkSize {
                try writer.send(chunk)
                chunk.removeAll(keepingCapacity: true)
            }
        }
        try writer.send(chunk)
        out = try writer.finish()
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

/// The second half of deciding, on its own thread: plans the pin of each accepted photo and
/// appends every item to the report's records, in the order the rules decided them (so pin ids
/// are drawn in the same order as on one thread). Items come in chunks through a bounded queue:
/// the memory in flight is at most `maxQueued` chunks.
final class DecidedWriter: Sendable {
    struct Pending: Sendable {
        var item: ImportItem
        /// An accepted photo with a position: its pin is planned before it is written.
        var planned: Bool
    }

    static let chunkSize = 256
    static let maxQueued = 8

    private let queue = BoundedQueue<[Pending]>(capacity: DecidedWriter.maxQueued)
    /// Gives back the records once the queue is closed and written, or the first error.
    private let thread: WorkerThread<Result<DecidedFiles.Writer, Error>>

    init(_ writer: DecidedFiles.Writer, plan: @escaping @Sendable (Coordinate, Date, Int) throws -> PinPlan, timeZone: TimeZone) {
        let queue = self.queue
        thread = WorkerThread(name: "decided writer") {
            Self.write(queue, into: writer, plan: plan, timeZone: timeZone)
        }
    }

    /// Queues a chunk (waiting while the queue is full); throws the writer's error, if any.
    func send(_ chunk: [Pending]) throws {
        guard !chunk.isEmpty else { return }
        guard queue.put(chunk) else {
            // The writer failed (it abandons the queue then).
            _ = try thread.join().get()
            preconditionFailure("chunk sent to a stopped writer")
        }
    }

    /// Waits until every queued item is written; the records, or the first error.
    func finish() throws -> DecidedFiles.Writer {
        queue.close()
        return try thread.join().get()
    }

    /// Ends the thread without writing what is queued (after an error of the rules' side);
    /// nothing after `finish`.
    func stop() {
        queue.abandon()
        thread.join()
    }

    /// The writer's thread: the chunks of `queue` in order, until it is closed or abandoned;
    /// at the first error, abandons it (the rules' side then throws that error).
    private static func write(_ queue: BoundedQueue<[Pending]>, into writer: DecidedFiles.Writer,
                              plan: (Coordinate, Date, Int) throws -> PinPlan, timeZone: TimeZone) -> Result<DecidedFiles.Writer, Error> {
        var writer = writer
        while var chunk = queue.take() {
            do {
                for i in chunk.indices {
                    if chunk[i].planned, let coordinate = chunk[i].item.coordinate {
                        // As the rules saw it: the capture instant through seconds since 1970.
                        let takenAt = Date(timeIntervalSince1970: chunk[i].item.takenAt.timeIntervalSince1970)
                        chunk[i].item.pin = try plan(coordinate, takenAt, chunk[i].item.utcOffsetSeconds ?? timeZone.secondsFromGMT(for: takenAt))
                    }
                    try writer.append(chunk[i].item)
                }
            } catch {
                queue.abandon()
                return .failure(error)
            }
        }
        return .success(writer)
    }
}
