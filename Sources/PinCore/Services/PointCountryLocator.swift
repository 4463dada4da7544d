import Foundation

/// The country of one position (`pins add`, `pins edit --lat --lon`) without indexing the whole
/// world: a `CountryResolver` built from the rings that reach the latitudes deciding that
/// position gives the same answer as the full one, in a fraction of the time (the build of the
/// full index is most of a `pins add`). Any position outside those latitudes is asked of
/// `fallback` (all the outlines).
///
/// Why the answer is the same: at a point the resolver reads (1) its cell's centre country,
/// found by sweeping the centre line of the cell's grid row, so only edges crossing that line;
/// (2) the edges in its cell; (3) for the coastal rule, the edges in the cells within
/// `coastalKilometres` of it, and whether its cell is near such edges. Every one of those edges
/// lies within `CountryResolver.decidingLatitudes(around:)`, and whole rings are kept.
public final class PointCountryLocator: CountryLocating, @unchecked Sendable {
    /// Immutable after init.
    private let near: CountryResolver
    private let band: ClosedRange<Double>
    private let fallback: any CountryLocating

    /// `polygons`: all the outlines; `latitude`: that of the position to be asked.
    public init(polygons: CountryPolygons, latitude: Double, fallback: any CountryLocating) {
        near = CountryResolver(polygons: polygons.reaching(latitudes: CountryResolver.decidingLatitudes(around: latitude)))
        band = (latitude - 1e-9)...(latitude + 1e-9)
        self.fallback = fallback
    }

    public func countryCode(at point: Coordinate) -> String? {
        band.contains(point.latitude) ? near.countryCode(at: point) : fallback.countryCode(at: point)
    }

    public func prepare() throws {}
}
