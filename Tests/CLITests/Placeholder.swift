import XCTest
final class PlaceholderCLITests: XCTestCase { func testBuilds() {} }
