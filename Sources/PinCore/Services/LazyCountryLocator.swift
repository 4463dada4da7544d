import Foundation

/// A locator that loads what it needs on first use, once, from any thread: a run that needs no
/// country (a night with nothing new, `pins delete`) never loads the outlines.
///
/// `prepare()` loads and reports a failure (a damaged data file). CreationService prepares
/// before every lookup it makes, so a caller never gets "no country" for "could not load";
/// a lookup without `prepare()` loads too (it used to stop the process). A failure is kept
/// (`LoadOnce`): the file is not read again for every photo.
public final class LazyCountryLocator: CountryLocating, Sendable {
    private let loaded: LoadOnce<CountryResolver>

    public init(load: @escaping @Sendable () throws -> CountryResolver) {
        loaded = LoadOnce(load)
    }

    /// Whether a lookup (or `prepare`) loaded them, or tried to.
    public var isLoaded: Bool { loaded.made != nil }

    public func prepare() throws {
        _ = try resolver()
    }

    /// The resolver, loaded first if needed.
    public func resolver() throws -> CountryResolver {
        try loaded.get()
    }

    /// The country at `point`; nil at sea, and nil when the outlines cannot be loaded (which
    /// `prepare()` reports).
    public func countryCode(at point: Coordinate) -> String? {
        (try? resolver())?.countryCode(at: point)
    }

    public func country(at point: Coordinate) -> (code: String, inOutline: Bool?)? {
        (try? resolver())?.country(at: point)
    }
}
