import Foundation
import PinCore

/// What the store holds on a pin beyond its `Location` fields, which deleting it loses and the
/// undo of the delete (`PinApp.undoChange`) gives back: its row number (the photos' `pin` names
/// it) and creation time (the photo links' order between two pins at the same distance), the
/// photos that made it (their `location_id`, which the delete's foreign key clears: an import
/// then takes them as deleted, and an imported pin without an offset of its own shows theirs)
/// and the place-file records that made it (their `location_id` too).
public struct PinTies: Sendable {
    let row: Int64
    let createdAt: Double
    let photoPaths: [SQLValue]
    let placeRecordKeys: [String]
}

extension PinDatabase {
    /// Pin `id`'s ties, read inside the caller's write before it deletes the pin; nil when no
    /// pin has that id.
    public func ties(ofPin id: UUID) throws -> PinTies? {
        let idText = id.lowercasedText
        guard let (row, createdAt) = try connection.query("SELECT rowid, created_at FROM locations WHERE id = ?", [idText], {
            ($0.int64(0), $0.double(1))
        }).first else { return nil }
        let paths = try connection.query("SELECT path FROM photos WHERE location_id = ? ORDER BY path", [idText]) { $0.value(0) }
        let keys = try connection.query("SELECT key FROM place_records WHERE location_id = ? ORDER BY key", [idText]) { $0.string(0) }
        return PinTies(row: row, createdAt: createdAt, photoPaths: paths, placeRecordKeys: keys)
    }

    /// Gives pin `id`, just stored again in the caller's write, its `ties`: its creation time;
    /// its old row number unless another pin took it since (then it keeps the new one); the
    /// claim of each photo and place record that made it, unless that one names another pin
    /// since. Its photos' links (`photos.pin`) and visits are made again at the write's end, as
    /// after every write that adds a pin (`PhotoLinks`).
    public func restore(_ ties: PinTies, ofPin id: UUID) throws {
        let idText = id.lowercasedText
        try connection.run("UPDATE locations SET created_at = ? WHERE id = ?", [ties.createdAt, idText])
        try connection.run("""
            UPDATE locations SET rowid = ? WHERE id = ? AND NOT EXISTS (SELECT 1 FROM locations WHERE rowid = ?)
            """, [ties.row, idText, ties.row])
        connection.forgetPinRow(id)
        for path in ties.photoPaths {
            try connection.run("UPDATE photos SET location_id = ? WHERE path = ? AND location_id IS NULL", [idText, path])
        }
        for key in ties.placeRecordKeys {
            try connection.run("UPDATE place_records SET location_id = ? WHERE key = ? AND location_id IS NULL", [idText, key])
        }
    }
}
