import Foundation
import PinCore
import PinGrammar
import PinFormats

/// CSV place lists: a header row, then one place per row.
///
/// Positions come from a latitude and a longitude column, found by the names QGIS's delimited
/// text dialog recognises (case ignored): `latitude`/`longitude`, `lat`/`lon` (or `long`,
/// `lng`), `y`/`x` (what `ogr2ogr -lco GEOMETRY=AS_XY` writes), `northing`/`easting`,
/// `north`/`east`. Also read when present: `title` or `name` or `label`; `date` or `time` or
/// `timestamp` or `datetime`; `note` or `notes` or `description` or `desc` or `comment`; `tags`
/// (see `TagList`); `color`/`colour`; `id` or `fid` (the row's own id, its stable key).
/// The delimiter is `,`, or `;` or a tab when the header holds one of those and no comma.
///
/// pins' own export (`pins export --format csv`, its exact header) is read back field for field:
/// type, the visit's fields (`name`, `height`), visit count, colour, and the date with its offset.
enum PlacesCSV {
    /// `pins export --format csv`'s header (PinReport's CSVExport).
    static let pinsHeader = ["id", "title", "latitude", "longitude", "country", "country_name", "type", "date", "color",
                             "visit_count", "note", "tags", "name", "height"]
    /// The columns the export adds since pins knew places; read back, they are resolved again
    /// from the position (the gazetteer's answer, not the file's).
    static let placeColumns = ["place", "region", "region_code"]
    /// The columns the export adds since pins found trips: derived from the pins (`pins trips`),
    /// so read back they are found again, not taken from the file.
    static let tripColumns = ["trip", "trip_title"]
    /// The column the export adds since pins linked photos to pins (issue 39): derived from the
    /// photos, so read back it is ignored (the photos are not in the file).
    static let photoColumns = ["photo_count"]
    /// The column the export adds since pins knew wanted places (issue 40 item 12): `true` for
    /// a place to go, `false` for a visit; read back (a file without it: every row a visit).
    static let wantedColumns = ["wanted"]
    /// Every header pins' export has written, oldest first.
    static let pinsHeaders = [pinsHeader, pinsHeader + placeColumns, pinsHeader + placeColumns + tripColumns,
                              pinsHeader + placeColumns + tripColumns + photoColumns,
                              pinsHeader + placeColumns + tripColumns + photoColumns + wantedColumns]

    static let latitudeNames = ["latitude", "lat", "y", "northing", "north"]
    static let longitudeNames = ["longitude", "lon", "long", "lng", "x", "easting", "east"]

    /// The delimiter of a header line (the file's first bytes).
    static func delimiter(ofHeader head: [UInt8]) -> UInt8 {
        let line = head.prefix { $0 != 0x0A && $0 != 0x0D }
        if line.contains(UInt8(ascii: ",")) { return UInt8(ascii: ",") }
        if line.contains(UInt8(ascii: ";")) { return UInt8(ascii: ";") }
        if line.contains(0x09) { return 0x09 }
        return UInt8(ascii: ",")
    }

    /// The header's columns, without quotes and spaces, lowercased.
    static func columns(ofHeader head: [UInt8]) -> [String] {
        var reader = CSVReader(MemoryInput(Array(head.prefix { $0 != 0x0A && $0 != 0x0D })), delimiter: delimiter(ofHeader: head))
        guard let record = try? reader.nextRecord() else { return [] }
        return record.fields.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
    }

    /// The latitude and longitude columns of a header, if it has a pair.
    static func coordinateColumns(_ columns: [String]) -> (latitude: Int, longitude: Int)? {
        let pairs: [(String, [String])] = [("latitude", ["longitude", "lon", "long", "lng"]), ("lat", ["lon", "long", "lng", "longitude"]),
                                            ("y", ["x"]), ("northing", ["easting"]), ("north", ["east"])]
        for (latName, lonNames) in pairs {
            guard let lat = columns.firstIndex(of: latName) else { continue }
            for lonName in lonNames {
                if let lon = columns.firstIndex(of: lonName) { return (lat, lon) }
            }
        }
        return nil
    }

    /// True when the first bytes are a CSV header with a coordinate pair.
    static func looksLikePlaces(_ head: [UInt8]) -> Bool {
        coordinateColumns(columns(ofHeader: head)) != nil
    }

    static func read(_ source: ByteInput, head: [UInt8], emit: (PlaceReadEvent) throws -> Void) throws {
        var reader = CSVReader(source, delimiter: delimiter(ofHeader: head))
        guard let header = try reader.nextRecord() else { throw PlaceFileError("empty file") }
        let columns = try Columns(header)
        while true {
            let row: CSVReader.Record
            do {
                guard let next = try reader.nextRecord() else { return }
                row = next
            } catch let failure as CSVReader.Failure {
                // A quote still open at the end: where records end after it cannot be known (a
                // quoted field may hold line breaks), so no line after it is read as a place.
                throw PlaceFileError("\(failure.description); reading stopped there")
            }
            if let failure = row.failure {
                // Too long, or too many fields: the reader has read it to its end; the next
                // record starts where it would have.
                try emit(.malformed(position: "line \(row.line)", reason: failure.reason))
                continue
            }
            if row.fields.count == 1, row.fields[0].isEmpty { continue }
            try emit(try event(row, columns))
        }
    }

    /// Where the header puts each field (the QGIS names for the coordinates).
    struct Columns {
        let latitude: Int, longitude: Int
        /// pins' own CSV export, read back exactly.
        let pins: Bool
        let title: Int?, date: Int?, note: Int?, tags: Int?, color: Int?, id: Int?

        init(_ header: CSVReader.Record) throws {
            let names = header.fields.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let (lat, lon) = coordinateColumns(names) else {
                throw PlaceFileError("line 1: no latitude and longitude columns (looked for \(latitudeNames.joined(separator: ", ")) and \(longitudeNames.joined(separator: ", ")))")
            }
            func column(_ candidates: [String]) -> Int? { candidates.lazy.compactMap { names.firstIndex(of: $0) }.first }
            latitude = lat
            longitude = lon
            pins = pinsHeaders.contains(header.fields)
            title = column(["title", "name", "label"])
            date = column(["date", "time", "timestamp", "datetime"])
            note = column(["note", "notes", "description", "desc", "comment"])
            tags = column(["tags"])
            color = column(["color", "colour"])
            id = column(["id", "fid"])
        }
    }

    /// One row as a record, or why it is malformed.
    static func event(_ row: CSVReader.Record, _ columns: Columns) throws -> PlaceReadEvent {
        let position = "line \(row.line)"
        guard row.fields.count > max(columns.latitude, columns.longitude) else {
            return .malformed(position: position, reason: "\(row.fields.count) fields, fewer than the header's columns for latitude and longitude")
        }
        let latText = row.fields[columns.latitude].trimmingCharacters(in: .whitespaces)
        let lonText = row.fields[columns.longitude].trimmingCharacters(in: .whitespaces)
        var record = PlaceRecord(position: position)
        if latText.isEmpty && lonText.isEmpty {
            record.locationIssue = "no coordinates"
        } else {
            guard let lat = decimal(latText), let lon = decimal(lonText) else {
                return .malformed(position: position, reason: "latitude '\(latText)' or longitude '\(lonText)' is not a number")
            }
            record.setCoordinate(latitude: lat, longitude: lon)
        }
        do {
            if columns.pins {
                try readPinsRow(row.fields, into: &record)
            } else {
                try readRow(row.fields, columns, into: &record)
            }
        } catch let failure as PlaceFileError {
            return .malformed(position: position, reason: failure.reason)
        }
        return .record(record)
    }

    /// Another app's row: id, title, note, tags, colour and date where the header names them.
    static func readRow(_ fields: [String], _ columns: Columns, into record: inout PlaceRecord) throws {
        func field(_ index: Int?) -> String? {
            guard let index, index < fields.count else { return nil }
            let value = fields[index]
            return value.isEmpty ? nil : value
        }
        record.ownID = field(columns.id)
        record.title = field(columns.title)
        record.note = field(columns.note)
        if let tags = field(columns.tags) {
            let list = TagList.split(tags)
            record.tags = list.isEmpty ? nil : list
        }
        if let color = field(columns.color) {
            guard let normalized = Settings.normalizedColor(color) else { throw PlaceFileError("colour '\(color)' is not #RRGGBB") }
            record.color = normalized
        }
        if let text = field(columns.date) {
            guard let date = PlaceDates.parse(text, zoneless: .utc) else {
                throw PlaceFileError("date '\(text)' is not ISO 8601 (2024-05-01 or 2024-05-01T12:00:00+02:00) in the years 1 to 9999")
            }
            record.date = date
        }
    }

    /// A decimal number as CSV writers write it: `48.85`, `-2.35`, `1e-3`; not `0x10`, `inf`, `nan`.
    static func decimal(_ text: String) -> Double? { CSVReader.decimal(text) }

    /// A text cell of pins' export, with the apostrophe that defused it for spreadsheets taken off.
    static func undefused(_ text: String) -> String {
        guard text.hasPrefix("'") else { return text }
        guard let first = text.unicodeScalars.first(where: { $0 != "'" }), "=+-@\t\r".unicodeScalars.contains(first) else { return text }
        return String(text.dropFirst())
    }

    /// A row of pins' own export, field for field (the columns of `pinsHeader`).
    static func readPinsRow(_ fields: [String], into record: inout PlaceRecord) throws {
        guard pinsHeaders.contains(where: { $0.count == fields.count }) else {
            throw PlaceFileError("\(fields.count) fields, but pins' export has \(pinsHeaders.last!.count)")
        }
        if fields.count == pinsHeaders.last!.count {
            switch fields[fields.count - 1] {
            case "true": record.wanted = true
            case "false", "": record.wanted = false
            case let other: throw PlaceFileError("wanted '\(other)' is not true or false")
            }
        }
        record.ownID = fields[0].isEmpty ? nil : fields[0]
        record.title = undefused(fields[1])
        let dateText = fields[7]
        guard let parsed = ISO8601.parse(dateText) else { throw PlaceFileError("date '\(dateText)' is not ISO 8601") }
        // pins writes `Z` for an unknown offset and `+00:00` for a known 0 (older versions wrote
        // `Z` for both: read as unknown, as they were).
        let unknown = parsed.offsetSeconds == nil || dateText.hasSuffix("Z") || dateText.hasSuffix("z")
        record.date = unknown ? .unknownOffset(parsed.date) : .withOffset(parsed.date, parsed.offsetSeconds!)
        guard let color = Settings.normalizedColor(fields[8]) else { throw PlaceFileError("colour '\(fields[8])' is not #RRGGBB") }
        record.color = color
        guard let visits = Int(fields[9]), visits >= 1 else { throw PlaceFileError("visit_count '\(fields[9])' is not a whole number from 1") }
        record.visitCount = visits
        let note = undefused(fields[10])
        record.note = note.isEmpty ? nil : note
        let tags = TagList.split(undefused(fields[11]), trim: false)
        record.tags = tags.isEmpty ? nil : tags
        let flat = try flatValues(fields)
        guard let type = LocationTypeSelection(rawValue: fields[6]) else {
            throw PlaceFileError("type '\(fields[6])' is not \(LocationTypeSelection.spoken())")
        }
        guard let visit = VisitValues.reading(type, { field in field.flatKey.flatMap { flat[$0] } }) else {
            throw PlaceFileError("a \(type.rawValue) without a name")
        }
        record.type = visit
    }
}

extension PlacesCSV {
    /// The columns of `pinsHeader` that carry a visit's fields (`VisitField.flatKey`: `name`,
    /// `height`), with their kind and index, in the header's order.
    static let flatColumns: [(key: String, kind: VisitField.Kind, index: Int)] = pinsHeader.indices.compactMap { index in
        let key = pinsHeader[index]
        let field = LocationTypeSelection.allCases.lazy.flatMap(\.visitFields).first { $0.flatKey == key }
        return field.map { (key, $0.kind, index) }
    }

    /// A row's visit columns by key (nil: empty): a text as written (its defusing apostrophe
    /// off), a number as CSV writers write it, whatever the row's type.
    static func flatValues(_ fields: [String]) throws -> [String: VisitValue] {
        var values: [String: VisitValue] = [:]
        for column in flatColumns {
            let text = fields[column.index]
            switch column.kind {
            case .text:
                let value = undefused(text)
                if !value.isEmpty { values[column.key] = .text(value) }
            case .number:
                guard !text.isEmpty else { continue }
                guard let number = decimal(text) else { throw PlaceFileError("\(column.key) '\(text)' is not a number") }
                values[column.key] = .number(number)
            }
        }
        return values
    }
}

/// Dates as place files write them.
enum PlaceDates {
    /// How to read an instant written in UTC (`Z`): as an instant whose local offset comes from
    /// the position (`utc`), or as pins writes "offset unknown" (`unknown`).
    enum Zoneless { case utc, unknown }

    /// ISO 8601: with an offset, the offset is the visit's; `Z` is per `zoneless`; without any,
    /// a wall clock at the position.
    static func parse(_ text: String, zoneless: Zoneless) -> PlaceDate? {
        // Foundation's trim only where there may be something to trim (a space, a tab, or any
        // byte of a non-ASCII character at either end): most dates have none, and it is slow.
        let edges = [text.utf8.first, text.utf8.last].compactMap { $0 }
        let written = edges.contains { $0 == 0x20 || $0 == 0x09 || $0 >= 0x80 } ? text.trimmingCharacters(in: .whitespaces) : text
        // As ISO 8601 where OGR (ogr2ogr's CSV and KML) wrote `2023/07/14 10:11:12+00`: a wall
        // clock keeps that text (the record's digest, its later reading in the zone found).
        let trimmed = DateTimeText.isoDate(ofGDAL: written)
        guard let parsed = ISO8601.parse(trimmed) else { return nil }
        guard let offset = parsed.offsetSeconds else { return .wallClock(trimmed) }
        // Offset 0 (`Z`, `+00`, `+00:00`) is how most writers say "UTC", not where the visit was.
        if offset == 0 {
            return zoneless == .utc ? .utc(parsed.date) : .unknownOffset(parsed.date)
        }
        return .withOffset(parsed.date, offset)
    }
}
