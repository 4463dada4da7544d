import XCTest
final class PlaceholderPinCoreTests: XCTestCase { func testBuilds() {} }
