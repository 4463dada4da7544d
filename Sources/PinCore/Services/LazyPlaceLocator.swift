import Foundation

/// A place locator that loads the gazetteer on first use, once, from any thread: a run that
/// names no place (a night with nothing new, `pins list`) never reads Places.bin.
///
/// A failure to load (a missing or damaged file) is kept: `prepare()` throws it, naming the
/// file, every time; `match` answers `.none` meanwhile instead of reading the file again for
/// every photo.
public final class LazyPlaceLocator: PlaceLocating, Sendable {
    private let loaded: LoadOnce<any PlaceLocating>
    private let load: @Sendable () throws -> any PlaceLocating

    public init(load: @escaping @Sendable () throws -> any PlaceLocating) {
        loaded = LoadOnce(load)
        self.load = load
    }

    /// The places as loaded for the lookups, else loaded now for the caller alone and let go
    /// with its last reference: for what needs them once in a while (the map page's place
    /// names, regions and borders, the statistics' region counts), so that pins serve, which
    /// names no place until a pin is added or moved, does not keep Places.bin and Regions.bin
    /// (14 MB) and the outlines a page decoded for a page made now and then. A file that cannot
    /// be loaded throws, as `prepare()` does.
    public func loadedOrOnce() throws -> any PlaceLocating {
        if let made = loaded.made { return try made.get() }
        return try load()
    }

    /// The resolver, loaded first if needed.
    func resolver() throws -> any PlaceLocating {
        try loaded.get()
    }

    /// Whether a lookup (or `prepare`) loaded them, or tried to.
    public var isLoaded: Bool { loaded.made != nil }

    public func prepare() throws {
        _ = try resolver()
    }

    public func match(at point: Coordinate, countryCode: String?) -> PlaceMatch {
        guard countryCode != nil, let resolver = try? resolver() else { return .none }
        return resolver.match(at: point, countryCode: countryCode)
    }

    public func match(at point: Coordinate, countryCode: String?, inOutline: Bool?) -> PlaceMatch {
        guard countryCode != nil, let resolver = try? resolver() else { return .none }
        return resolver.match(at: point, countryCode: countryCode, inOutline: inOutline)
    }

    public func regions(of countryCode: String) -> [Region] {
        (try? resolver())?.regions(of: countryCode) ?? []
    }

    public func largestPlaces(of countryCode: String, limit: Int) -> [Place] {
        (try? resolver())?.largestPlaces(of: countryCode, limit: limit) ?? []
    }
}
