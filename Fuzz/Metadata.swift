// Fuzz target: any bytes as a whole file, through the container readers and libexif.
@testable import PinMetadata

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMetadata(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    _ = MetadataReader.sniff(bytes)
    _ = try? MetadataReader.read(bytes: bytes, modificationTime: nil, options: FuzzOptions.utc)
    return 0
}
