import Foundation
import Glibc
@testable import PinCore
@testable import PinMetadata
import XCTest

final class MetadataReaderTests: XCTestCase {
    let mtime = epoch(1_735_646_400)
    var tempDir: URL!

    override func setUpWithError() throws {
        tempDir = FileManager.default.temporaryDirectory.appendingPathComponent("pins-meta-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: tempDir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: tempDir)
    }

    private func write(_ bytes: [UInt8], _ name: String) throws -> RawPath {
        let url = tempDir.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return RawPath(url.path)
    }

    func testEachFormatIsToldByItsFirstBytesAndOtherBytesAreNotMedia() {
        XCTAssertEqual(MetadataReader.sniff([0xFF, 0xD8, 0xFF, 0xE0]), .jpeg)
        XCTAssertEqual(MetadataReader.sniff([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), .png)
        XCTAssertEqual(MetadataReader.sniff(Array("RIFF\u{10}\0\0\0WEBPVP8X".utf8)), .webp)
        XCTAssertEqual(MetadataReader.sniff(Array("RIFF\u{10}\0\0\0AVI LIST".utf8)), .avi)
        XCTAssertEqual(MetadataReader.sniff([0x1A, 0x45, 0xDF, 0xA3, 0x9F]), .matroska)
        // MPEG-TS: two packet syncs, 192 bytes apart after a 4-byte header (.M2TS) or 188 apart.
        var m2ts = [UInt8](repeating: 0, count: 400)
        (m2ts[4], m2ts[196]) = (0x47, 0x47)
        XCTAssertEqual(MetadataReader.sniff(m2ts), .mpegts)
        var ts = [UInt8](repeating: 0, count: 400)
        (ts[0], ts[188]) = (0x47, 0x47)
        XCTAssertEqual(MetadataReader.sniff(ts), .mpegts)
        ts[188] = 0
        XCTAssertEqual(MetadataReader.sniff(ts), .notMedia)
        XCTAssertEqual(MetadataReader.sniff([0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0]), .tiff)
        XCTAssertEqual(MetadataReader.sniff([0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8]), .tiff)
        XCTAssertEqual(MetadataReader.sniff(Array("IIRO".utf8) + [8, 0, 0, 0]), .tiff)
        // ftyp with major mif1 and compatible heic (section 3.2); Apple HEIC; AVIF.
        XCTAssertEqual(MetadataReader.sniff([0, 0, 0, 0x18] + Array("ftypmif1\0\0\0\0mif1heic".utf8)), .heif)
        XCTAssertEqual(MetadataReader.sniff([0, 0, 0, 0x18] + Array("ftypheic\0\0\0\0mif1heic".utf8)), .heif)
        XCTAssertEqual(MetadataReader.sniff([0, 0, 0, 0x18] + Array("ftypavif\0\0\0\0avifmif1".utf8)), .heif)
        XCTAssertEqual(MetadataReader.sniff([0, 0, 0, 0x14] + Array("ftypqt  \0\0\0\0qt  ".utf8)), .quicktime)
        XCTAssertEqual(MetadataReader.sniff([0, 0, 0, 0x18] + Array("ftypisom\0\0\u{2}\0isommp41".utf8)), .quicktime)
        XCTAssertEqual(MetadataReader.sniff([0, 0, 0, 0x18] + Array("ftypM4A \0\0\0\0M4A isom".utf8)), .notMedia)
        XCTAssertEqual(MetadataReader.sniff([0, 0, 0, 8] + Array("wide".utf8)), .quicktime)
        XCTAssertEqual(MetadataReader.sniff(Array("This is not a JPEG".utf8)), .notMedia)
        XCTAssertEqual(MetadataReader.sniff([]), .notMedia)
        XCTAssertEqual(MetadataReader.sniff([0xFF, 0xD8]), .notMedia)
        let raw: [UInt8] = [0xFF, 0xD8, 0xFF, 0xDB]
        XCTAssertEqual(raw.withUnsafeBytes { MetadataReader.sniff($0) }, .jpeg)
    }

    func testReadsAFileByPath() throws {
        let path = try write(Samples.exiftoolJPEG, "photo.jpg")
        let m = try XCTUnwrap(MetadataReader.read(path: path, modificationTime: mtime, options: optionsUTC))
        XCTAssertEqual(try XCTUnwrap(m.coordinate).latitude, -48.85833, accuracy: 1e-6)
        XCTAssertEqual(m.metadataDigest, "ded9d2c217e6054f")
    }

    func testFilesOfSeveralFoldersAreOpenedAsTheirPathsSay() throws {
        // The reader keeps the last file's folder open and opens the next file of that folder
        // relative to it: files of two folders in turn, a file removed since its folder was
        // held, a folder that went away and a file given without a folder all open (or fail)
        // as opening their absolute path does.
        for folder in ["a", "b", "c"] {
            try FileManager.default.createDirectory(at: tempDir.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        let a = try write(Samples.exiftoolJPEG, "a/photo.jpg"), b = try write(Array("just text\n".utf8), "b/note.jpg")
        let c = try write(Samples.exiftoolJPEG, "c/photo.jpg")
        for path in [a, b, a, a, b, c] {
            let expected = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path.description)[.size] as? Int)
            XCTAssertEqual(try withOpenFile(path) { _, size in size }, expected, path.description)
        }
        func failure(_ path: RawPath) -> String {
            do {
                _ = try withOpenFile(path) { _, size in size }
                return "opened"
            } catch {
                return "\(error)"
            }
        }
        try FileManager.default.removeItem(atPath: c.description)
        XCTAssertEqual(failure(c), "\(MetadataError.cannotOpen(reason: systemError(ENOENT)))")
        try FileManager.default.removeItem(at: tempDir.appendingPathComponent("c"))
        XCTAssertEqual(failure(c), "\(MetadataError.cannotOpen(reason: systemError(ENOENT)))")
        XCTAssertEqual(failure(RawPath(bytes: Array(tempDir.path.utf8) + Array("/a/".utf8))),
                       "\(MetadataError.cannotOpen(reason: "not a regular file"))")
        XCTAssertEqual(failure(RawPath("no-folder-\(UUID().uuidString).jpg")), "\(MetadataError.cannotOpen(reason: systemError(ENOENT)))")
        XCTAssertEqual(try MetadataReader.read(path: a, modificationTime: mtime, options: optionsUTC)?.metadataDigest, "ded9d2c217e6054f")
    }

    /// Files prefetched on a thread are read there through the descriptors opened then (a file
    /// renamed since is still read, as it was opened), once: a second read opens the path
    /// again. A file that could not be prefetched fails as it would have; the next prefetch
    /// closes the descriptors nobody asked for.
    func testPrefetchedFilesAreReadThroughTheDescriptorsOpenedAhead() throws {
        try FileManager.default.createDirectory(at: tempDir.appendingPathComponent("p"), withIntermediateDirectories: true)
        let a = try write(Samples.exiftoolJPEG, "p/a.jpg"), b = try write(Samples.exiftoolJPEG, "p/b.jpg")
        let missing = RawPath(bytes: Array(tempDir.path.utf8) + Array("/p/missing.jpg".utf8))
        func openFiles() throws -> Int { try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count }
        let before = try openFiles()
        MetadataReader.prefetch([a, missing, b])
        XCTAssertEqual(try openFiles(), before + 2, "a and b held open")
        try FileManager.default.moveItem(atPath: a.description, toPath: a.description + ".moved")
        XCTAssertEqual(try MetadataReader.read(path: a, modificationTime: mtime, options: optionsUTC)?.metadataDigest, "ded9d2c217e6054f",
                       "read through the descriptor opened ahead")
        XCTAssertThrowsError(try MetadataReader.read(path: a, modificationTime: mtime, options: optionsUTC), "once only") {
            XCTAssertEqual("\($0)", "\(MetadataError.cannotOpen(reason: systemError(ENOENT)))")
        }
        XCTAssertThrowsError(try MetadataReader.read(path: missing, modificationTime: mtime, options: optionsUTC)) {
            XCTAssertEqual("\($0)", "\(MetadataError.cannotOpen(reason: systemError(ENOENT)))")
        }
        XCTAssertEqual(try openFiles(), before + 1, "b still held")
        MetadataReader.prefetch([])
        XCTAssertEqual(try openFiles(), before, "b closed by the next prefetch")
        XCTAssertEqual(try MetadataReader.read(path: b, modificationTime: mtime, options: optionsUTC)?.metadataDigest, "ded9d2c217e6054f")
        XCTAssertEqual(try openFiles(), before)
    }

    func testNonUTF8PathIsOpenedByItsBytes() throws {
        // "caf\xE9.jpg" in Latin-1: not valid UTF-8.
        var name = Array(tempDir.path.utf8) + Array("/caf".utf8)
        name += [0xE9] + Array(".jpg".utf8)
        let path = RawPath(bytes: name)
        let fd = path.withCString { open($0, O_WRONLY | O_CREAT | O_TRUNC, 0o644) }
        XCTAssertGreaterThanOrEqual(fd, 0)
        _ = Samples.exiftoolJPEG.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        close(fd)
        XCTAssertNotNil(try MetadataReader.read(path: path, modificationTime: mtime, options: optionsUTC)?.coordinate)
    }

    func testNotMediaIsNil() throws {
        XCTAssertNil(try MetadataReader.read(path: write(Array("just text\n".utf8), "fake.jpg"),
                                             modificationTime: mtime, options: optionsUTC))
        XCTAssertNil(try MetadataReader.read(path: write([], "empty.jpg"), modificationTime: mtime, options: optionsUTC))
    }

    func testNoExifUsesTheModificationTime() throws {
        let bytes = TestJPEG.file(TestJPEG.app0JFIF)
        let m = try XCTUnwrap(MetadataReader.read(path: write(bytes, "plain.jpg"), modificationTime: mtime, options: optionsUTC))
        XCTAssertEqual(m.takenAt, mtime)
        XCTAssertEqual(m.timeSource, .fileModification)
        XCTAssertNil(m.coordinate)
        XCTAssertNil(m.locationIssue)
        XCTAssertNil(m.metadataDigest)
    }

    func testAMissingFileOrADirectoryFailsToOpenSayingWhy() throws {
        let missing = RawPath(tempDir.appendingPathComponent("nope.jpg").path)
        XCTAssertThrowsError(try MetadataReader.read(path: missing, modificationTime: mtime, options: optionsUTC)) { error in
            XCTAssertEqual("\(error)", "cannot open: No such file or directory")
        }
        XCTAssertThrowsError(try MetadataReader.read(path: RawPath(tempDir.path), modificationTime: mtime, options: optionsUTC)) { error in
            XCTAssertEqual("\(error)", "cannot open: not a regular file")
        }
    }

    func testAPNGCutInsideItsFirstChunkHeaderIsUnreadable() throws {
        // PNG has a reader now: a 12-byte PNG is truncated, not "unsupported".
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0]
        XCTAssertThrowsError(try MetadataReader.read(bytes: png, modificationTime: nil, options: optionsUTC)) { error in
            XCTAssertTrue("\(error)".contains("truncated PNG"), "\(error)")
        }
    }

    func testReadsOnlyTheFirstWindowOfABigFile() throws {
        // 2 MiB of scan data after the Exif: only the first 64 KiB are read.
        let bytes = TestJPEG.file(TestJPEG.app0JFIF, TestJPEG.exifAPP1(Samples.eiffel().bytes(.bigEndian)),
                                  scan: [UInt8](repeating: 0x5A, count: 2 << 20))
        let path = try write(bytes, "big.jpg")
        let (m, read) = try withOpenFile(path) { fd, size in
            var source = try FileSource(fd: fd, size: size)
            let m = try MetadataReader.read(source: &source, modificationTime: mtime, options: optionsUTC)
            return (m, source.bytesRead)
        }
        XCTAssertNotNil(m?.coordinate)
        XCTAssertEqual(read, MetadataLimits.firstReadSize)
    }

    func testExifBeyondTheFirstWindow() throws {
        // Two 60 000-byte APP2 segments push the Exif APP1 past 64 KiB; it still decodes, and
        // the skipped payloads are not read.
        let app2 = TestJPEG.segment(0xE2, [UInt8](repeating: 0x33, count: 60_000))
        let bytes = TestJPEG.file(app2, app2, TestJPEG.exifAPP1(Samples.eiffel().bytes(.littleEndian)),
                                  scan: [UInt8](repeating: 0x5A, count: 500_000))
        let path = try write(bytes, "late.jpg")
        let (m, read) = try withOpenFile(path) { fd, size in
            var source = try FileSource(fd: fd, size: size)
            let m = try MetadataReader.read(source: &source, modificationTime: mtime, options: optionsUTC)
            return (m, source.bytesRead)
        }
        XCTAssertEqual(try XCTUnwrap(m?.coordinate).longitude, 2.2945, accuracy: 1e-9)
        XCTAssertLessThan(read, MetadataLimits.firstReadSize + 3 * MetadataLimits.laterReadSize)
    }

    func testExifSegmentStraddlingTheFirstWindow() throws {
        // APP2 ends a few hundred bytes before 64 KiB; the APP1 payload continues past it.
        let app2 = TestJPEG.segment(0xE2, [UInt8](repeating: 0x33, count: 65_000))
        var tiff = Samples.eiffel()
        tiff.ifd0.append((0x010E, .ascii(String(repeating: "x", count: 3_000))))  // ImageDescription
        let bytes = TestJPEG.file(app2, TestJPEG.exifAPP1(tiff.bytes(.bigEndian)), scan: [UInt8](repeating: 1, count: 100_000))
        let m = try XCTUnwrap(MetadataReader.read(path: write(bytes, "straddle.jpg"), modificationTime: mtime, options: optionsUTC))
        XCTAssertEqual(try XCTUnwrap(m.coordinate).latitude, 48.858330555555, accuracy: 1e-9)
        XCTAssertEqual(m.timeSource, .exifOffset)
    }

    func testConcurrentFileReadsMatchSerial() async throws {
        var built: [RawPath] = []
        for i in 0..<50 {
            var t = Samples.eiffel()
            t.gps[1] = (0x0002, .rationals([(UInt32(i), 1), (15, 1), (0, 1)]))
            built.append(try write(TestJPEG.file(TestJPEG.exifAPP1(t.bytes(i % 2 == 0 ? .bigEndian : .littleEndian))),
                                   "c\(i).jpg"))
        }
        let mtime = self.mtime
        let paths = built
        let serial = try paths.map { try MetadataReader.read(path: $0, modificationTime: mtime, options: optionsUTC) }
        let lists = try await withThrowingTaskGroup(of: [PhotoMetadata?].self) { group in
            for _ in 0..<8 {
                group.addTask {
                    try paths.map { try MetadataReader.read(path: $0, modificationTime: mtime, options: optionsUTC) }
                }
            }
            var all: [[PhotoMetadata?]] = []
            for try await list in group { all.append(list) }
            return all
        }
        XCTAssertEqual(lists.count, 8)
        for list in lists { XCTAssertEqual(list, serial) }
        XCTAssertEqual(try XCTUnwrap(serial[10]?.coordinate).latitude, 10.25, accuracy: 1e-12)
    }

    func testWarningsAreCapped() {
        var values: [String] = []
        for i in 0..<100 { values.append("w\(i)") }
        let m = MetadataReader.metadata(format: .jpeg, exif: nil, warnings: values, modificationTime: nil,
                                               options: optionsUTC) { _ in nil }
        XCTAssertEqual(m.warnings.count, MetadataLimits.maxWarnings)
        XCTAssertEqual(m.warnings.last, "(more warnings not shown)")
    }
}
