// Shared by every fuzz target: fixed options so a run does not depend on the machine's zone.
import Foundation
@testable import PinMetadata

enum FuzzOptions {
    static let utc = MetadataOptions(defaultTimeZone: TimeZone(identifier: "UTC")!)
}
