import Foundation

/// The app's import rules, in its order, over photos sorted by capture instant then path:
/// 1. no coordinates → noLocation; 2. less than `minInterval` after the previously accepted
/// photo → interval; 3. closer than `threshold` to any pin → distance; 4. accepted. A photo
/// dated only by its file's time takes no part in rule 2 (`Candidate.datedByFile`).
/// A photo whose nearest pin within `threshold` is a wanted one (a place the person wanted to
/// go) is skipped for distance too, as `visits`: it marks that pin visited (the first such
/// photo in the rules' order, so the earliest; the save gives the pin its date).
/// Pure: it knows nothing of files or databases (the import's DecideStage feeds it; pins-bench
/// and the rules fuzz target run it alone).
public struct ImportRules {
    public struct Candidate: Sendable {
        /// The caller's index for this photo.
        public let index: Int
        /// Capture instant, seconds since 1970.
        let instant: Double
        let path: RawPath
        let coordinate: Coordinate?
        /// Why there is no coordinate, when the file said something about it.
        let locationIssue: String?
        /// The instant is the file's modification time, not a capture time (issue 36 item 2):
        /// the photo takes no part in the interval rule, neither skipped for it nor making a
        /// later photo skipped (files copied within a minute are not photos taken within one).
        let datedByFile: Bool

        public init(index: Int, instant: Double, path: RawPath, coordinate: Coordinate?, locationIssue: String? = nil,
                    datedByFile: Bool = false) {
            self.index = index
            self.instant = instant
            self.path = path
            self.coordinate = coordinate
            self.locationIssue = locationIssue
            self.datedByFile = datedByFile
        }
    }

    public struct ExistingPin: Sendable {
        let title: String
        let coordinate: Coordinate
        /// A wanted pin's id (`Location.wanted`); nil for a visit.
        let wantedID: UUID?
        public init(title: String, coordinate: Coordinate, wantedID: UUID? = nil) {
            self.title = title
            self.coordinate = coordinate
            self.wantedID = wantedID
        }
    }

    public enum Verdict: Sendable, Equatable {
        case accepted
        case noLocation(reason: String)
        /// `seconds` after the previously accepted photo, named by `previous`.
        case interval(seconds: Double, previous: String)
        /// `kilometres` from the pin titled `pin`, which stands at `pinCoordinate` (the map page
        /// draws the line from the photo to it).
        case distance(kilometres: Double, radians: Double, pin: String, pinCoordinate: Coordinate)
        /// As `distance`, from a wanted pin (`pinID`) the photo marks visited: the person has
        /// been where they wanted to go. The photo makes no pin of its own.
        case visits(kilometres: Double, radians: Double, pin: String, pinCoordinate: Coordinate, pinID: UUID)

        public var decision: PhotoDecision {
            switch self {
            case .accepted: return .accepted
            case .noLocation: return .noLocation
            case .interval: return .interval
            case .distance, .visits: return .distance
            }
        }
    }

    let minInterval: Double
    let threshold: Double
    private var index: PinSpatialIndex
    /// The pins' labels (titles of existing pins, paths of this run's), one after another as
    /// UTF-8 in one buffer, not a String each: a run can make tens of thousands of pins and a
    /// label is made back into a String only when a verdict names its pin.
    private var labelBytes: [UInt8] = []
    /// Where each pin's label ends in `labelBytes` (it starts where the previous one ends).
    private var labelEnds: [UInt32] = []
    /// The label last made back into a String (consecutive photos are mostly blocked by the
    /// same pin: one String for all of them).
    private var lastNamed: (tag: Int, label: String)?
    /// Accepted photos of earlier runs, by instant.
    private let earlier: [AcceptedPhoto]
    private var lastAccepted: (instant: Double, label: String)?
    /// The wanted pins not yet marked visited by a photo of this run, by tag.
    private var wanted: [Int: UUID] = [:]

    public init(minInterval: Double = CaptureInterval.appMinimum, threshold: Double = AngularDistance.appThreshold,
                existingPins: [ExistingPin] = [], earlierAccepted: [AcceptedPhoto] = []) {
        self.minInterval = minInterval
        self.threshold = threshold
        self.index = PinSpatialIndex(threshold: threshold)
        self.earlier = earlierAccepted.sorted { $0.instant < $1.instant }
        for pin in existingPins where pin.coordinate.isValid {
            if let id = pin.wantedID { wanted[labelEnds.count] = id }
            index.insert(pin.coordinate, tag: labelEnds.count)
            keepLabel(pin.title)
        }
    }

    private mutating func keepLabel(_ label: String) {
        labelBytes.append(contentsOf: label.utf8)
        precondition(labelBytes.count <= Int(UInt32.max), "pin labels beyond 4 GiB")
        labelEnds.append(UInt32(labelBytes.count))
    }

    /// The label of pin `tag`, as it was given (a String's UTF-8 decodes back to the same String).
    private mutating func pinLabel(_ tag: Int) -> String {
        if let lastNamed, lastNamed.tag == tag { return lastNamed.label }
        let start = tag == 0 ? 0 : Int(labelEnds[tag - 1])
        let label = String(decoding: labelBytes[start..<Int(labelEnds[tag])], as: UTF8.self)
        lastNamed = (tag, label)
        return label
    }

    /// Sorts by (instant, path bytes): the order the rules see the photos in.
    public static func ordered(_ candidates: [Candidate]) -> [Candidate] {
        var sorted = candidates
        order(&sorted)
        return sorted
    }

    /// The same, in place (a run's candidates can number a million: no second copy).
    static func order(_ candidates: inout [Candidate]) {
        candidates.sort { a, b in
            if a.instant != b.instant { return a.instant < b.instant }
            return a.path < b.path
        }
    }

    /// The latest accepted photo of an earlier run at or before `instant` (binary search).
    private func earlierAccepted(atOrBefore instant: Double) -> AcceptedPhoto? {
        var lo = 0, hi = earlier.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if earlier[mid].instant <= instant { lo = mid + 1 } else { hi = mid }
        }
        return lo > 0 ? earlier[lo - 1] : nil
    }

    /// Decides one photo; candidates must arrive in `ordered` order. `label` names the photo
    /// in later verdicts ("48 s after <label>", "4.9 km from <label>"): it is made only for a
    /// photo that is accepted (most are not, and a label is a new string), as the label of an
    /// earlier run's photo is made only when a verdict names it.
    public mutating func decide(_ candidate: Candidate, label: @autoclosure () -> String) -> Verdict {
        guard let coordinate = candidate.coordinate, coordinate.isValid else {
            return .noLocation(reason: candidate.locationIssue ?? "no GPS position")
        }
        // The previous accepted photo: this run's last one, or an earlier run's when later.
        var older: AcceptedPhoto?
        if let photo = earlierAccepted(atOrBefore: candidate.instant), photo.instant > (lastAccepted?.instant ?? -.infinity) {
            older = photo
        }
        if !candidate.datedByFile, let previousInstant = older?.instant ?? lastAccepted?.instant,
           candidate.instant - previousInstant < minInterval {
            return .interval(seconds: candidate.instant - previousInstant, previous: older?.path.description ?? lastAccepted!.label)
        }
        if let match = index.nearest(to: coordinate) {
            if let id = wanted.removeValue(forKey: match.entry.tag) {
                return .visits(kilometres: AngularDistance.kilometres(coordinate, match.entry.coordinate), radians: match.radians,
                               pin: pinLabel(match.entry.tag), pinCoordinate: match.entry.coordinate, pinID: id)
            }
            return .distance(kilometres: AngularDistance.kilometres(coordinate, match.entry.coordinate),
                             radians: match.radians, pin: pinLabel(match.entry.tag), pinCoordinate: match.entry.coordinate)
        }
        let label = label()
        index.insert(coordinate, tag: labelEnds.count)
        keepLabel(label)
        if !candidate.datedByFile { lastAccepted = (candidate.instant, label) }
        return .accepted
    }
}
