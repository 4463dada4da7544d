import CSupport
import Foundation
import PinCore

extension IDSource {
    /// The kernel's random source.
    public static let system = IDSource {
        var buffer = [UInt8](repeating: 0, count: 16)
        let rc = buffer.withUnsafeMutableBufferPointer { pins_fill_random($0.baseAddress, UInt($0.count)) }
        guard rc == 0 else {
            let code = errno
            throw RandomnessUnavailable(reason: "getrandom: \(String(cString: strerror(code)))")
        }
        return buffer
    }
}
