import Foundation
import PinApp
import TestSupport
import XCTest

extension XCTestCase {
    /// A `PinApp` on a database not made yet, in a folder of its own removed after the test,
    /// with the checkout's data files (the countries' names and outlines).
    func scratchApp() throws -> PinApp {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pins-app-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        setenv("PINS_DATA_DIR", Repository.url("Resources").path, 1)
        return PinApp(databasePath: dir.appendingPathComponent("pins.sqlite").path, named: true)
    }
}
