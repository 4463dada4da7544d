import Foundation
import PinCore

/// Collects text in memory (tests, small outputs).
public final class StringSink: TextSink {
    public private(set) var text = ""
    public init() {}
    public func write(_ text: String) { self.text += text }
}
