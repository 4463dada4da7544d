// Fuzz target: sidecar name matching. The input is split at NUL bytes: the first part is the
// media file's name, the others are names found next to it.
@testable import PinMetadata

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSidecars(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let parts = UnsafeBufferPointer(start: data, count: size).split(separator: 0, omittingEmptySubsequences: false)
        .map(Array.init)
    guard let media = parts.first else { return 0 }
    let siblings = Array(parts.dropFirst())
    _ = Sidecars.match(mediaName: media, siblings: siblings)
    for name in siblings {
        _ = Sidecars.isSidecarName(name)
        _ = Sidecars.classify(sidecarName: name, mediaName: media)
        if let title = String(validating: name, as: UTF8.self) {
            _ = Sidecars.titleMatches(title, mediaName: media)
        }
    }
    return 0
}
