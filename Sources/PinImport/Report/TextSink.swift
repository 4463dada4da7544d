import Foundation
import PinCore

/// Where a report writer puts its text, piece by piece (a buffered file descriptor in the
/// command line, a string in tests).
public protocol TextSink: AnyObject {
    func write(_ text: String)
}

/// Collects text in memory (tests, small outputs).
public final class StringSink: TextSink {
    public private(set) var text = ""
    public init() {}
    public func write(_ text: String) { self.text += text }
}
