import Foundation
@testable import PinApp
@testable import PinCore
@testable import PinStore
import TestSupport
import XCTest

/// The application layer as two front ends use it: calls from several threads on one `PinApp`,
/// one writer at a time, reads that never wait for writes, and an edit made while another
/// connection (an import's batch) holds the write lock.
final class PinAppConcurrencyTests: XCTestCase {
    /// A point in France near Paris, a little apart for each (thread, n).
    private static func pin(_ thread: Int, _ n: Int) -> NewPin {
        var new = NewPin(coordinate: Coordinate(latitude: 48.80 + Double(thread) * 0.01, longitude: 2.30 + Double(n) * 0.01))
        new.date = "2024-05-0\(n + 1)T12:00:00+02:00"
        return new
    }

    func testAddsFromEightThreadsAllLandWithTheirCounts() throws {
        let app = try scratchApp()
        _ = try app.addPin(Self.pin(0, 0)) // creates the database before the threads race
        let failures = LockedList()
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for n in 0..<5 where !(thread == 0 && n == 0) {
                do { _ = try app.addPin(Self.pin(thread, n)) } catch { failures.append("\(error)") }
            }
        }
        XCTAssertEqual(failures.items, [])
        let stats = try app.statistics()
        // 8 threads × 5 pins, all in France (hand-picked positions around Paris).
        XCTAssertEqual(stats.totalPins, 40)
        XCTAssertEqual(stats.countries.map(\.id), ["FR"])
        XCTAssertEqual(stats.countries.first?.pinCount, 40)
        XCTAssertEqual(try PinDatabase(readOnlyPath: app.databasePath).countMismatches(), [])
    }

    func testReadersSeeWholeTransactionsWhileWritersWrite() throws {
        let app = try scratchApp()
        _ = try app.addPin(Self.pin(0, 0))
        let seen = LockedList()
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            for n in 0..<5 {
                do {
                    if worker < 2 {
                        _ = try app.addPin(Self.pin(worker + 1, n))
                    } else {
                        seen.append(String(try app.pins(matching: PinFilter()).count))
                    }
                } catch { seen.append("error: \(error)") }
            }
        }
        XCTAssertFalse(seen.items.contains { $0.hasPrefix("error") }, "\(seen.items)")
        // Every count a reader saw is a whole number of committed adds: 1 + 2 × 5 pins at the most.
        XCTAssertTrue(seen.items.allSatisfy { (Int($0) ?? 0) >= 1 && (Int($0) ?? 0) <= 11 }, "\(seen.items)")
        XCTAssertEqual(try app.pins(matching: PinFilter()).count, 11)
    }

    /// An import writes in short transactions on its own connection: an edit that comes while
    /// one is open waits for it (SQLite's busy timeout) and then goes in.
    func testAnEditWaitsForAnotherConnectionsTransaction() throws {
        let app = try scratchApp()
        let made = try app.addPin(Self.pin(0, 0))
        let holding = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let path = app.databasePath
        Thread.detachNewThread {
            // The importer's own connection, as `ImportSession` opens it.
            _ = try? PinDatabase(path: path).write { _ in
                holding.signal()
                Thread.sleep(forTimeInterval: 0.5)
            }
            done.signal()
        }
        holding.wait()
        let started = Date()
        var edit = LocationEdit()
        edit.title = "Edited while importing"
        let edited = try app.editPin(String(made.id.lowercasedText.prefix(8)), edit)
        XCTAssertGreaterThan(Date().timeIntervalSince(started), 0.3, "the edit waited for the other transaction")
        XCTAssertEqual(edited.title, "Edited while importing")
        done.wait()
        XCTAssertEqual(try app.pinDetail(made.id.lowercasedText).pin.title, "Edited while importing")
    }

    func testRequestsWrongInThemselvesAreInvalidRequests() throws {
        let app = try scratchApp()
        var mountain = NewPin(coordinate: Coordinate(latitude: 45.8326, longitude: 6.8652))
        mountain.type = .mountain
        XCTAssertThrowsError(try app.addPin(mountain)) { error in
            XCTAssertEqual((error as? InvalidRequest)?.description, "--type mountain needs --name")
            XCTAssertEqual((error as? ExitStatusError)?.exitStatus, 64)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: app.databasePath), "nothing was created for a refused request")
        XCTAssertThrowsError(try app.deletePin("0f601b8a")) { error in
            XCTAssertEqual("\(error)", "no pin with id 0f601b8a: the database \(app.databasePath) does not exist")
        }
    }
}

/// Strings a @Sendable closure can add to.
final class LockedList: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []
    var items: [String] { lock.lock(); defer { lock.unlock() }; return list }
    func append(_ item: String) { lock.lock(); list.append(item); lock.unlock() }
}
