/// Anything that turns a coordinate into an ISO alpha-2 code (CountryResolver; a stub in tests).
public protocol CountryLocating: Sendable {
    func countryCode(at point: Coordinate) -> String?
    /// The code, and whether the country's outline holds the point (false: the country came
    /// from the coastal rule, the point is at sea; nil: not known). The place resolver needs to
    /// know it and asks the outlines again where it is not told.
    func country(at point: Coordinate) -> (code: String, inOutline: Bool?)?
    /// Loads what lookups need, reporting a failure (a damaged data file) before the first
    /// lookup instead of answering "no country". The importer calls it only when some photo
    /// will need a country, so a night with nothing new never loads the outlines.
    func prepare() throws
}

extension CountryLocating {
    public func prepare() throws {}
    func country(at point: Coordinate) -> (code: String, inOutline: Bool?)? {
        countryCode(at: point).map { ($0, nil) }
    }
}

extension CountryResolver: CountryLocating {
    public func country(at point: Coordinate) -> (code: String, inOutline: Bool?)? {
        countryIndexAndOutline(at: point).map { (codes[$0.index], $0.inOutline) }
    }
}
