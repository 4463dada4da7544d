import Foundation
import PinCore

/// The photo links an import's save stage made (issue 39's cost), for the store to finish them
/// without reading every photo again: what the full pass (`PhotoLinks.relink` in PinStore)
/// would find, provided every photo record with a position is one the run wrote (the store
/// checks: `positionedRecords` is their number) and no pin moved or went away meanwhile.
public struct RunPhotoLinks: Sendable {
    /// Records the run wrote whose pin a pin it made later is nearer to: the path, and the pin
    /// it belongs to now.
    public var corrections: [(path: RawPath, pin: UUID)] = []
    /// The local day of each linked photo with a capture time, by pin (`Visits.localDay`),
    /// for every pin that has one. Pins the run found stored are in `storedPins` too.
    public var days: [UUID: [Int]] = [:]
    /// The pins that were stored before the run (their visit counts may need to go back to 1).
    public var storedPins: [UUID] = []
    /// How many photo records with a position the run wrote.
    public var positionedRecords = 0

    public init() {}
}
