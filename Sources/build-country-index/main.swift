// build-country-index: writes Countries.bin, the country index pins loads at start, from the
// outlines in Countries.geojson, by CountryResolver's own index code (scripts/build-countries
// runs it; the format is in Sources/PinCore/Geo/CountryIndexFile.swift).
//   build-country-index GEOJSON OUT
import Foundation
import PinCore

let args = CommandLine.arguments
guard args.count == 3 else {
    FileHandle.standardError.write(Data("usage: build-country-index Countries.geojson Countries.bin\n".utf8))
    exit(64)
}
do {
    guard let geojson = FileManager.default.contents(atPath: args[1]) else { throw CocoaError(.fileReadNoSuchFile) }
    let bytes = try CountryIndexFile.bytes(polygons: try CountryGeoJSONParser.parse([UInt8](geojson)))
    // The index must read back (every check the loader makes) before it replaces the old one.
    _ = try CountryIndexFile.resolver(bytes)
    let temporary = args[2] + ".tmp"
    try Data(bytes).write(to: URL(fileURLWithPath: temporary))
    guard rename(temporary, args[2]) == 0 else { throw CocoaError(.fileWriteUnknown) }
    print("\(args[2]): \(bytes.count) bytes")
} catch {
    FileHandle.standardError.write(Data("build-country-index: \(args[1]) -> \(args[2]): \(error)\n".utf8))
    exit(1)
}
