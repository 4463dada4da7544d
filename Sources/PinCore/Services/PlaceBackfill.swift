import Foundation

/// Gives the pins stored before pins knew places (schema 6 marks them `placesResolved == false`)
/// their place and region, and the new title where the title is still the one pins made.
///
/// Which titles pins made: before places, a photo pin was titled "<country name>, <local date>"
/// ("France, 2023-07-14"; "At sea, 2023-07-14"). A title is taken as pins' own, and replaced by
/// "Paris, France", only when all of these hold:
/// - the pin came from photos (`photoIDs` not empty): pins made by hand kept the title they were
///   given, or the country's name, which a person may have typed just as well;
/// - it was never edited (`editedAt` is nil): an edit may have been of the title, and the old
///   database does not say which field changed;
/// - the title is exactly the pattern, with the name of the pin's own country (as the catalog
///   names it, or its code) or "At sea" when it has none, and a date that is the pin's date in
///   some offset from UTC (−12 h to +14 h: the offset the import used is not always stored).
/// Every other title is left as it is, byte for byte.
public struct PlaceBackfill: Sendable {
    let creation: CreationService

    public init(creation: CreationService) { self.creation = creation }

    public struct Result: Sendable, Equatable {
        var resolved = 0
        var retitled = 0
        init(resolved: Int = 0, retitled: Int = 0) {
            self.resolved = resolved
            self.retitled = retitled
        }
    }

    /// Resolves every pin that needs it, in the caller's transaction. The gazetteer must be
    /// there (`places.prepare()` first): a pin resolved is never resolved again.
    @discardableResult
    public func run(in repos: Repositories) throws -> Result {
        var result = Result()
        for var pin in try repos.locations.fetchAll(countryID: nil) where !pin.placesResolved {
            let place = pin.countryID == nil ? PinPlace.none
                : PinPlace(creation.places.match(at: pin.coordinate, countryCode: pin.countryID))
            if isTitleMadeByPins(pin) {
                let title = creation.title(country: pin.countryID, place: place)
                if title != pin.title { result.retitled += 1 }
                pin.title = title
            }
            pin.placeFields = place
            pin.placesResolved = true
            try repos.locations.update(pin)
            result.resolved += 1
        }
        return result
    }

    /// Whether `pin.title` is the one the photo import gave it before places (see the type's
    /// documentation).
    func isTitleMadeByPins(_ pin: Location) -> Bool {
        guard !pin.photoIDs.isEmpty, pin.editedAt == nil else { return false }
        let names: [String]
        if let code = pin.countryID {
            names = [creation.catalog[code]?.name, code].compactMap { $0 }
        } else {
            names = ["At sea"]
        }
        guard let name = names.first(where: { pin.title.hasPrefix($0 + ", ") }) else { return false }
        let day = pin.title.dropFirst(name.count + 2)
        guard day.count == 10 else { return false }
        var offsets = [-12 * 3600, 0, 14 * 3600]
        if let own = pin.utcOffsetSeconds { offsets.insert(own, at: 0) }
        return offsets.contains { ISO8601.format(pin.date, offsetSeconds: $0).prefix(10) == day }
    }
}
