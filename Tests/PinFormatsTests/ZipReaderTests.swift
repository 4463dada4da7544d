import Foundation
@testable import PinFormats
import TestSupport
import XCTest

/// ZIP archives made by Info-ZIP's `zip` and Python's zipfile (scripts/fixtures-places).
final class ZipReaderTests: XCTestCase {
    static let fixtures = Repository.url("Fixtures/places")

    func path(_ name: String) -> String { Self.fixtures.appendingPathComponent(name).path }

    func contents(_ source: ZipEntrySource) throws -> [UInt8] {
        var out: [UInt8] = []
        while let chunk = try source.nextChunk() { out += chunk }
        return out
    }

    func testGoogleEarthKMZDeflatedDocKMLFirst() throws {
        let archive = try ZipArchive(path: path("google-earth.kmz"))
        XCTAssertEqual(archive.entries.map(\.name), ["doc.kml", "files/icon.gif"])
        XCTAssertEqual(archive.entries.first?.method, 8)
        let kml = try contents(try archive.contents(of: archive.kmlEntry!))
        XCTAssertEqual(kml, Array(try Data(contentsOf: Self.fixtures.appendingPathComponent("from-gpsbabel.kml"))))
    }

    func testAStoredEntryReadsBackAsTheKMLItHolds() throws {
        let archive = try ZipArchive(path: path("stored.kmz"))
        XCTAssertEqual(archive.entries.first?.method, 0)
        let kml = try contents(try archive.contents(of: archive.kmlEntry!))
        XCTAssertEqual(kml, Array(try Data(contentsOf: Self.fixtures.appendingPathComponent("from-gpsbabel.kml"))))
    }

    func testFirstKMLWhenThereIsNoDocKML() throws {
        let archive = try ZipArchive(path: path("nested.kmz"))
        XCTAssertEqual(archive.kmlEntry?.name, "maps/places.kml")
        let kml = try contents(try archive.contents(of: archive.kmlEntry!))
        XCTAssertEqual(kml, Array(try Data(contentsOf: Self.fixtures.appendingPathComponent("from-ogr2ogr.kml"))))
    }

    func testAnEntryThatInflatesPastItsDeclaredSizeStopsThere() throws {
        let archive = try ZipArchive(path: path("zip-bomb-declared.kmz"))
        XCTAssertEqual(archive.entries.first?.uncompressedSize, 1000)
        let source = try archive.contents(of: archive.entries[0])
        var total = 0
        XCTAssertThrowsError(try { while let chunk = try source.nextChunk() { total += chunk.count } }()) { error in
            XCTAssertTrue("\(error)".contains("inflates to more than the 1000 bytes it declares"), "\(error)")
        }
        // One 64 KiB piece at most was made, not the 10 MB the data holds.
        XCTAssertLessThanOrEqual(total, 64 * 1024)
    }

    func testCRCMismatchIsDamage() throws {
        let archive = try ZipArchive(path: path("zip-crc.kmz"))
        XCTAssertThrowsError(try contents(try archive.contents(of: archive.entries[0]))) { error in
            XCTAssertTrue("\(error)".contains("CRC-32"), "\(error)")
        }
    }

    /// Every prefix of a valid archive fails cleanly (the truncation loop), and so does every
    /// single-byte change of its directory: an error, never a crash or a wrong success.
    func testEveryPrefixFailsCleanly() throws {
        let bytes = Array(try Data(contentsOf: Self.fixtures.appendingPathComponent("google-earth.kmz")))
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("zip-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("cut.kmz")
        for length in 0..<bytes.count {
            try Data(bytes[0..<length]).write(to: file)
            XCTAssertThrowsError(try {
                let archive = try ZipArchive(path: file.path)
                _ = try contents(try archive.contents(of: archive.kmlEntry!))
            }(), "prefix of \(length) bytes")
        }
        for at in stride(from: 0, to: bytes.count, by: 7) {
            var changed = bytes
            changed[at] ^= 0x5A
            try Data(changed).write(to: file)
            // Either an error or the entry's right bytes (a change in a field the reader ignores).
            if let archive = try? ZipArchive(path: file.path), let entry = archive.kmlEntry,
               let source = try? archive.contents(of: entry), let kml = try? contents(source) {
                XCTAssertEqual(kml.count, entry.uncompressedSize)
            }
        }
    }

    func testNotAZip() throws {
        XCTAssertThrowsError(try ZipArchive(path: Self.fixtures.appendingPathComponent("source.geojson").path)) { error in
            XCTAssertTrue("\(error)".contains("no end of central directory"), "\(error)")
        }
    }
}
