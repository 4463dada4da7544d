// Fuzz target: any bytes as an XMP packet (or sidecar file), read, and edited as a sidecar
// (the place's properties inserted before its </rdf:RDF>, at the parser's offset).
import PinCore
@testable import PinMetadata

private let place = SidecarPlace(coordinate: Coordinate(latitude: 48.8566, longitude: 2.3522), city: "Paris", country: "France", countryCode: "FR")

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzXMP(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    _ = XMP.parse(bytes, options: FuzzOptions.utc)
    if let edit = try? XMPSidecarEdit.edit(bytes, place), let written = edit.bytes {
        // What the editor writes is still XMP to the reader.
        guard XMP.parse(written, options: FuzzOptions.utc) != nil else { fatalError("an edited sidecar is no XMP") }
    }
    if let text = String(validating: bytes, as: UTF8.self) {
        _ = XMP.coordinate(text, positive: "N", negative: "S")
    }
    return 0
}
