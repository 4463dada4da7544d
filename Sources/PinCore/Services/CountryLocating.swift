/// Anything that turns a coordinate into an ISO alpha-2 code (CountryResolver; a stub in tests).
public protocol CountryLocating: Sendable {
    func countryCode(at point: Coordinate) -> String?
    /// Loads what lookups need, reporting a failure (a damaged data file) before the first
    /// lookup instead of answering "no country". The importer calls it only when some photo
    /// will need a country, so a night with nothing new never loads the outlines.
    func prepare() throws
}

extension CountryLocating {
    public func prepare() throws {}
}

extension CountryResolver: CountryLocating {}
