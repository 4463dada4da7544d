import Foundation
@testable import PinCore
@testable import PinData
import XCTest

/// What the test targets share: where the repository is, its fixtures (a missing one fails the
/// test that wanted it, never reads as nothing), and the one check of the Eiffel Tower
/// position most format fixtures carry.
public enum Repository {
    /// The checkout's root, found from this file's own path (Tests/TestSupport/TestSupport.swift).
    public static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `relative` below the root (e.g. "Fixtures/formats/jpeg/eiffel.jpg").
    public static func url(_ relative: String) -> URL { root.appendingPathComponent(relative) }

    /// The bytes of the file at `relative`; throws (failing the test) when it is missing.
    public static func bytes(_ relative: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: url(relative)))
    }

    /// The names in the folder at `relative`, sorted; a missing or empty folder fails the test
    /// (a loop over its files would otherwise pass on nothing).
    public static func names(in relative: String, file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        let names = try FileManager.default.contentsOfDirectory(atPath: url(relative).path).sorted()
        XCTAssertFalse(names.isEmpty, "\(relative) is empty", file: file, line: line)
        return names
    }
}

/// The position exiftool reads from every Eiffel Tower fixture: 48°51'30" N (48.858330555555),
/// 2°17'40.2" E (2.2945).
public let eiffelTower = Coordinate(latitude: 48.858330555555, longitude: 2.2945)

/// `metadata` holds the Eiffel Tower's position (latitude and longitude, to 1e-9 degrees), read
/// as a `format` file, and, where given, from `positionSource`, with its time from `timeSource`
/// and exactly `warnings`.
public func assertEiffel(_ metadata: PhotoMetadata?, format: String? = nil, positionSource: PositionSource? = nil,
                         timeSource: TimeSource? = nil, warnings: [String]? = nil,
                         file: StaticString = #filePath, line: UInt = #line) throws {
    let m = try XCTUnwrap(metadata, file: file, line: line)
    let c = try XCTUnwrap(m.coordinate, "no position; warnings: \(m.warnings)", file: file, line: line)
    XCTAssertEqual(c.latitude, eiffelTower.latitude, accuracy: 1e-9, file: file, line: line)
    XCTAssertEqual(c.longitude, eiffelTower.longitude, accuracy: 1e-9, file: file, line: line)
    if let format { XCTAssertEqual(m.format.rawValue, format, file: file, line: line) }
    if let positionSource { XCTAssertEqual(m.positionSource, positionSource, file: file, line: line) }
    if let timeSource { XCTAssertEqual(m.timeSource, timeSource, file: file, line: line) }
    if let warnings { XCTAssertEqual(m.warnings, warnings, file: file, line: line) }
}

/// The shipped data files (Resources/), loaded through pins' own loader (DataFiles) once per
/// test process: the country index, the gazetteer, the outlines and the zones every geography
/// test asks.
public enum ShippedData {
    public static let files = DataFiles(directory: Repository.url("Resources").path)

    // Each loaded once, on first use (a static let is initialised once, from any thread).
    private static let countryIndex = Result { try files.countryResolver() }
    private static let gazetteerFile = Result { try files.gazetteer(onLand: DataFiles.onLand(try countries())) }
    private static let outlinedPlaces = Result {
        try OutlinedRegionPlaces(places: try gazetteer(), outlines: try files.regionOutlines())
    }
    private static let zones = Result { try files.timeZoneResolver() }

    /// Countries.bin, as pins maps it.
    public static func countries() throws -> CountryResolver { try countryIndex.get() }

    /// Places.bin alone, telling land from sea by the country outlines.
    public static func gazetteer() throws -> PlaceResolver { try gazetteerFile.get() }

    /// Places.bin with the admin-1 outlines of Regions.bin: the places pins names.
    public static func places() throws -> OutlinedRegionPlaces { try outlinedPlaces.get() }

    /// TimeZones.bin, every zone indexed.
    public static func timeZones() throws -> TimeZoneResolver { try zones.get() }
}

/// A seeded random source (SplitMix64) for tests that draw many cases: the same cases at every
/// run, so a failure can be run again (SystemRandomNumberGenerator made them differ per run).
public struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
