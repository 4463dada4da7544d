import XCTest
final class PlaceholderPinStoreTests: XCTestCase { func testBuilds() {} }
