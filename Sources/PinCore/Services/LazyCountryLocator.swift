import Foundation

/// A locator that loads what it needs on first use, once, from any thread: a run that needs no
/// country (a night with nothing new, `pins delete`) never loads the outlines.
///
/// `prepare()` loads and reports a failure (a damaged data file). CreationService prepares
/// before every lookup it makes, so a caller never gets "no country" for "could not load";
/// a lookup without `prepare()` loads too (it used to stop the process).
public final class LazyCountryLocator: CountryLocating, @unchecked Sendable {
    // `loaded` is guarded by `lock`.
    private let lock = NSLock()
    private var loaded: CountryResolver?
    private let load: @Sendable () throws -> CountryResolver

    public init(load: @escaping @Sendable () throws -> CountryResolver) {
        self.load = load
    }

    public func prepare() throws {
        _ = try resolver()
    }

    /// The resolver, loaded first if needed.
    public func resolver() throws -> CountryResolver {
        lock.lock()
        defer { lock.unlock() }
        if let loaded { return loaded }
        let made = try load()
        loaded = made
        return made
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
