// Fuzz target: the import rules (ImportRules), no SQLite. The input is read as records of
// 25 bytes (after 8 bytes of options, below): a tag byte, then three little-endian doubles (instant, latitude, longitude) taken
// raw, so NaN, infinities, subnormals and out-of-range degrees all reach the rules. Tag bit 0:
// an existing pin instead of a photo; bit 1: no coordinate; bit 2: an earlier run's photo.
import Foundation
import PinCore


@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRules(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let raw = UnsafeRawBufferPointer(start: data, count: size)
    func double(_ at: Int) -> Double { Double(bitPattern: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self)) }
    var pins: [ImportRules.ExistingPin] = []
    var earlier: [AcceptedPhoto] = []
    var candidates: [ImportRules.Candidate] = []
    var offset = 0
    // The first 8 bytes, when present, choose the interval and the distance within the ranges
    // `pins import` accepts (--min-interval 0...366 days, --min-distance-km 0.001...10,000,
    // the distance on a log scale so the tiny thresholds are tried as often as the large ones).
    var minInterval = 60.0, threshold = AngularDistance.appThreshold
    if size >= 8 {
        let a = raw.loadUnaligned(fromByteOffset: 0, as: UInt32.self)
        let b = raw.loadUnaligned(fromByteOffset: 4, as: UInt32.self)
        minInterval = Double(a) / Double(UInt32.max) * 86_400 * 366
        let km = 0.001 * pow(10, 7 * Double(b) / Double(UInt32.max))
        threshold = AngularDistance.angle(forKilometres: km)
        offset = 8
    }
    while offset + 25 <= size {
        let tag = raw[offset]
        let instant = double(offset + 1)
        let coordinate = Coordinate(latitude: double(offset + 9), longitude: double(offset + 17))
        let path = RawPath(bytes: Array("/p/\(candidates.count).jpg".utf8))
        if tag & 1 != 0 {
            pins.append(.init(title: "pin \(pins.count)", coordinate: coordinate))
        } else if tag & 4 != 0 {
            earlier.append(AcceptedPhoto(instant: instant, path: path))
        } else {
            candidates.append(.init(index: candidates.count, instant: instant, path: path,
                                    coordinate: tag & 2 != 0 ? nil : coordinate))
        }
        offset += 25
    }
    var filters = ImportRules(minInterval: minInterval, threshold: threshold, existingPins: pins,
                                earlierAccepted: earlier)
    for candidate in ImportRules.ordered(candidates) {
        _ = filters.decide(candidate, label: candidate.path.description)
    }
    return 0
}
