import Foundation
import TestSupport
import XCTest
@testable import PinFormats
@testable import PinPlaces
@testable import PinGrammar

/// The inputs kept in Fixtures/fuzz/windows/ from the `windows` fuzz target (Fuzz/Windows.swift,
/// issue 40: window refills inside tokens), replayed by its property: each reader reads the
/// input the same with its default window and with the 1-64-byte window (and short reads) the
/// input's first byte picks. Also the fixtures themselves through every reader, with windows of
/// 1, 2, 3, 7 and 64 bytes.
final class WindowsFuzzRegressionTests: XCTestCase {
    static let repo = Repository.root
    static let readers = 5 + TrackFileFormat.allCases.count + PlaceFileKind.allCases.count

    /// As Fuzz/Windows.swift's `windowsReading`, as text (every record, token, event, line,
    /// point, visit, note and error of reader `reader`).
    static func reading(_ bytes: [UInt8], chunk: Int, reader: Int) -> String {
        var out = ""
        func attempt(_ body: () throws -> Void) {
            do { try body() } catch { out += " error \(error)" }
        }
        switch reader {
        case 0, 1:
            var csv = CSVReader(MemoryInput(bytes, chunk: chunk), delimiter: reader == 0 ? UInt8(ascii: ",") : UInt8(ascii: ";"))
            attempt { while let r = try csv.nextRecord() { out += " \(r)" } }
        case 2:
            let json = JSONReader(input: MemoryInput(bytes, chunk: chunk))
            attempt {
                while let token = try json.next() {
                    out += " \(token)@\(json.tokenOffset)/\(json.depth)"
                    if token == .key || token == .string { out += json.string.debugDescription }
                    if token == .number { out += "\(json.withBytes { Array($0) }) \(String(describing: json.double)) \(String(describing: json.int64))" }
                }
            }
        case 3:
            let xml = XMLPullParser(input: MemoryInput(bytes, chunk: chunk))
            var text: String?  // one run of text may come as several events: compared whole
            attempt {
                while let event = try xml.next() {
                    if event == .text { text = (text ?? "") + xml.text; continue }
                    if let t = text { out += " text \(t.debugDescription)"; text = nil }
                    out += " \(event) \(xml.name) \(xml.depth) \(event == .startElement ? xml.attributes : [])"
                }
            }
            if let t = text { out += " text \(t.debugDescription)" }
        case 4:
            let lines = LineReader(input: MemoryInput(bytes, chunk: chunk))
            attempt { while try lines.next({ out += " \(lines.offset):\(Array($0))" }) {} }
        case 5 ..< 5 + TrackFileFormat.allCases.count:
            var points = TrackPointArray()
            var notes = TrackNotes()
            attempt { try TrackFiles.read(bytes: bytes, format: TrackFileFormat.allCases[reader - 5], into: &points, notes: &notes) }
            out += " \(points.points) \(notes)"
        default:
            let kind = PlaceFileKind.allCases[reader - 5 - TrackFileFormat.allCases.count]
            attempt { try PlaceFiles.read(bytes: bytes, kind: kind) { out += " \($0)" } }
        }
        return out
    }

    func check(_ bytes: [UInt8], reader: Int, window: Int, chunk: Int, _ name: String) {
        let whole = Self.reading(bytes, chunk: .max, reader: reader)
        let small = ReadWindow.$bytes.withValue(window) { Self.reading(bytes, chunk: chunk, reader: reader) }
        XCTAssertEqual(whole, small, "\(name): reader \(reader), a \(window)-byte window, reads of \(chunk)")
    }

    func testKeptInputsReadTheSameWithATinyWindow() throws {
        let dir = Self.repo.appendingPathComponent("Fixtures/fuzz/windows")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path))?.sorted() ?? []
        XCTAssertGreaterThanOrEqual(names.count, 10, "Fixtures/fuzz/windows holds the kept inputs (scripts/fuzz --keep 20 windows)")
        for name in names {
            let data = [UInt8](try Data(contentsOf: dir.appendingPathComponent(name)))
            guard data.count > 1 else { continue }
            let start = Date()
            check(Array(data[2...]), reader: Int(data[1]) % Self.readers, window: Int(data[0] & 63) + 1,
                  chunk: [Int.max, 1, 7, 64][Int(data[0] >> 6)], name)
            XCTAssertLessThan(Date().timeIntervalSince(start), 2, "\(name) is slow")
        }
    }

    /// The track and place fixtures each through the readers of their kind and the bare ones.
    func testFixturesReadTheSameWithTinyWindows() throws {
        var checked = 0
        for folder in ["Fixtures/tracks", "Fixtures/places"] {
            let dir = Self.repo.appendingPathComponent(folder)
            guard let walk = FileManager.default.enumerator(at: dir, includingPropertiesForKeys: [.fileSizeKey]) else { continue }
            for case let url as URL in walk where !["jpg", "xsd", "md"].contains(url.pathExtension.lowercased()) {
                guard let size = try url.resourceValues(forKeys: [.fileSizeKey]).fileSize, size < 32 << 10,
                      let data = try? Data(contentsOf: url) else { continue }
                let bytes = [UInt8](data)
                let readers = [0, 2, 3, 4] + (5 ..< Self.readers).filter { $0 % 3 == checked % 3 }
                for reader in readers {
                    check(bytes, reader: reader, window: [1, 2, 3, 7, 64][checked % 5], chunk: [Int.max, 1, 7][checked % 3], url.lastPathComponent)
                }
                checked += 1
            }
        }
        XCTAssertGreaterThanOrEqual(checked, 20, "the fixtures (a wrong repository root reads none)")
    }

    /// The knob takes effect: the readers ask their input for the bound window's bytes. The
    /// 19 bytes below with the default 1 MiB window are two reads of up to 1 MiB (the 19 bytes,
    /// then the end); with a 1-byte window the first read asks for 1 byte, and there are more.
    func testTheWindowIsWhatTheReadersRead() throws {
        final class Asked: ByteInput {
            var sizes: [Int] = []
            let inner = MemoryInput(#"{"a": [1.5, "xyz"]}"#)
            func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
                sizes.append(buffer.count)
                return try inner.read(into: buffer)
            }
        }
        let whole = Asked(), small = Asked()
        let reader = JSONReader(input: whole)
        while try reader.next() != nil {}
        XCTAssertEqual(whole.sizes.count, 2)
        XCTAssertEqual(whole.sizes.first, 1_048_576)
        try ReadWindow.$bytes.withValue(1) {
            let tiny = JSONReader(input: small)
            while try tiny.next() != nil {}
        }
        XCTAssertEqual(small.sizes.first, 1)
        XCTAssertGreaterThan(small.sizes.count, 2)
        var csv = ReadWindow.$bytes.withValue(3) { CSVReader(MemoryInput("a,b\n1,2\n")) }
        XCTAssertEqual(try csv.nextRecord()?.fields, ["a", "b"])
        XCTAssertEqual(try csv.nextRecord()?.fields, ["1", "2"])
    }
}
