import Foundation

/// The byte layout of the rules' fuzz target (Fuzz/Rules.swift), in one place so that the
/// target and its regression test (RulesFuzzRegressionTests) read an input the same way.
///
/// 8 bytes of options when present (two little-endian UInt32s: the interval, 0...366 days, and
/// the distance, 0.001...10,000 km on a log scale, as `pins import` accepts them), then records
/// of 25 bytes: a tag byte and three little-endian doubles (instant, latitude, longitude), taken
/// raw so that NaN, infinities, subnormals and out-of-range degrees all reach the rules. Tag bit
/// 0: an existing pin instead of a photo; bit 1: no coordinate; bit 2: an earlier run's photo.
enum RulesFuzzInput {
    static let recordSize = 25

    /// Every candidate of `raw`, decided in capture-time order.
    static func decide(_ raw: UnsafeRawBufferPointer) -> [ImportRules.Verdict] {
        func double(_ at: Int) -> Double { Double(bitPattern: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self))) }
        var minInterval = CaptureInterval.appMinimum, threshold = AngularDistance.appThreshold, offset = 0
        if raw.count >= 8 {
            let a = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 0, as: UInt32.self))
            let b = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
            minInterval = Double(a) / Double(UInt32.max) * 86_400 * 366
            threshold = AngularDistance.angle(forKilometres: 0.001 * pow(10, 7 * Double(b) / Double(UInt32.max)))
            offset = 8
        }
        var pins: [ImportRules.ExistingPin] = [], earlier: [AcceptedPhoto] = [], candidates: [ImportRules.Candidate] = []
        while offset + recordSize <= raw.count {
            let tag = raw[offset]
            let coordinate = Coordinate(latitude: double(offset + 9), longitude: double(offset + 17))
            let path = RawPath(bytes: Array("/p/\(candidates.count).jpg".utf8))
            if tag & 1 != 0 {
                pins.append(.init(title: "pin \(pins.count)", coordinate: coordinate))
            } else if tag & 4 != 0 {
                earlier.append(AcceptedPhoto(instant: double(offset + 1), path: path))
            } else {
                candidates.append(.init(index: candidates.count, instant: double(offset + 1), path: path,
                                        coordinate: tag & 2 != 0 ? nil : coordinate))
            }
            offset += recordSize
        }
        var rules = ImportRules(minInterval: minInterval, threshold: threshold, existingPins: pins, earlierAccepted: earlier)
        return ImportRules.ordered(candidates).map { rules.decide($0, label: $0.path.description) }
    }
}
