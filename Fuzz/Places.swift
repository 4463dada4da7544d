// Fuzz target: every place-file reader (issue 26). The kind is found from the bytes as
// `import-places` finds it; the first byte also picks one reader to force (so a CSV reader sees
// JSON and a KMZ reader sees text), and the rest of the bytes are read as that kind too.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPlaces(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var records = 0
    func read(_ input: [UInt8], as kind: PlaceFileKind) {
        do {
            try PlaceFiles.read(bytes: input, kind: kind) { event in
                records += 1
                if case let .record(record) = event {
                    _ = record.key(kind: kind)
                    _ = record.digest
                }
            }
        } catch {}
    }
    if let kind = PlaceFiles.kind(ofHead: Array(bytes.prefix(PlaceFiles.sniffBytes))) { read(bytes, as: kind) }
    if let first = bytes.first {
        let kinds = PlaceFileKind.allCases
        read(Array(bytes.dropFirst()), as: kinds[Int(first) % kinds.count])
    }
    return records < 0 ? 1 : 0
}
