// Fuzz target: the import rules (ImportRules), no SQLite. The input's layout is
// PinCore's RulesFuzzInput (shared with RulesFuzzRegressionTests, which replays kept inputs).
import Foundation
@testable import PinCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRules(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    _ = RulesFuzzInput.decide(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
