import Foundation
@testable import PinCore
@testable import PinMetadata
import XCTest

/// The video containers of issue 14 (AVCHD/MPEG-TS MDPM, AVI, Matroska/WebM): every file
/// `scripts/fixtures-video` wrote, read by us and compared with ExifTool's reading
/// (`Fixtures/formats/exiftool-video-containers.json`, `exiftool -j -n -G1 -a -ee`). Fails,
/// never skips, when the fixtures are missing.
final class VideoContainerTests: XCTestCase {
    let mtime = ExifToolComparison.mtime

    typealias Expected = ExifToolComparison.Expected

    static func mdpm(_ position: Bool = true) -> Expected {
        Expected(format: "mpegts", time: .tag("H264:DateTimeOriginal"), timeSource: .exifOffset,
                 timeTag: "MDPM DateTimeOriginal", positionSource: position ? "exif" : nil)
    }

    let expected: [String: Expected] = [
        "avchd-mdpm-offset-and-gps.m2ts": mdpm(),
        "avchd-mdpm-half-hour-zone-south.m2ts": mdpm(),
        "mpegts-188-mdpm-negative-half-hour-zone-west.ts": mdpm(),
        "avchd-h264-without-mdpm.m2ts": Expected(format: "mpegts", time: .modificationTime, timeSource: .fileModification),
        "mpegts-mpeg2-video-no-h264.m2ts": Expected(format: "mpegts", time: .modificationTime, timeSource: .fileModification),
        // IDIT and ICRD are local wall clocks: read in the default zone (UTC in these tests).
        "avi-idit-local-time.avi": Expected(format: "avi", time: .tag("RIFF:DateTimeOriginal"), timeSource: .assumedZone,
                                            timeTag: "AVI IDIT"),
        "avi-info-icrd-date-time.avi": Expected(format: "avi", time: .tag("RIFF:DateCreated"), timeSource: .assumedZone,
                                                timeTag: "AVI ICRD"),
        "avi-strd-exif-gps-and-offset.avi": Expected(format: "avi", time: .tag("Composite:SubSecDateTimeOriginal"),
                                                     timeSource: .exifOffset, timeTag: "DateTimeOriginal",
                                                     positionSource: "exif"),
        "avi-without-metadata.avi": Expected(format: "avi", time: .modificationTime, timeSource: .fileModification),
        // DateUTC is UTC: no wall-clock offset. LOCATION is ISO 6709 text, ExifTool shows it as is.
        "mkv-dateutc.mkv": Expected(format: "matroska", time: .tag("Matroska:DateTimeOriginal"), timeSource: .containerUTC,
                                    timeTag: "Matroska DateUTC"),
        "webm-dateutc.webm": Expected(format: "matroska", time: .tag("Matroska:DateTimeOriginal"), timeSource: .containerUTC,
                                      timeTag: "Matroska DateUTC"),
        "mkv-location-tag-and-dateutc.mkv": Expected(format: "matroska", time: .tag("Matroska:DateTimeOriginal"),
                                                     timeSource: .containerUTC, timeTag: "Matroska DateUTC",
                                                     locationText: ("Matroska:Location", 48.8584, 2.2945),
                                                     positionSource: "matroska"),
        "mkv-date-recorded-with-offset.mkv": Expected(format: "matroska", time: .tag("Matroska:DateTimeOriginal"),
                                                      timeSource: .isoWithOffset, timeTag: "Matroska DATE_RECORDED",
                                                      locationText: ("Matroska:Location", -33.8568, 151.2153),
                                                      positionSource: "matroska"),
        // Tags moved after the Clusters, found through the SeekHead; a wall clock (UTC here).
        "mkv-tags-after-clusters-via-seekhead.mkv": Expected(format: "matroska", time: .tag("Matroska:DateTimeOriginal"),
                                                             timeSource: .assumedZone, timeTag: "Matroska DATE_RECORDED",
                                                             locationText: ("Matroska:Location", 35.6586, 139.7454),
                                                             positionSource: "matroska"),
    ]

    static func directory() -> URL { repoRoot().appendingPathComponent("Fixtures/formats/video-containers") }

    static func loadReadings() throws -> [String: [String: Any]] {
        try exifToolReadings("exiftool-video-containers.json", madeBy: "scripts/fixtures-video",
                             droppingPrefix: "Fixtures/formats/video-containers/")
    }

    func testAgainstExifTool() throws {
        try ExifToolComparison.assertEveryFileAgrees(expected, readings: Self.loadReadings(), dir: Self.directory())
    }

    /// Hand-worked instants for the MDPM zone byte (ExifTool's reading above agrees): 0x04 is
    /// +02:00, 0x27 is −03:30, 0x13 is +09:30.
    func testMDPMInstantsHandWorked() throws {
        let cases: [(String, Double, Int)] = [
            // date -u -d '2021-06-01 10:34:56' +%s
            ("avchd-mdpm-offset-and-gps.m2ts", 1_622_543_696, 7_200),
            // date -u -d '2023-01-01 03:29:58' +%s
            ("mpegts-188-mdpm-negative-half-hour-zone-west.ts", 1_672_543_798, -12_600),
            // date -u -d '2020-02-28 20:37:08' +%s
            ("avchd-mdpm-half-hour-zone-south.m2ts", 1_582_922_228, 34_200),
        ]
        for (name, instant, offset) in cases {
            let path = RawPath(Self.directory().appendingPathComponent(name).path)
            let m = try XCTUnwrap(try MetadataReader.read(path: path, modificationTime: mtime, options: optionsUTC))
            XCTAssertEqual(m.takenAt, epoch(instant), name)
            XCTAssertEqual(m.utcOffsetSeconds, offset, name)
        }
    }

    /// A zone byte with its unused top bit set (0xFF is seen on cameras whose zone was never
    /// set) carries no offset: the wall clock is read as any local time without one.
    func testMDPMUnknownZoneIsAWallClock() throws {
        var warnings: [String] = []
        let values = TransportStream.exifValues(.init(records: [0x18: [0xFF, 0x20, 0x21, 0x06],
                                                                0x19: [0x01, 0x12, 0x34, 0x56]]), warnings: &warnings)
        XCTAssertEqual(values.dateTimeOriginal, "2021:06:01 12:34:56")
        XCTAssertNil(values.offsetTimeOriginal)
        XCTAssertEqual(warnings, [])
    }

    /// The MDPM is found only in the head of the stream: a file of 4 GiB costs what its first
    /// frames weigh. Reads are counted by the file source.
    func testMDPMReadsOnlyTheHead() throws {
        let path = Self.directory().appendingPathComponent("avchd-mdpm-offset-and-gps.m2ts").path
        let bytesRead = try withOpenFile(RawPath(path)) { fd, size -> Int in
            var source = try FileSource(fd: fd, size: size)
            var warnings: [String] = []
            XCTAssertNotNil(try TransportStream.findMDPM(in: &source, warnings: &warnings))
            return source.bytesRead
        }
        // The first frame's SEI lies in the first packets of the video PES (hand-checked layout:
        // PAT, PMT, then the video); with 4 KiB reads that is at most a few reads.
        XCTAssertLessThanOrEqual(bytesRead, 3 * MetadataLimits.laterReadSize)
    }

    /// IDIT forms ExifTool's ConvertRIFFDate knows: ctime (with its newline), Konica's numeric
    /// form; junk gives nil.
    func testIDITForms() {
        XCTAssertEqual(AVI.parseIDIT("Mon Mar 10 15:04:43 2003"), LocalDateTime(year: 2003, month: 3, day: 10, hour: 15, minute: 4, second: 43))
        XCTAssertEqual(AVI.parseIDIT("2002-12-16  15:35:01"), LocalDateTime(year: 2002, month: 12, day: 16, hour: 15, minute: 35, second: 1))
        XCTAssertNil(AVI.parseIDIT("Mon Feb 30 15:04:43 2003"))
        XCTAssertNil(AVI.parseIDIT("not a date"))
    }

    /// Every prefix of every fixture and deterministic byte flips: a result or a
    /// `MetadataError`, never a crash, never a position the whole file does not have.
    func testPrefixesAndFlipsFailCleanly() throws {
        // 300 prefixes and 150 flips anywhere in the file, not only in its first 4 KiB.
        let outcomes = try ContainerFixtureTests.assertPrefixesAndFlipsFailCleanly(
            Self.directory(), names: Self.loadReadings().keys.sorted(), seed: 0x9E37_79B9_7F4A_7C15,
            prefixes: 300, flips: 150, flipWithin: .max)
        XCTAssertGreaterThan(outcomes, 1_000)
    }
}
