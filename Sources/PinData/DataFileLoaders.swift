import Foundation
import PinCore

/// Each data file loaded as the code that uses it needs it; a damaged file is an error naming
/// it and the script that rebuilds it.
extension DataFiles {
    /// The country index (Countries.bin, read where it lies in its private copy: the outlines'
    /// grid built by scripts/build-countries; milliseconds, where parsing Countries.geojson and
    /// indexing it took about 0.2 s).
    public func countryResolver() throws -> CountryResolver {
        let file = try map("Countries.bin")
        do {
            return try CountryIndexFile.resolver(mapped: file.bytes, owner: file)
        } catch let error as CountryIndexError {
            throw DataFileError("\(directory)/\(error.description); reinstall pins or rebuild it with scripts/build-countries")
        }
    }

    /// The gazetteer alone (Places.bin, read where it lies in its private copy); `onLand` tells
    /// land from sea.
    public func gazetteer(onLand: (@Sendable (Coordinate, String) -> Bool)?) throws -> PlaceResolver {
        do {
            let file = try map("Places.bin")
            return try PlaceResolver(mapped: file.bytes, owner: file, onLand: onLand)
        } catch let error as PlaceDataError {
            throw DataFileError("\(directory)/\(error.description); reinstall pins or rebuild it with scripts/build-places")
        }
    }

    /// The admin-1 outlines (Regions.bin), read where they lie in its copy in memory
    /// (`MappedFile`), which they keep: every byte checked now, a country's cells and points
    /// decoded at its first lookup.
    public func regionOutlines() throws -> RegionOutlines {
        do {
            let file = try map("Regions.bin")
            return try RegionOutlines(mapped: file.bytes, owner: file)
        } catch let error as RegionDataError {
            throw DataFileError("\(directory)/\(error.description); reinstall pins or rebuild it with scripts/build-regions")
        }
    }

    /// The places pins names: the gazetteer with the admin-1 outlines deciding the region;
    /// `countries` tells land from sea.
    public func places(countries: CountryResolver) throws -> OutlinedRegionPlaces {
        try places(onLand: Self.onLand(countries))
    }

    /// The places, `onLand` telling land from sea.
    public func places(onLand: @escaping @Sendable (Coordinate, String) -> Bool) throws -> OutlinedRegionPlaces {
        let gazetteer = try self.gazetteer(onLand: onLand)
        let outlines = try regionOutlines()
        do {
            return try OutlinedRegionPlaces(places: gazetteer, outlines: outlines)
        } catch let error as RegionDataError {
            throw DataFileError("\(directory)/\(error.description); reinstall pins or rebuild it with scripts/build-regions")
        }
    }

    /// Whether `point` lies inside the outline of the country `code`.
    public static func onLand(_ countries: CountryResolver) -> @Sendable (Coordinate, String) -> Bool {
        { point, code in countries.containingCountry(point).map { countries.codes[$0] } == code }
    }

    /// `onLand` of the countries `locator` loads at the first point asked about, not before: the
    /// map page's place names and region counts need none (pins serve kept Countries.bin, 18 MB,
    /// for them). Countries that cannot be loaded tell nothing: every point is land, as for
    /// places without outlines (a point's country came from the same locator, so none is asked).
    public static func onLand(_ locator: LazyCountryLocator) -> @Sendable (Coordinate, String) -> Bool {
        { point, code in
            guard let countries = try? locator.resolver() else { return true }
            return countries.containingCountry(point).map { countries.codes[$0] } == code
        }
    }

    /// The base map's water at city zoom (Water.bin: GSHHG coasts, lakes and rivers in 1-degree
    /// tiles, scripts/build-water): the map page carries its tiles where the pins are, and
    /// `pins serve` those of a view.
    public func waterMap() throws -> WaterMap {
        do {
            return try WaterMap(bytes: try read("Water.bin"))
        } catch let error as WaterMap.DataError {
            throw DataFileError("\(directory)/\(error.description); reinstall pins or rebuild it with scripts/build-water")
        }
    }

    /// Countries.json: names and continents.
    public func catalog() throws -> CountryCatalog {
        let data = Data(try read("Countries.json"))
        do {
            return try CountryCatalog(json: data)
        } catch {
            throw DataFileError("Countries.json is damaged: \(error)")
        }
    }

    /// WorldMap.json, the map page's base map, as bytes (PinReport's `WorldMap` parses it).
    public func worldMapJSON() throws -> [UInt8] { try read("WorldMap.json") }

    /// The outlines of the countries `codes` from Countries.geojson, each as the file spells it
    /// (compact, as scripts/build-countries writes it, so an export is the same bytes at every
    /// run), read by the resolver's own parser; a damaged file is named with what to do.
    public func countryOutlineJSON(of codes: Set<String>) throws -> [(code: String, geometry: String)] {
        do {
            return try CountryGeoJSONParser.geometries(try read("Countries.geojson"), of: codes)
                .map { ($0.code, String(decoding: $0.geometry, as: UTF8.self)) }
        } catch let error as GeoJSONError {
            throw DataFileError("\(error); reinstall pins or rebuild it with scripts/build-countries")
        }
    }

    /// The time-zone outlines (TimeZones.bin); with a latitude, only the zones reaching it are
    /// indexed, and only points at that latitude may be asked.
    func timeZoneResolver(onlyAtLatitude latitude: Double? = nil) throws -> TimeZoneResolver {
        let data = try read("TimeZones.bin")
        return try latitude.map { try TimeZoneResolver(data: data, onlyAtLatitude: $0) } ?? TimeZoneResolver(data: data)
    }
}

/// The zone outlines, loaded and indexed on first use, once, from any thread: only a photo with
/// a position and a time without offset needs them. When the files cannot be found or read,
/// every such photo keeps `--timezone` and says why.
public final class LazyTimeZones: TimeZoneLocating, Sendable {
    private let loaded: LoadOnce<TimeZoneResolver>
    /// Set for one position (`pins add`, `pins edit`): only the zones near its latitude are
    /// indexed, and only points at that latitude may be asked.
    private let latitude: Double?

    public init(onlyAtLatitude latitude: Double? = nil, data: @escaping @Sendable () throws -> DataFiles = { try DataFiles.installed() }) {
        self.latitude = latitude
        loaded = LoadOnce {
            do {
                return try data().timeZoneResolver(onlyAtLatitude: latitude)
            } catch {
                var reason = "\(error)"
                if reason.hasSuffix(".") { reason.removeLast() }
                throw TimeZoneUnavailable("no time-zone outlines: \(reason)")
            }
        }
    }

    public func timeZone(at point: Coordinate) throws -> TimeZone {
        precondition(latitude == nil || latitude == point.latitude, "a zone index made for one latitude")
        return try loaded.get().timeZone(at: point)
    }
}
