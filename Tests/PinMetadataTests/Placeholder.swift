import XCTest
final class PlaceholderPinMetadataTests: XCTestCase { func testBuilds() {} }
