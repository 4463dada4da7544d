/// Anything that turns a coordinate into an ISO alpha-2 code (CountryResolver; a stub in tests).
public protocol CountryLocating: Sendable {
    func countryCode(at point: Coordinate) -> String?
}

extension CountryResolver: CountryLocating {}
