import Foundation
@testable import PinCore
@testable import PinMetadata
import XCTest

/// Hand-worked instants from docs/formats.md section 7. Expected epoch seconds were
/// computed with `date -u -d '<UTC time>' +%s`.
final class CaptureTimeTests: XCTestCase {
    private func resolve(_ dto: String?, offset: String? = nil, subsec: String? = nil,
                         gpsDate: String? = nil, gpsTime: [ExifRational]? = nil,
                         zone: TimeZone = utc, mtime: Date? = nil) -> CaptureTimeResult {
        CaptureTime.resolve(ExifValues(gpsTimeStamp: gpsTime, gpsDateStamp: gpsDate, dateTimeOriginal: dto,
                                       subSecTimeOriginal: subsec, offsetTimeOriginal: offset),
                            modificationTime: mtime, defaultTimeZone: zone)
    }

    private func hms(_ h: Int64, _ m: Int64, _ s: Int64, _ sd: Int64 = 1) -> [ExifRational] {
        [r(h, 1), r(m, 1), r(s, sd)]
    }

    // MARK: Step 1

    func testAPositiveOffsetTimeIsSubtractedFromTheWallTime() {
        let t = resolve("2023:07:14 10:11:12", offset: "+02:00")
        XCTAssertEqual(t.takenAt, epoch(1_689_322_272))  // 2023-07-14 08:11:12Z
        XCTAssertEqual(t.utcOffsetSeconds, 7200)
        XCTAssertEqual(t.source, .exifOffset)
    }

    func testOffsetNegativeHalfHour() {
        let t = resolve("2023:07:14 10:11:12", offset: "-03:30")
        XCTAssertEqual(t.takenAt, epoch(1_689_342_072))  // 2023-07-14 13:41:12Z
        XCTAssertEqual(t.utcOffsetSeconds, -12_600)
    }

    func testSubSecondsKept() throws {
        let t = resolve("2023:07:14 10:11:12", offset: "+02:00", subsec: "39")
        XCTAssertEqual(try XCTUnwrap(t.takenAt).timeIntervalSince1970, 1_689_322_272.39, accuracy: 1e-6)
        let u = resolve("2023:07:14 10:11:12", offset: "+02:00", subsec: "007\0")
        XCTAssertEqual(try XCTUnwrap(u.takenAt).timeIntervalSince1970, 1_689_322_272.007, accuracy: 1e-6)
        let bad = resolve("2023:07:14 10:11:12", offset: "+02:00", subsec: "3a")
        XCTAssertEqual(bad.takenAt, epoch(1_689_322_272))
        XCTAssertTrue(bad.warnings.contains { $0.contains("SubSecTimeOriginal") })
    }

    func testParisBeforeLondon() throws {
        // 10:00 in Paris (+02:00) = 08:00Z; 09:30 in London (+01:00) = 08:30Z: London is later.
        let paris = try XCTUnwrap(resolve("2023:07:14 10:00:00", offset: "+02:00").takenAt)
        let london = try XCTUnwrap(resolve("2023:07:14 09:30:00", offset: "+01:00").takenAt)
        XCTAssertLessThan(paris, london)
        XCTAssertEqual(london.timeIntervalSince(paris), 1800)
    }

    func testBlankOrBadOffsetFallsThrough() {
        let blank = resolve("2023:07:14 10:11:12", offset: "   :  ")
        XCTAssertEqual(blank.source, .assumedZone)
        XCTAssertEqual(blank.takenAt, epoch(1_689_329_472))  // read as UTC
        XCTAssertEqual(blank.warnings, [])
        let bad = resolve("2023:07:14 10:11:12", offset: "+15:00")
        XCTAssertEqual(bad.source, .assumedZone)
        XCTAssertTrue(bad.warnings.contains { $0.contains("OffsetTimeOriginal") })
    }

    // MARK: Step 3

    func testGPSInferenceTwoHours() {
        // Offset blank; GPS 08:11:40Z with L 10:11:12 → d = 1:59:32 → +02:00; instant = L − O.
        let t = resolve("2023:07:14 10:11:12", offset: "   :  ", gpsDate: "2023:07:14", gpsTime: hms(8, 11, 40))
        XCTAssertEqual(t.source, .gpsInferredOffset)
        XCTAssertEqual(t.utcOffsetSeconds, 7200)
        XCTAssertEqual(t.takenAt, epoch(1_689_322_272))
    }

    func testGPSInferenceNepal() {
        // L 17:00:00, G 11:15:00 → +05:45 = 20700 s; instant 11:15:00Z.
        let t = resolve("2023:07:14 17:00:00", gpsDate: "2023:07:14", gpsTime: hms(11, 15, 0))
        XCTAssertEqual(t.utcOffsetSeconds, 20_700)
        XCTAssertEqual(t.takenAt, epoch(1_689_333_300))
    }

    func testGPSInferenceChatham() {
        // L 23:45:00, G 11:00:00 same day → +12:45 = 45900 s; instant 11:00:00Z.
        let t = resolve("2023:07:14 23:45:00", gpsDate: "2023:07:14", gpsTime: hms(11, 0, 0))
        XCTAssertEqual(t.utcOffsetSeconds, 45_900)
        XCTAssertEqual(t.takenAt, epoch(1_689_332_400))
    }

    func testGPSInferenceKiribati() {
        // L 2023-07-15 00:00:00, G 2023-07-14 10:00:00 → +14:00 = 50400 s.
        let t = resolve("2023:07:15 00:00:00", gpsDate: "2023:07:14", gpsTime: hms(10, 0, 0))
        XCTAssertEqual(t.utcOffsetSeconds, 50_400)
        XCTAssertEqual(t.takenAt, epoch(1_689_328_800))
        // +14:15 is beyond the range: rejected.
        let beyond = resolve("2023:07:15 00:15:00", gpsDate: "2023:07:14", gpsTime: hms(10, 0, 0))
        XCTAssertEqual(beyond.source, .assumedZone)
    }

    func testGPSInferenceAcrossMidnight() {
        // GPS 23:59:50 on 2023-07-13, L 2023-07-14 01:59:40 → d = 1:59:50 → +02:00;
        // instant = L − 2 h = 2023-07-13 23:59:40Z.
        let t = resolve("2023:07:14 01:59:40", gpsDate: "2023:07:13", gpsTime: hms(23, 59, 50))
        XCTAssertEqual(t.utcOffsetSeconds, 7200)
        XCTAssertEqual(t.takenAt, epoch(1_689_292_780))
    }

    func testStaleFixRejected() {
        // d = 2:07:00 → nearest step 2:00, residual 7 min > 5 min → falls to the default zone.
        let t = resolve("2023:07:14 10:11:12", gpsDate: "2023:07:14", gpsTime: hms(8, 4, 12))
        XCTAssertEqual(t.source, .assumedZone)
        XCTAssertEqual(t.takenAt, epoch(1_689_329_472))
        XCTAssertTrue(t.warnings.contains { $0.contains("GPS time") })
    }

    func testAGPSResidualOfExactly5MinutesInfersTheOffsetButOneSecondMoreDoesNot() {
        // Residual exactly 5:00 accepted; 5:01 rejected.
        XCTAssertEqual(resolve("2023:07:14 10:05:00", gpsDate: "2023:07:14", gpsTime: hms(8, 0, 0)).utcOffsetSeconds, 7200)
        XCTAssertEqual(resolve("2023:07:14 10:05:01", gpsDate: "2023:07:14", gpsTime: hms(8, 0, 0)).source, .assumedZone)
        XCTAssertEqual(CaptureTime.gpsTolerance, 300)
    }

    func testGPSWithoutDateTriesTheDaysAround() {
        // L 2023-07-14 00:30, G 22:30 (no date): same day −22 h fails, day before +2 h passes.
        let t = resolve("2023:07:14 00:30:00", gpsTime: hms(22, 30, 0))
        XCTAssertEqual(t.source, .gpsInferredOffset)
        XCTAssertEqual(t.utcOffsetSeconds, 7200)
        XCTAssertEqual(t.takenAt, epoch(1_689_287_400))  // 2023-07-13 22:30Z
    }

    func testGPSWithoutDateAmbiguousPicksPreferredZoneElseSmallerOffset() {
        // L 2024-01-15 10:00, G 21:00 without date: −11:00 (same day) and +13:00 (day before)
        // both pass. UTC as default → the smaller |O|; Auckland (+13 in January) → +13.
        let local = LocalDateTime(year: 2024, month: 1, day: 15, hour: 10)
        XCTAssertEqual(CaptureTime.inferOffset(local: local, gpsDate: nil, gpsSecondsOfDay: 21 * 3600,
                                               preferredZone: utc), -39_600)
        XCTAssertEqual(CaptureTime.inferOffset(local: local, gpsDate: nil, gpsSecondsOfDay: 21 * 3600,
                                               preferredZone: TimeZone(identifier: "Pacific/Auckland")), 46_800)
    }

    func testGPSTimeArithmetic() throws {
        // 23/1, 59/1, 5999/100 → 86399.99 s: one hundredth before midnight.
        XCTAssertEqual(try XCTUnwrap(CaptureTime.secondsOfDay([r(23, 1), r(59, 1), r(5999, 100)])), 86_399.99, accuracy: 1e-9)
        // 12/1, 30/1, 60/1 rolls to 12:31:00 = 45060 s.
        XCTAssertEqual(CaptureTime.secondsOfDay([r(12, 1), r(30, 1), r(60, 1)]), 45_060)
        XCTAssertNil(CaptureTime.secondsOfDay([r(12, 1), r(30, 0), r(0, 1)]))
        // With the date stamp: the fix 2023-07-13 23:59:59.99Z, camera at +02:00 shows
        // 2023-07-14 01:59:59 → inferred +02:00, instant one second before midnight UTC.
        let t = resolve("2023:07:14 01:59:59", gpsDate: "2023:07:13", gpsTime: [r(23, 1), r(59, 1), r(5999, 100)])
        XCTAssertEqual(t.utcOffsetSeconds, 7200)
        XCTAssertEqual(t.takenAt, epoch(1_689_292_799))  // 2023-07-13 23:59:59Z
    }

    func testOffsetWinsOverGPS() {
        let t = resolve("2023:07:14 10:11:12", offset: "+02:00", gpsDate: "2023:07:14", gpsTime: hms(3, 0, 0))
        XCTAssertEqual(t.source, .exifOffset)
    }

    // MARK: Step 5

    func testDefaultZoneBerlinOrdinary() {
        let berlin = TimeZone(identifier: "Europe/Berlin")!
        let t = resolve("2024:01:15 12:00:00", zone: berlin)
        XCTAssertEqual(t.source, .assumedZone)
        XCTAssertEqual(t.takenAt, epoch(1_705_316_400))  // 11:00Z
        XCTAssertEqual(t.utcOffsetSeconds, 3600)
    }

    func testDefaultZoneBerlinGapShiftsForward() {
        // 2024-03-31 02:30 does not exist in Berlin (02:00 → 03:00): read with the offset before
        // the gap (+01:00) → 01:30Z, which is 03:30 CEST (+02:00).
        let t = resolve("2024:03:31 02:30:00", zone: TimeZone(identifier: "Europe/Berlin")!)
        XCTAssertEqual(t.takenAt, epoch(1_711_848_600))
        XCTAssertEqual(t.utcOffsetSeconds, 7200)
    }

    func testDefaultZoneBerlinOverlapTakesTheEarlierInstant() {
        // 2024-10-27 02:30 happens twice (CEST then CET): the earlier is 00:30Z (+02:00).
        let t = resolve("2024:10:27 02:30:00", zone: TimeZone(identifier: "Europe/Berlin")!)
        XCTAssertEqual(t.takenAt, epoch(1_729_989_000))
        XCTAssertEqual(t.utcOffsetSeconds, 7200)
    }

    func testDefaultZoneNewYorkGapAndOverlap() {
        let ny = TimeZone(identifier: "America/New_York")!
        // Gap 2024-03-10 02:30 → with EST (−5) 07:30Z = 03:30 EDT.
        let gap = resolve("2024:03:10 02:30:00", zone: ny)
        XCTAssertEqual(gap.takenAt, epoch(1_710_055_800))
        XCTAssertEqual(gap.utcOffsetSeconds, -14_400)
        // Overlap 2024-11-03 01:30 → earlier is EDT (−4): 05:30Z.
        let overlap = resolve("2024:11:03 01:30:00", zone: ny)
        XCTAssertEqual(overlap.takenAt, epoch(1_730_611_800))
        XCTAssertEqual(overlap.utcOffsetSeconds, -14_400)
    }

    func testDefaultZoneLordHoweHalfHourGap() {
        // Lord Howe moves from +10:30 to +11:00 at 02:00 on 2024-10-06; 02:15 does not exist:
        // 02:15 − 10:30 = 2024-10-05 15:45Z, which is 02:45 at +11:00.
        let t = resolve("2024:10:06 02:15:00", zone: TimeZone(identifier: "Australia/Lord_Howe")!)
        XCTAssertEqual(t.takenAt, epoch(1_728_143_100))
        XCTAssertEqual(t.utcOffsetSeconds, 39_600)
    }

    // MARK: Step 6

    func testNoDateUsesModificationTime() {
        let mtime = epoch(1_735_646_400)
        let t = resolve(nil, mtime: mtime)
        XCTAssertEqual(t.takenAt, mtime)
        XCTAssertEqual(t.source, .fileModification)
        XCTAssertNil(t.utcOffsetSeconds)
        let none = resolve(nil)
        XCTAssertNil(none.takenAt)
        XCTAssertEqual(none.source, TimeSource.none)
        XCTAssertEqual(resolve("0000:00:00 00:00:00", mtime: mtime).source, .fileModification)
        XCTAssertEqual(resolve("    :  :     :  :  ", mtime: mtime).source, .fileModification)
        // Said, not silent (issue 22); no file time, no time, but still said.
        XCTAssertEqual(resolve("0000:00:00 00:00:00", mtime: mtime).warnings,
                       ["DateTimeOriginal '0000:00:00 00:00:00' is not a valid date: the file's modification time is used"])
        XCTAssertEqual(resolve("    :  :     :  :  ", mtime: mtime).warnings,
                       ["DateTimeOriginal is blank: the file's modification time is used"])
        XCTAssertEqual(resolve("2019:13:45 10:11:12").warnings,
                       ["DateTimeOriginal '2019:13:45 10:11:12' is not a valid date: no capture time"])
        XCTAssertEqual(resolve(nil, mtime: mtime).warnings, [])
    }

    // MARK: Parsers

    func testParseDateTimeLenient() {
        let expected = LocalDateTime(year: 2019, month: 7, day: 14, hour: 10, minute: 11, second: 12)
        for text in ["2019:07:14 10:11:12", "2019:07:14 10:11:12\0", "2019-07-14 10:11:12",
                     "2019/07/14 10:11:12  ", "  2019:07:14 10:11:12", "2019:07:14\u{0}10:11:12",
                     "2019:7:14 10:11:12", "2019:07:14T10:11:12+02:00", "2019:07:14 10:11:12.345"] {
            XCTAssertEqual(CaptureTime.parseDateTime(text), expected, text.debugDescription)
        }
        for text in ["0000:00:00 00:00:00", "", "                   ", "    :  :     :  :  ",
                     "2019:00:14 10:11:12", "2019:07:32 10:11:12", "2019:02:29 10:11:12",
                     "2019:07:14 24:00:00", "2019:07:14 10:60:00", "19:07:14 10:11:12",
                     "2019:07:14", "20190714101112", "2019:07:14 10:11", "abc"] {
            XCTAssertNil(CaptureTime.parseDateTime(text), text.debugDescription)
        }
        XCTAssertNotNil(CaptureTime.parseDateTime("2020:02:29 00:00:00"))  // leap year
    }

    func testSignedOffsetsParseToSecondsBlanksAreUnknownAndOutOfRangeOrUnsignedAreInvalid() {
        XCTAssertEqual(CaptureTime.parseOffset("+02:00"), .seconds(7200))
        XCTAssertEqual(CaptureTime.parseOffset("-03:30\0"), .seconds(-12_600))
        XCTAssertEqual(CaptureTime.parseOffset("+05:45"), .seconds(20_700))
        XCTAssertEqual(CaptureTime.parseOffset("+0530"), .seconds(19_800))
        XCTAssertEqual(CaptureTime.parseOffset("+14:00"), .seconds(50_400))
        XCTAssertEqual(CaptureTime.parseOffset("-12:00"), .seconds(-43_200))
        XCTAssertEqual(CaptureTime.parseOffset("   :  "), .unknown)
        XCTAssertEqual(CaptureTime.parseOffset(""), .unknown)
        XCTAssertEqual(CaptureTime.parseOffset("\0\0\0\0\0\0\0"), .unknown)
        XCTAssertEqual(CaptureTime.parseOffset("+15:00"), .invalid)
        XCTAssertEqual(CaptureTime.parseOffset("02:00"), .invalid)
        XCTAssertEqual(CaptureTime.parseOffset("+02:60"), .invalid)
        XCTAssertEqual(CaptureTime.parseOffset("Z"), .invalid)
        // A one-digit hour (issue 14).
        XCTAssertEqual(CaptureTime.parseOffset("+1:00"), .seconds(3600))
        XCTAssertEqual(CaptureTime.parseOffset("-9:30"), .seconds(-34_200))
    }

    /// The parsers work on UTF-8 bytes: digits are ASCII digits only, and a byte that belongs to
    /// a multi-byte character never passes for a digit, a sign or a separator.
    func testParsersTakeOnlyASCIIDigits() {
        XCTAssertNil(CaptureTime.parseDateTime("٢٠١٩:07:14 10:11:12"))  // Arabic-Indic year
        XCTAssertNil(CaptureTime.parseDateTime("２０１９:07:14 10:11:12"))  // fullwidth year
        XCTAssertEqual(CaptureTime.parseDateTime("2019é07é14 10:11:12"),
                       LocalDateTime(year: 2019, month: 7, day: 14, hour: 10, minute: 11, second: 12))
        XCTAssertEqual(CaptureTime.parseOffset("+0٢:00"), .invalid)
        XCTAssertEqual(CaptureTime.parseOffset("+1\u{301}:00"), .invalid)
        XCTAssertEqual(CaptureTime.parseOffset("\u{301}+01:00"), .invalid)
        XCTAssertEqual(CaptureTime.parseOffset(" +01:00 \0"), .seconds(3600))
        XCTAssertNil(CaptureTime.parseSubSeconds("3٩"))
        XCTAssertNil(CaptureTime.parseSubSeconds(" \0 "))
        XCTAssertNil(CaptureTime.parseSubSeconds("3 9"))
        XCTAssertEqual(CaptureTime.parseSubSeconds("39\0 "), 0.39)
        XCTAssertEqual(CaptureTime.parseSubSeconds("007"), 0.007)
        // Nine digits count; the tenth and later are dropped, not rounded.
        XCTAssertEqual(CaptureTime.parseSubSeconds("1234567899"), 0.123456789)
        XCTAssertTrue(CaptureTime.parseDate("2023:07:14:99")! == (2023, 7, 14))
        XCTAssertNil(CaptureTime.parseDate("02023:07:14"))
    }

    func testParseGPSDate() {
        XCTAssertTrue(CaptureTime.parseDate("2023:07:14")! == (2023, 7, 14))
        XCTAssertTrue(CaptureTime.parseDate("2023-07-14\0")! == (2023, 7, 14))
        XCTAssertTrue(CaptureTime.parseDate("2023\u{0}07\u{0}14")! == (2023, 7, 14))  // Casio EX-H20G
        XCTAssertNil(CaptureTime.parseDate("0000:00:00"))
        XCTAssertNil(CaptureTime.parseDate("    :  :  "))
    }

    // MARK: EXIF and XMP dates together (issue 14, MWG)

    private func xmp(_ attributes: String, zone: TimeZone = utc) -> XMPValues {
        let packet = """
            <x:xmpmeta xmlns:x='adobe:ns:meta/'><rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'>
            <rdf:Description xmlns:xmp='http://ns.adobe.com/xap/1.0/' xmlns:photoshop='http://ns.adobe.com/photoshop/1.0/'
             xmlns:exif='http://ns.adobe.com/exif/1.0/' \(attributes)/></rdf:RDF></x:xmpmeta>
            """
        return XMP.parse(Array(packet.utf8), options: MetadataOptions(defaultTimeZone: zone))!
    }

    /// 2023-07-14 10:11:12 read as UTC is 1_689_329_472.
    func testXMPDateWithOffsetNeverOverridesDateTimeOriginal() {
        // The XMP date differs (another day, with an offset): EXIF's wall clock in the default zone.
        let t = CaptureTime.resolve(ExifValues(dateTimeOriginal: "2023:07:14 10:11:12"),
                                    xmp: xmp("xmp:CreateDate='2023-07-15T09:00:00+02:00'"),
                                    modificationTime: nil, defaultTimeZone: utc)
        XCTAssertEqual(t.takenAt, epoch(1_689_329_472))
        XCTAssertEqual(t.source, .assumedZone)
        XCTAssertEqual(t.tag, "DateTimeOriginal")
        XCTAssertTrue(t.warnings.contains { $0.contains("differs from DateTimeOriginal") }, "\(t.warnings)")
    }

    func testXMPOffsetLentWhenWallClocksAgree() {
        let t = CaptureTime.resolve(ExifValues(dateTimeOriginal: "2023:07:14 10:11:12", subSecTimeOriginal: "25"),
                                    xmp: xmp("photoshop:DateCreated='2023-07-14T10:11:12.25+02:00'"),
                                    modificationTime: nil, defaultTimeZone: utc)
        XCTAssertEqual(t.takenAt, epoch(1_689_329_472.25 - 7_200))
        XCTAssertEqual(t.utcOffsetSeconds, 7_200)
        XCTAssertEqual(t.source, .isoWithOffset)
        XCTAssertEqual(t.tag, "DateTimeOriginal + offset of XMP photoshop:DateCreated")
        // The EXIF offset comes first.
        let own = CaptureTime.resolve(ExifValues(dateTimeOriginal: "2023:07:14 10:11:12", offsetTimeOriginal: "-03:00"),
                                      xmp: xmp("xmp:CreateDate='2023-07-14T10:11:12+02:00'"),
                                      modificationTime: nil, defaultTimeZone: utc)
        XCTAssertEqual(own.utcOffsetSeconds, -10_800)
        XCTAssertEqual(own.source, .exifOffset)
        // The XMP offset comes before the GPS inference (which would give +01:00 here).
        let gps = CaptureTime.resolve(ExifValues(gpsTimeStamp: hms(9, 11, 0), gpsDateStamp: "2023:07:14",
                                                 dateTimeOriginal: "2023:07:14 10:11:12"),
                                      xmp: xmp("xmp:CreateDate='2023-07-14T10:11:12+02:00'"),
                                      modificationTime: nil, defaultTimeZone: utc)
        XCTAssertEqual(gps.utcOffsetSeconds, 7_200)
    }

    func testXMPDateUsedWithoutAnExifDate() {
        let t = CaptureTime.resolve(ExifValues(), xmp: xmp("exif:DateTimeOriginal='2023-07-14T10:11:12+1:00'"),
                                    modificationTime: epoch(5), defaultTimeZone: utc)
        XCTAssertEqual(t.takenAt, epoch(1_689_329_472 - 3_600))
        XCTAssertEqual(t.source, .isoWithOffset)
        XCTAssertEqual(t.tag, "XMP exif:DateTimeOriginal")
        // A date without a time of day is not a capture instant: the mtime.
        let d = CaptureTime.resolve(ExifValues(), xmp: xmp("xmp:CreateDate='2023-07-14'"),
                                    modificationTime: epoch(5), defaultTimeZone: utc)
        XCTAssertEqual(d.source, .fileModification)
    }

    func testDateTimeDigitizedBeforeTheModificationTime() {
        let t = CaptureTime.resolve(ExifValues(dateTimeDigitized: "2023:07:14 10:11:12", subSecTimeDigitized: "5",
                                               offsetTimeDigitized: "+02:00"),
                                    modificationTime: epoch(5), defaultTimeZone: utc)
        XCTAssertEqual(t.takenAt, epoch(1_689_329_472.5 - 7_200))
        XCTAssertEqual(t.source, .exifOffset)
        XCTAssertEqual(t.tag, "DateTimeDigitized")
        // DateTimeOriginal still wins, with its own offset (not the Digitized one).
        let both = CaptureTime.resolve(ExifValues(dateTimeOriginal: "2023:07:14 10:11:12",
                                                  dateTimeDigitized: "2023:07:14 11:00:00", offsetTimeDigitized: "+02:00"),
                                       modificationTime: epoch(5), defaultTimeZone: utc)
        XCTAssertEqual(both.takenAt, epoch(1_689_329_472))
        XCTAssertEqual(both.source, .assumedZone)
        XCTAssertEqual(both.tag, "DateTimeOriginal")
    }
}
