import XCTest
final class PlaceholderPinImportTests: XCTestCase { func testBuilds() {} }
