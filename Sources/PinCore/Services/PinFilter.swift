import Foundation

/// The Pins tab's search and filters, for `pins list` and `pins export`: every criterion given
/// must hold. Text matching ignores case and accents ("zurich" finds "Zürich").
public struct PinFilter: Sendable {
    /// Who made a pin: the photo import, `import-places` (a run of `placesRuns`), or a person.
    public enum Source: String, Sendable, CaseIterable { case `import`, places, manual }
    public enum Sort: String, Sendable, CaseIterable { case date, title, country, distance, visits }

    public var search: String?
    /// ISO 3166-1 alpha-2 codes, upper case; a pin in any of them passes.
    public var countries: Set<String> = []
    /// Continent names as in Countries.json, compared folded; a pin in any of them passes.
    public var continents: [String] = []
    public var types: Set<LocationTypeSelection> = []
    /// Admin-1 regions, by name (folded) or ISO 3166-2 code ("JP-26"); a pin in any passes.
    public var regions: [String] = []
    /// Place names (folded, whole name); a pin in any passes.
    public var places: [String] = []
    /// Every tag given must be on the pin (folded comparison).
    public var tags: [String] = []
    /// Inclusive lower bound.
    public var since: Date?
    /// Exclusive upper bound.
    public var until: Date?
    /// Pins within `withinKm` of `near` (great-circle distance on the app's sphere).
    public var near: Coordinate?
    public var withinKm: Double?
    public var source: Source?
    /// The runs that were `import-places` runs (their pins are `.places`), for `source`.
    public var placesRuns: Set<Int64> = []
    /// true: only the places someone wants to go (`Location.wanted`); false: only visits.
    public var wanted: Bool?
    /// Only the pins this import run created.
    public var runID: Int64?
    /// `--trip ID`: the trip's first day; the command turns it into the trip's pins (`ids`).
    public var trip: String?
    /// Only these pins.
    public var ids: Set<UUID>?
    public var sort: Sort = .date
    public var descending = false
    public var limit: Int?

    public init() {}

    /// Case- and accent-insensitive form used for every text comparison.
    public static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
    }

    /// Kilometres between two coordinates on the app's sphere (haversine: exact at short range).
    public static func kilometres(_ a: Coordinate, _ b: Coordinate) -> Double {
        AngularDistance.haversineRadians(a, b) * AngularDistance.earthRadiusKm
    }

    /// The pins that pass, sorted and limited. `continentOf` maps a country code to its continent.
    public func apply(to pins: [Location], continentOf: (String) -> String?) -> [Location] {
        var kept = withoutActuallyEscaping(continentOf) { pins.filter(matcher(continentOf: $0)) }
        kept = sorted(kept)
        if let limit, kept.count > limit { kept = Array(kept.prefix(limit)) }
        return kept
    }

    /// Whether a pin passes, without the sort and the limit: for a caller that keeps the pins
    /// sorted already (pins serve pages through them without copying them).
    public func matcher(continentOf: @escaping (String) -> String?) -> (Location) -> Bool {
        let accepts = foldedMatcher(continentOf: continentOf)
        return { accepts($0, nil) }
    }

    /// Whether `matcher` passes every pin: no criterion it checks is given (a page of the
    /// list is then a slice of it).
    public var acceptsEveryPin: Bool {
        (search.map(Self.fold)?.isEmpty ?? true) && countries.isEmpty && continents.isEmpty && types.isEmpty && regions.isEmpty
            && places.isEmpty && tags.isEmpty && since == nil && until == nil && (near == nil || withinKm == nil)
            && source == nil && wanted == nil && runID == nil && ids == nil
    }

    /// `matcher`, for a caller that keeps each pin's text folded (`FoldedPinText`): the same
    /// answers, without folding the pin's text at every search.
    /// Both borrowed: a pins serve list of 100,000 copied each pin (its strings retained and
    /// released) for every search, most of a filtered page's CPU.
    public func foldedMatcher(continentOf: @escaping (String) -> String?) -> (borrowing Location, borrowing FoldedPinText?) -> Bool {
        let needle = search.map(Self.fold).flatMap { $0.isEmpty ? nil : FoldedPinText.Needle($0) }
        let continentSet = Set(continents.map(Self.fold))
        let tagSet = tags.map(Self.fold)
        let regionSet = Set(regions.map(Self.fold)), placeSet = Set(places.map(Self.fold))
        return { [self] pin, folded in
            if let runID, pin.runID != runID { return false }
            if let ids, !ids.contains(pin.id) { return false }
            if !countries.isEmpty, !(pin.countryID.map(countries.contains) ?? false) { return false }
            if !continentSet.isEmpty {
                guard let code = pin.countryID, let continent = continentOf(code), continentSet.contains(Self.fold(continent)) else { return false }
            }
            if !types.isEmpty, !types.contains(pin.type.selection) { return false }
            if !regionSet.isEmpty {
                let names = [pin.region, pin.regionCode].compactMap { $0.map(Self.fold) }
                if !names.contains(where: regionSet.contains) { return false }
            }
            if !placeSet.isEmpty, !(pin.place.map { placeSet.contains(Self.fold($0)) } ?? false) { return false }
            if !tagSet.isEmpty {
                if let folded {
                    if !tagSet.allSatisfy(folded.tags.contains) { return false }
                } else {
                    let pinTags = Set((pin.tags ?? []).map(Self.fold))
                    if !tagSet.allSatisfy(pinTags.contains) { return false }
                }
            }
            if let since, pin.date < since { return false }
            if let until, pin.date >= until { return false }
            if let near, let withinKm, Self.kilometres(near, pin.coordinate) > withinKm { return false }
            if let source, self.source(of: pin) != source { return false }
            if let wanted, pin.wanted != wanted { return false }
            if let needle {
                if let folded {
                    if !folded.contains(needle) { return false }
                } else if !Self.searchableText(pin).contains(where: { Self.fold($0).contains(needle.text) }) {
                    return false
                }
            }
            return true
        }
    }

    /// Made by an `import-places` run (whatever it read: a pin of pins' own export keeps its
    /// photos), else by the photo import when it has photos, else by hand.
    public func source(of pin: Location) -> Source {
        if let run = pin.runID, placesRuns.contains(run) { return .places }
        return pin.photoIDs.isEmpty ? .manual : .import
    }

    /// Title, place, region, note, tags, and the shared object's name: what the search looks in.
    static func searchableText(_ pin: Location) -> [String] {
        var fields = [pin.title]
        if let place = pin.place { fields.append(place) }
        if let region = pin.region { fields.append(region) }
        if let note = pin.note { fields.append(note) }
        fields += pin.tags ?? []
        if let name = pin.type.sharedName { fields.append(name) }
        return fields
    }

    private func sorted(_ pins: [Location]) -> [Location] {
        // Ties fall back to date then id, so the order is the same every time.
        func tieBreak(_ a: Location, _ b: Location) -> Bool { a.date != b.date ? a.date < b.date : a.id.uuidString < b.id.uuidString }
        let ascending: [Location]
        switch sort {
        case .date:
            ascending = pins.sorted(by: tieBreak)
        case .title:
            let keyed = pins.map { (Self.fold($0.title), $0) }
            ascending = keyed.sorted { $0.0 != $1.0 ? $0.0 < $1.0 : tieBreak($0.1, $1.1) }.map(\.1)
        case .country:
            // Pins at sea last.
            ascending = pins.sorted { a, b in
                let ca = a.countryID ?? "\u{10FFFF}", cb = b.countryID ?? "\u{10FFFF}"
                return ca != cb ? ca < cb : tieBreak(a, b)
            }
        case .visits:
            // Most visited first (what the key is asked for), then by photos, then date and id.
            ascending = pins.sorted { a, b in
                if a.visitCount != b.visitCount { return a.visitCount > b.visitCount }
                if a.photoCount != b.photoCount { return a.photoCount > b.photoCount }
                return tieBreak(a, b)
            }
        case .distance:
            guard let near else { return pins.sorted(by: tieBreak) }
            let keyed = pins.map { (Self.kilometres(near, $0.coordinate), $0) }
            ascending = keyed.sorted { $0.0 != $1.0 ? $0.0 < $1.0 : tieBreak($0.1, $1.1) }.map(\.1)
        }
        return descending ? ascending.reversed() : ascending
    }
}

/// A pin's text as the filters compare it (`PinFilter.fold`), folded once: what a reader that
/// keeps the pins (`pins serve`) keeps beside each, so a search folds only its needle. The
/// answers are `PinFilter.matcher`'s (PinFilterTests compares them).
public struct FoldedPinText: Sendable {
    /// The folded fields of `PinFilter.searchableText` joined by NUL, when every one is ASCII
    /// without NUL (folding leaves most Latin text so): a search is then a byte search.
    private let joined: String?
    /// Otherwise the folded fields.
    private let fields: [String]
    /// The tags, folded.
    public let tags: [String]

    public init(_ pin: Location) {
        let folded = PinFilter.searchableText(pin).map(PinFilter.fold)
        if folded.allSatisfy({ $0.utf8.allSatisfy { $0 != 0 && $0 < 0x80 } }) {
            joined = folded.joined(separator: "\u{0}")
            fields = []
        } else {
            joined = nil
            fields = folded
        }
        let tags = (pin.tags ?? []).map(PinFilter.fold)
        // Most tags are folded already ("hike", "family"): then the pin's own array is kept, not
        // an equal copy (48 bytes a pin, 4.8 MB at 100,000 pins in pins serve).
        self.tags = tags == pin.tags ? pin.tags ?? tags : tags
    }

    /// A search's folded text (not empty), and its bytes when it is ASCII without NUL.
    struct Needle {
        let text: String
        let ascii: [UInt8]?

        init(_ text: String) {
            self.text = text
            ascii = text.utf8.allSatisfy { $0 != 0 && $0 < 0x80 } ? Array(text.utf8) : nil
        }
    }

    /// Whether a field holds `needle`: `fold(field).contains(needle)` for some field, as
    /// `PinFilter.matcher` asks. Between ASCII texts that is a byte search (no two ASCII
    /// texts are canonically equivalent but equal ones); else it is asked field by field.
    func contains(_ needle: Needle) -> Bool {
        guard let joined else { return fields.contains { $0.contains(needle.text) } }
        if let bytes = needle.ascii {
            var text = joined
            let found = text.withUTF8 { haystack in
                bytes.withUnsafeBufferPointer { Self.find($0, in: haystack) }
            }
            return found
        }
        return joined.split(separator: "\u{0}", omittingEmptySubsequences: false).contains { $0.contains(needle.text) }
    }

    /// Whether `needle` (not empty) occurs in `haystack`, byte for byte.
    private static func find(_ needle: UnsafeBufferPointer<UInt8>, in haystack: UnsafeBufferPointer<UInt8>) -> Bool {
        let count = needle.count
        guard count > 0, count <= haystack.count else { return false }
        let first = needle[0]
        var start = 0
        while start <= haystack.count - count {
            if haystack[start] == first {
                var matched = 1
                while matched < count, haystack[start + matched] == needle[matched] { matched += 1 }
                if matched == count { return true }
            }
            start += 1
        }
        return false
    }
}
