import Foundation
import PinCore

/// `pins check` end to end: examine the file, and (`--repair`) mend it while no one writes.
extension DatabaseCheck {
    /// What a check found: integrity_check's findings (nil: the file could not even be read, which
    /// a repair treats as damage), then, on a sound file, the counts that disagree.
    public struct Examination: Sendable {
        public let damage: [String]?
        let mismatches: [String]
        /// Everything found, in the order it is printed.
        public var problems: [String] { (damage ?? []) + mismatches }
        /// Sound, with true counts: nothing to repair.
        public var isWhole: Bool { damage == [] && mismatches.isEmpty }
        /// Sound but with counts to make true: a recount in place, no copy.
        public var needsOnlyRecount: Bool { damage == [] }
    }

    /// integrity_check first, then (on a sound file) the counts. A file the check cannot read
    /// throws, unless `forRepair` (then it is damaged: `damage` nil). Writes nothing.
    public static func examine(path: String, forRepair: Bool) throws -> Examination {
        let damage: [String]?
        do {
            damage = try self.damage(path: path)
        } catch let error as StorageError {
            if !forRepair { throw error }
            damage = nil
        }
        return Examination(damage: damage, mismatches: damage == [] ? try countMismatches(path: path) : [])
    }

    /// What a repair did.
    public enum Mending: Sendable {
        /// A sound file's counts made true in place: the problems fixed, and what still disagrees.
        case recounted(fixed: [String], remaining: [String])
        /// A damaged file copied into a new one (`repair`).
        case repaired(Repair)
    }

    /// Why a repair changed nothing: the recount or the copy failed (the file is as it was).
    struct MendingFailure: ExitStatusError {
        let description: String
        let exitStatus: Int32
    }

    /// Mends a file `examine` found wrong. Nothing may write meanwhile: an import exits 75 (as
    /// `pins check --repair` does when one runs), other writing commands (`add`, `edit`, ...)
    /// running are waited for, and those started meanwhile wait and then write into the mended
    /// file. `held` runs once the lock is held (tests stop there).
    public static func mend(path: String, _ examination: Examination, countries: @escaping CountryNames,
                            held: () -> Void = {}) throws -> Mending {
        let lock = try RunLock(databasePath: path, excludingWriters: true)
        held()
        return try withExtendedLifetime(lock) {
            if examination.needsOnlyRecount {
                do {
                    let remaining = try recountInPlace(path: path)
                    return .recounted(fixed: examination.mismatches.filter { !remaining.contains($0) }, remaining: remaining)
                } catch let error as StorageError {
                    throw MendingFailure(description: "the recount failed, nothing was changed: \(error)", exitStatus: error.exitStatus)
                }
            }
            do {
                return .repaired(try repair(path: path, countries: countries))
            } catch let error as StorageError {
                throw MendingFailure(description: "the repair failed, nothing was changed: \(error)", exitStatus: error.exitStatus)
            }
        }
    }
}
