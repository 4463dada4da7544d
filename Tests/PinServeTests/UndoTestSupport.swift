import Foundation
import PinApp
import PinCore
import PinImport
import PinStore
@testable import PinServe
import TestSupport
import XCTest

/// What the browser's undo tests share (MoveUndoTests, DeleteUndoTests): an app and its routes on
/// a scratch database, a pin made as the page's form makes it, a JSON body, and the toast's Undo.
extension XCTestCase {
    func serveScratch(_ name: String) throws -> (PinApp, AppBackend) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pins-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        setenv("PINS_DATA_DIR", Repository.url("Resources").path, 1)
        let app = PinApp(databasePath: dir.appendingPathComponent("pins.sqlite").path, named: true)
        return (app, AppBackend(app: app, libraries: []))
    }

    func addPin(_ app: PinApp, _ lat: Double, _ lon: Double, _ fill: (inout NewPin) -> Void = { _ in }) throws -> Location {
        var new = NewPin(coordinate: Coordinate(latitude: lat, longitude: lon))
        new.date = "2024-05-01T10:00:00+02:00"
        fill(&new)
        return try app.addPin(new)
    }

    /// `gzip -dc` of `bytes`: what a browser's gzip decoding gets.
    func gunzip(_ bytes: [UInt8]) throws -> [UInt8] { try gzipTool(["-dc"], bytes) }

    /// gzip(1) run with `arguments` on a file of `bytes`: what it writes to standard output.
    func gzipTool(_ arguments: [String], _ bytes: [UInt8]) throws -> [UInt8] {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pins-gzip-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("data")
        try Data(bytes).write(to: file)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/gzip")
        process.arguments = arguments + [file.path]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "gzip \(arguments.joined(separator: " ")) read it")
        return Array(data)
    }

    func jsonBody(_ object: [String: Any]) throws -> JSONBody {
        try JSONBody(Array(JSONSerialization.data(withJSONObject: object)))
    }

    /// POST /api/pins/restore with `object`: its status, or the status of its refusal, and the answer.
    func restore(_ backend: AppBackend, _ object: [String: Any]) throws -> (status: Int, answer: String) {
        do {
            let answer = try backend.restorePins(jsonBody(object))
            return (answer.status, String(decoding: answer.body, as: UTF8.self))
        } catch let refused as RequestError {
            return (refused.status, refused.message)
        }
    }

    /// `Fixtures/library` imported (run 1) and the pin IMG_0001.jpg made (2023-07, near the Eiffel
    /// Tower, +02:00; hand-checked in MoveUndoTests), with every pin as the import stored it.
    func importedEiffel(_ app: PinApp) async throws -> (eiffel: Location, pins: [Location]) {
        _ = try await app.importPhotos(ImportOptions(root: Repository.url("Fixtures/library").path))
        let pins = try XCTUnwrap(PinDatabase(readOnlyPath: app.databasePath).read { try $0.locations.fetchAll(countryID: nil) })
        return (try XCTUnwrap(pins.first { $0.photoIDs.first?.hasSuffix("2023/07-paris/IMG_0001.jpg") == true }), pins)
    }
}
