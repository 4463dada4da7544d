// Fuzz target: any bytes as a Google Takeout JSON sidecar.
@testable import PinMetadata

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTakeout(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let values = TakeoutSidecar.parse(bytes), let title = values.title {
        _ = Sidecars.titleMatches(title, mediaName: Array("IMG_0001.JPG".utf8))
    }
    return 0
}
