// Fuzz target: any bytes as an XMP packet (or sidecar file).
@testable import PinMetadata

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzXMP(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    _ = XMP.parse(bytes, options: FuzzOptions.utc)
    if let text = String(validating: bytes, as: UTF8.self) {
        _ = XMP.coordinate(text, positive: "N", negative: "S")
    }
    return 0
}
