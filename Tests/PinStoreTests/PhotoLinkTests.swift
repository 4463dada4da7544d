import XCTest
import Foundation
@testable import PinStore
@testable import PinCore

/// Issue 39: every photo with a position belongs to the pin it made, else the nearest pin
/// within 5 km, else none; the links follow deletes, adds and undos; visits are stays.
///
/// Distances are worked by hand along a meridian, where they are the latitude difference alone:
/// one degree is 6371 km × π / 180 = 111.19493 km, so 4.9 km is 0.0440667° and 4.8 km 0.0431674°.
final class PhotoLinkTests: XCTestCase {
    var db: PinDatabase!
    var creation: CreationService!
    var service: LocationService!
    static let degreesPerKm = 1 / 111.19493
    let here = Coordinate(latitude: 45, longitude: 5)

    override func setUpWithError() throws {
        db = try PinDatabase(path: try temporaryDatabasePath(self))
        creation = CreationService(locator: StubLocator(), countries: CountryService(catalog: testCatalog), ids: .system)
        service = LocationService(creation: creation)
    }

    /// A point `km` north (negative: south) of `here`.
    func north(_ km: Double) -> Coordinate {
        Coordinate(latitude: here.latitude + km * Self.degreesPerKm, longitude: here.longitude)
    }

    @discardableResult
    func pin(_ title: String, at coordinate: Coordinate, runID: Int64? = nil, visits: Int = 1) throws -> UUID {
        try creation.create(LocationDraft(title: title, coordinate: coordinate, date: Date(timeIntervalSince1970: 1_700_000_000),
                                          visitCount: visits, runID: runID), using: db).id
    }

    /// A photo record skipped by the distance rule (or as `decision` says), taken at `iso` (UTC
    /// unless `offset`).
    func photo(_ name: String, at coordinate: Coordinate?, taken iso: String = "2024-05-01T12:00:00Z", offset: Int? = nil,
               decision: PhotoDecision = .distance, pin: UUID? = nil, runID: Int64? = nil) throws {
        let takenAt = try XCTUnwrap(ISO8601DateFormatter().date(from: iso))
        try db.write { repos in
            try repos.photos.save(PhotoRecord(path: RawPath("/lib/\(name)"), fingerprint: PhotoFingerprint(size: 1, modificationNanoseconds: 2, inode: 3),
                                              takenAt: takenAt, utcOffsetSeconds: offset, coordinate: coordinate, decision: decision,
                                              locationID: pin), runID: runID)
        }
    }

    /// The pin a photo belongs to.
    func owner(_ name: String) throws -> String? {
        try db.connection.query("SELECT l.id FROM photos p LEFT JOIN locations l ON l.rowid = p.pin WHERE p.path = ?",
                                [SQLValue.blob(Array("/lib/\(name)".utf8))]) { $0.optionalString(0) }.first ?? nil
    }

    func stored(_ id: UUID) throws -> Location { try XCTUnwrap(try db.read { try $0.locations.fetch(id: id) }) }

    func testAPhoto4_9KmFromOnePinAnd4_8KmFromAnotherGoesToTheNearer() throws {
        let far = try pin("North", at: north(4.9)), near = try pin("South", at: north(-4.8))
        try photo("between.jpg", at: here)
        try photo("beyond.jpg", at: north(-4.8 - 5.1)) // 5.1 km south of South, 14.9 km from North: no pin's
        try db.linkPhotos()
        XCTAssertEqual(try owner("between.jpg"), near.lowercasedText)
        XCTAssertNil(try owner("beyond.jpg"))
        XCTAssertEqual(try stored(near).photoCount, 1)
        XCTAssertEqual(try stored(far).photoCount, 0)
    }

    func testADeletedPinsPhotosGoToTheNextNearestWithinTheRadiusOrToNone() throws {
        let far = try pin("North", at: north(4.9)), near = try pin("South", at: north(-4.8))
        try photo("between.jpg", at: here)
        try photo("south.jpg", at: north(-6)) // 1.2 km from South, 10.9 km from North
        try db.linkPhotos()
        XCTAssertEqual(try owner("south.jpg"), near.lowercasedText)
        try service.delete(id: near, using: db)
        XCTAssertEqual(try owner("between.jpg"), far.lowercasedText, "the delete's own write links again")
        XCTAssertNil(try owner("south.jpg"))
        try service.delete(id: far, using: db)
        XCTAssertNil(try owner("between.jpg"))
    }

    func testAPinAddedOrMovedNearerTakesThePhoto() throws {
        let far = try pin("North", at: north(4.9))
        try photo("between.jpg", at: here)
        try db.linkPhotos()
        XCTAssertEqual(try owner("between.jpg"), far.lowercasedText)
        let added = try pin("Added", at: north(-1))
        XCTAssertEqual(try owner("between.jpg"), added.lowercasedText)
        var moved = try stored(added)
        moved.coordinate = north(-7) // 7 km away now: North, at 4.9 km, is the nearer
        try service.save(moved, using: db)
        XCTAssertEqual(try owner("between.jpg"), far.lowercasedText)
    }

    func testAnAcceptedPhotoBelongsToItsOwnPinAndAfterItsDeleteToTheNearest() throws {
        let made = try pin("Made", at: north(3))
        let other = try pin("Other", at: north(-1))
        // The photo made `made` (the user moved the pin 3 km away since): it stays its photo
        // though `other` is nearer.
        try photo("maker.jpg", at: here, decision: .accepted, pin: made)
        try db.linkPhotos()
        XCTAssertEqual(try owner("maker.jpg"), made.lowercasedText)
        try service.delete(id: made, using: db)
        XCTAssertEqual(try owner("maker.jpg"), other.lowercasedText)
    }

    /// The pass links a photo with a position when it was accepted (to the pin it made) or
    /// skipped for time or distance (to the nearest pin); the other decisions never, position or
    /// not (the pass reads the decision's text itself, `LinkedDecision`).
    func testOnlyAcceptedPhotosAndThoseSkippedForTimeOrDistanceAreLinked() throws {
        let near = try pin("Near", at: here), made = try pin("Made", at: north(3))
        try photo("accepted.jpg", at: north(0.1), decision: .accepted, pin: made)
        for decision in PhotoDecision.allCases where decision != .accepted {
            try photo("\(decision.rawValue).jpg", at: north(0.1), decision: decision)
        }
        try db.linkPhotos()
        XCTAssertEqual(try owner("accepted.jpg"), made.lowercasedText, "its own pin, though Near is nearer")
        XCTAssertEqual(try owner("interval.jpg"), near.lowercasedText)
        XCTAssertEqual(try owner("distance.jpg"), near.lowercasedText)
        XCTAssertNil(try owner("noLocation.jpg"))
        XCTAssertNil(try owner("unreadable.jpg"))
        XCTAssertNil(try owner("notMedia.jpg"))
        XCTAssertEqual(try stored(near).photoCount, 2)
        XCTAssertEqual(try stored(made).photoCount, 1)
    }

    /// A connection keeps the pins' rowids it looked up from one write to the next (an
    /// import's batches), but not past another connection's commit: there Alpha was deleted and
    /// Bravo made, in Alpha's row (1). A record the import then writes for Alpha names no pin
    /// (Alpha is gone; the pass at the run's end links it), not Bravo's row.
    func testAPinsRowKeptFromAnEarlierWriteIsNotUsedAfterAnotherConnectionsCommit() throws {
        db.defersPhotoLinks = true
        let alpha = try pin("Alpha", at: here)
        func skipped(_ name: String) throws {
            try db.write { repos in
                var record = PhotoRecord(path: RawPath("/lib/\(name)"), fingerprint: PhotoFingerprint(size: 1, modificationNanoseconds: 2, inode: 3),
                                         coordinate: north(0.1), decision: .distance)
                record.pinID = alpha
                try repos.photos.save(record, runID: nil)
            }
        }
        try skipped("first.jpg")
        XCTAssertEqual(try owner("first.jpg"), alpha.lowercasedText)
        let other = try PinDatabase(path: db.connection.path)
        try service.delete(id: alpha, using: other)
        let bravo = try creation.create(LocationDraft(title: "Bravo", coordinate: north(20), date: Date(timeIntervalSince1970: 1_700_000_000)),
                                        using: other).id
        XCTAssertEqual(try db.connection.scalarInt("SELECT rowid FROM locations WHERE id = ?", [bravo.lowercasedText]), 1, "Alpha's row")
        try skipped("second.jpg")
        XCTAssertNil(try owner("second.jpg"))
    }

    /// Between pins at the very same place the oldest (`created_at`, then the smaller id) keeps
    /// the photo, whatever order their rows are in: the pass reads the pins by row and takes
    /// SQLite's sort only when the rows are not in that order already.
    func testBetweenPinsAtTheSamePlaceTheOldestKeepsThePhotoWhateverTheirRowsOrder() throws {
        let first = try pin("First row", at: north(1)), second = try pin("Second row", at: north(1))
        func made(_ id: UUID, at seconds: Double) throws {
            try db.write { _ in try db.connection.run("UPDATE locations SET created_at = ? WHERE id = ?", [seconds, id.lowercasedText]) }
        }
        try made(first, at: 1_700_000_200)
        try made(second, at: 1_700_000_100)
        try photo("here.jpg", at: here)
        try db.linkPhotos()
        XCTAssertEqual(try owner("here.jpg"), second.lowercasedText, "made 100 s before the first row's pin")
        try made(first, at: 1_700_000_100)
        try db.linkPhotos()
        let smaller = [first, second].map(\.lowercasedText).min()
        XCTAssertEqual(try owner("here.jpg"), smaller, "made at the same second: the smaller id")
    }

    func testUndoingARunHandsItsPinsPhotosBack() throws {
        let old = try pin("Old", at: north(4.9))
        try photo("earlier.jpg", at: here)
        let run = try db.write { try $0.runs.start(root: "/lib", at: Date(timeIntervalSince1970: 1_700_000_000)) }
        let new = try pin("New", at: north(-0.5), runID: run)
        try photo("maker.jpg", at: north(-0.5), decision: .accepted, pin: new, runID: run)
        try photo("next.jpg", at: north(-0.6), taken: "2024-05-03T12:00:00Z", runID: run)
        try db.write {
            try $0.runs.finish(ImportRunRecord(id: run, root: "/lib", startedAt: Date(timeIntervalSince1970: 1_700_000_000),
                                                finishedAt: Date(timeIntervalSince1970: 1_700_000_100), status: .completed))
        }
        try db.linkPhotos()
        XCTAssertEqual(try owner("earlier.jpg"), new.lowercasedText)
        XCTAssertEqual(try stored(new).photoCount, 3)
        XCTAssertEqual(try stored(new).visitCount, 2, "May 1st and May 3rd: two stays")
        _ = try db.undoRun(run, service: service, dryRun: false)
        XCTAssertEqual(try owner("earlier.jpg"), old.lowercasedText)
        XCTAssertEqual(try stored(old).photoCount, 1)
    }

    func testUndoingARunThatMadeNoPinRecountsTheVisitsOfThePinItsPhotosJoined() throws {
        let old = try pin("Old", at: here)
        try photo("first.jpg", at: here, taken: "2024-05-01T12:00:00Z")
        let run = try db.write { try $0.runs.start(root: "/lib", at: Date(timeIntervalSince1970: 1_700_000_000)) }
        try photo("return.jpg", at: north(1), taken: "2025-05-01T12:00:00Z", runID: run)
        try db.write {
            try $0.runs.finish(ImportRunRecord(id: run, root: "/lib", startedAt: Date(timeIntervalSince1970: 1_700_000_000),
                                                finishedAt: Date(timeIntervalSince1970: 1_700_000_100), status: .completed))
        }
        try db.linkPhotos()
        XCTAssertEqual(try stored(old).visitCount, 2)
        _ = try db.undoRun(run, service: service, dryRun: false)
        XCTAssertEqual(try stored(old).visitCount, 1)
        XCTAssertEqual(try stored(old).photoCount, 1)
    }

    // MARK: visits

    func visits(_ photos: [(iso: String, offset: Int?)]) throws -> Int {
        let id = try pin("Florence", at: here)
        for (n, p) in photos.enumerated() { try photo("\(n).jpg", at: north(0.1), taken: p.iso, offset: p.offset) }
        try db.linkPhotos()
        return try stored(id).visitCount
    }

    func testAReturnAYearLaterIsASecondVisit() throws {
        XCTAssertEqual(try visits([("2024-05-01T09:00:00Z", nil), ("2024-05-01T17:00:00Z", nil), ("2025-05-01T10:00:00Z", nil)]), 2)
    }

    func testConsecutiveDaysAreOneVisitAndADayWithoutPhotosEndsOne() throws {
        XCTAssertEqual(try visits([("2024-05-01T09:00:00Z", nil), ("2024-05-02T09:00:00Z", nil), ("2024-05-03T09:00:00Z", nil)]), 1)
        try setUpWithError()
        XCTAssertEqual(try visits([("2024-05-01T09:00:00Z", nil), ("2024-05-03T09:00:00Z", nil)]), 2)
    }

    func testTheDayIsThePhotosLocalDate() throws {
        // 2024-05-02T23:30Z at +02:00 is May 3rd, 01:30 local: two days after May 1st, a new stay.
        XCTAssertEqual(try visits([("2024-05-01T12:00:00Z", 0), ("2024-05-02T23:30:00Z", 7200)]), 2)
        try setUpWithError()
        // Without an offset the day is UTC's: May 2nd, the next day, the same stay.
        XCTAssertEqual(try visits([("2024-05-01T12:00:00Z", 0), ("2024-05-02T23:30:00Z", nil)]), 1)
    }

    func testAVisitCountGivenByHandStands() throws {
        let id = try pin("Florence", at: here)
        var edit = LocationEdit()
        edit.visitCount = 7
        try service.save(try edit.applied(to: try stored(id)), using: db)
        try photo("a.jpg", at: north(0.1), taken: "2024-05-01T12:00:00Z")
        try photo("b.jpg", at: north(0.1), taken: "2025-05-01T12:00:00Z")
        try db.linkPhotos()
        XCTAssertEqual(try stored(id).visitCount, 7)
        XCTAssertTrue(try stored(id).visitsByHand)
        XCTAssertEqual(try stored(id).photoCount, 2)
    }

    // MARK: an import's own links (`RunPhotoLinks`)

    /// An import's deferred writes save two photos at Alpha, on May 1st and 3rd 2024 (two
    /// stays), then its last write is given the run's links. They are made to say three stays
    /// where the records say two, so that the count tells which was used: the run's links when the first deferred write found no photo with
    /// a position and no other connection wrote since; else the linking pass, from the records.
    func importsLastWrite(photosBefore: Bool = false, between: (() throws -> Void)? = nil) throws -> (alpha: UUID, visits: Int) {
        let alpha = try pin("Alpha", at: here)
        if photosBefore { try photo("earlier.jpg", at: north(30), decision: .noLocation) ; try photo("old.jpg", at: north(30)) }
        db.defersPhotoLinks = true
        for (name, day) in [("a.jpg", "2024-05-01"), ("b.jpg", "2024-05-03")] {
            try db.write { repos in
                var record = PhotoRecord(path: RawPath("/lib/\(name)"), fingerprint: PhotoFingerprint(size: 1, modificationNanoseconds: 2, inode: 3),
                                         takenAt: ISO8601DateFormatter().date(from: day + "T12:00:00Z"), coordinate: north(0.1), decision: .distance)
                record.pinID = alpha
                try repos.photos.save(record, runID: nil)
            }
            if name == "a.jpg" { try between?() }
        }
        db.defersPhotoLinks = false
        db.runLinks = RunPhotoLinks(visits: [alpha: 3], linked: 2)
        try db.write { _ in }
        XCTAssertFalse(try PhotoLinks.isStale(db.connection))
        XCTAssertNil(db.runLinks, "used once")
        return (alpha, try stored(alpha).visitCount)
    }

    func testAFirstImportsLastWriteCountsTheVisitsFromTheRunsLinks() throws {
        XCTAssertEqual(try importsLastWrite().visits, 3)
    }

    func testAnImportsLastWriteLinksAgainWhenPhotosWithAPositionWereRecordedBefore() throws {
        XCTAssertEqual(try importsLastWrite(photosBefore: true).visits, 2)
    }

    func testAnImportsLastWriteLinksAgainWhenAnotherConnectionWroteDuringTheRun() throws {
        var bravo: UUID?
        let result = try importsLastWrite(between: {
            // Another process makes a pin 0.1 km from the photos, between the run's batches.
            let other = try PinDatabase(path: self.db.connection.path)
            bravo = try self.creation.create(LocationDraft(title: "Bravo", coordinate: self.north(0.1), date: Date(timeIntervalSince1970: 1_700_000_000)),
                                             using: other).id
        })
        XCTAssertEqual(try owner("a.jpg"), bravo?.lowercasedText, "the pass's link: the nearer pin")
        XCTAssertEqual(try owner("b.jpg"), bravo?.lowercasedText)
        XCTAssertEqual(result.visits, 1, "Alpha has no photo left")
        XCTAssertEqual(try stored(try XCTUnwrap(bravo)).visitCount, 2)
    }

    func testStaysOfDayNumbers() {
        XCTAssertEqual(Visits.stays([]), 0)
        XCTAssertEqual(Visits.stays([5, 5, 5]), 1)
        XCTAssertEqual(Visits.stays([7, 5, 6]), 1)
        XCTAssertEqual(Visits.stays([1, 3, 4, 10]), 3)
        // 1970-01-01T23:59:59-01:00 is 1970-01-02T00:59:59Z: day 0 locally, day 1 in UTC.
        XCTAssertEqual(Visits.localDay(86_399 + 3600, offsetSeconds: -3600), 0)
        XCTAssertEqual(Visits.localDay(86_399 + 3600, offsetSeconds: nil), 1)
        XCTAssertEqual(Visits.localDay(-1, offsetSeconds: nil), -1)
    }

    func testStaysKeptAsSpansInAnyOrder() {
        var stays = Visits.Stays()
        for day in [20, 10, 15, 11] { stays.add(day) }
        XCTAssertEqual(stays.spans, [10...11, 15...15, 20...20])
        // 12 follows 11; 14 is two days after 12 and joins 15; 13 then joins all of 10...15.
        stays.add(12)
        XCTAssertEqual(stays.spans, [10...12, 15...15, 20...20])
        stays.add(14)
        XCTAssertEqual(stays.spans, [10...12, 14...15, 20...20])
        stays.add(13)
        XCTAssertEqual(stays.spans, [10...15, 20...20])
        XCTAssertEqual(stays.count, 2)
        // In order: the same day, the next day, a gap of one day.
        var inOrder = Visits.Stays()
        for day in [1, 1, 2, 4, 4, 5, 9] { inOrder.add(day) }
        XCTAssertEqual(inOrder.spans, [1...2, 4...5, 9...9])
        // Another pin's stays taken in: {1, 2, 4, 5, 9} and {3, 7, 12} are 1...5, 7, 9, 12.
        var other = Visits.Stays()
        for day in [12, 3, 7] { other.add(day) }
        inOrder.add(other)
        XCTAssertEqual(inOrder.spans, [1...5, 7...7, 9...9, 12...12])
        XCTAssertEqual(Visits.Stays().count, 0)
    }

    func testStaysEqualTheRuleOnShuffledDays() {
        // The rule, worked out the plain way: sort, count the gaps of more than one day.
        func rule(_ days: [Int]) -> Int {
            let sorted = days.sorted()
            return sorted.isEmpty ? 0 : 1 + zip(sorted, sorted.dropFirst()).filter { $1 - $0 > 1 }.count
        }
        var generator = SeededGenerator(state: 39)
        for _ in 0..<500 {
            let days = (0..<Int.random(in: 0...40, using: &generator)).map { _ in Int.random(in: -20...60, using: &generator) }
            var stays = Visits.Stays()
            for day in days { stays.add(day) }
            XCTAssertEqual(stays.count, rule(days), "\(days)")
            let split = days.count / 2
            var first = Visits.Stays(), second = Visits.Stays()
            for day in days[..<split] { first.add(day) }
            for day in days[split...] { second.add(day) }
            second.add(first)
            XCTAssertEqual(second.count, rule(days), "\(days) in two")
        }
    }

    // MARK: migration

    func testPhotosRecordedBeforeAreLinkedOnMigration() throws {
        let path = try temporaryDatabasePath(self)
        do {
            let old = try PinDatabase(path: path, migrateUpTo: 9)
            try old.connection.execute("""
                INSERT INTO locations (id, title, latitude, longitude, type, date, color, visit_count, photo_ids, created_at)
                VALUES ('00000000-0000-0000-0000-000000000001', 'Made', 45.0, 5.0, 'point', 0, '#E53935', 1, '[]', 0),
                       ('00000000-0000-0000-0000-000000000002', 'Counted', 46.0, 5.0, 'point', 0, '#E53935', 3, '[]', 1);
                INSERT INTO photos (path, size, mtime_ns, inode, taken_at, latitude, longitude, decision, location_id)
                VALUES (X'2F612E6A7067', 1, 1, 1, 1714564800, 45.0, 5.0, 'accepted', '00000000-0000-0000-0000-000000000001'),
                       (X'2F622E6A7067', 1, 1, 1, 1746100800, 45.01, 5.0, 'distance', NULL),
                       (X'2F632E6A7067', 1, 1, 1, 1714564800, 46.01, 5.0, 'interval', NULL),
                       (X'2F642E6A7067', 1, 1, 1, 1714564800, 47.0, 5.0, 'distance', NULL);
                """)
        }
        let db = try PinDatabase(path: path)
        let links = try db.connection.query("SELECT p.path, l.id FROM photos p LEFT JOIN locations l ON l.rowid = p.pin ORDER BY p.path") { (String(decoding: $0.blob(0), as: UTF8.self), $0.optionalString(1)) }
        XCTAssertEqual(links.map(\.0), ["/a.jpg", "/b.jpg", "/c.jpg", "/d.jpg"])
        XCTAssertEqual(links.map(\.1), ["00000000-0000-0000-0000-000000000001", "00000000-0000-0000-0000-000000000001",
                                        "00000000-0000-0000-0000-000000000002", nil])
        let pins = try db.read { try $0.locations.fetchAll(countryID: nil) }
        // Made: 2024-05-01 and 2025-05-01, two stays. Counted: 3 was a person's, it stands.
        XCTAssertEqual(pins.map(\.visitCount), [2, 3])
        XCTAssertEqual(pins.map(\.visitsByHand), [false, true])
        XCTAssertEqual(pins.map(\.photoCount), [2, 1])
    }

    /// Schema 18 keeps a photo's pin by the pin's row, not its id's text: a database of schema 17
    /// (links in `pin_id`, as that schema's pins left them) keeps every link, copied through the
    /// id and not decided again: b.jpg stays with North, 4.9 km away, though South is 4.8 km.
    func testLinksStoredByIdAreKeptWhenTheyMoveToThePinsRow() throws {
        let path = try temporaryDatabasePath(self)
        let north = "00000000-0000-0000-0000-00000000000a", south = "00000000-0000-0000-0000-00000000000b"
        do {
            let old = try PinDatabase(path: path, migrateUpTo: 17)
            let (n, s) = (here.latitude + 4.9 * Self.degreesPerKm, here.latitude - 4.8 * Self.degreesPerKm)
            try old.connection.execute("""
                INSERT INTO locations (id, title, latitude, longitude, type, date, color, visit_count, photo_ids, created_at)
                VALUES ('\(south)', 'South', \(s), 5.0, 'point', 0, '#E53935', 1, '[]', 1),
                       ('\(north)', 'North', \(n), 5.0, 'point', 0, '#E53935', 1, '[]', 0);
                INSERT INTO photos (path, size, mtime_ns, inode, taken_at, latitude, longitude, decision, location_id, pin_id)
                VALUES (X'2F612E6A7067', 1, 1, 1, 1714564800, \(n), 5.0, 'accepted', '\(north)', '\(north)'),
                       (X'2F622E6A7067', 1, 1, 1, 1714564800, 45.0, 5.0, 'distance', NULL, '\(north)'),
                       (X'2F632E6A7067', 1, 1, 1, 1714564800, \(s), 5.0, 'accepted', '\(south)', '\(south)'),
                       (X'2F642E6A7067', 1, 1, 1, 1714564800, 47.0, 5.0, 'distance', NULL, NULL);
                DELETE FROM pending_work; -- the note the pins' triggers left: that pins' write had linked
                """)
            XCTAssertEqual(try PhotoLinks.isStale(old.connection), false)
        }
        let db = try PinDatabase(path: path)
        XCTAssertEqual(db.schemaVersion, Migrations.latestVersion)
        XCTAssertEqual(try linkedPin("/a.jpg", in: db), north)
        XCTAssertEqual(try linkedPin("/b.jpg", in: db), north)
        XCTAssertEqual(try linkedPin("/c.jpg", in: db), south)
        XCTAssertNil(try linkedPin("/d.jpg", in: db))
        XCTAssertEqual(try db.connection.query("SELECT name FROM pragma_table_info('photos') WHERE name LIKE 'pin%' ORDER BY name") { $0.string(0) },
                       ["pin"], "the id column is gone")
        XCTAssertEqual(try db.read { try $0.locations.fetchAll(countryID: nil) }.sorted { $0.title < $1.title }.map(\.photoCount), [2, 1])
        XCTAssertEqual(try db.photos(ofPin: UUID(uuidString: north)!).map(\.path.description), ["/a.jpg", "/b.jpg"])
        // Forgetting a linked photo still notes the links for the next write (the trigger moved).
        try db.connection.run("DELETE FROM photos WHERE path = X'2F632E6A7067'")
        XCTAssertTrue(try PhotoLinks.isStale(db.connection))
    }

    /// `pins show` (a pin's photos) and each pin's photo count read the photos of one pin through
    /// the index on the pin's row, not by reading every photo.
    func testAPinsPhotosAreFoundThroughTheIndex() throws {
        let plan = { (sql: String) in try self.db.connection.query("EXPLAIN QUERY PLAN " + sql, ["x"]) { $0.string(3) }.joined(separator: "; ") }
        XCTAssertTrue(try plan("SELECT path FROM photos WHERE pin = (SELECT rowid FROM locations WHERE id = ?)").contains("USING INDEX photos_pin (pin=?)"))
        XCTAssertTrue(try plan("SELECT (SELECT count(*) FROM photos p WHERE p.pin = locations.rowid) FROM locations WHERE id = ?")
            .contains("USING COVERING INDEX photos_pin (pin=?)"))
    }

    func linkedPin(_ path: String, in db: PinDatabase) throws -> String? {
        try db.connection.query("SELECT l.id FROM photos p LEFT JOIN locations l ON l.rowid = p.pin WHERE p.path = ?",
                                [SQLValue.blob(Array(path.utf8))]) { $0.optionalString(0) }.first ?? nil
    }
}

/// An import's page cache (`PinDatabase.importCacheKiB`) holds what one batch of 500 photo
/// records changes in a library of 100,000: at SQLite's default, 2,000 KiB, the batch's pages
/// outgrow it and SQLite writes them to the WAL before the commit (a cache spill).
final class ImportCacheTests: XCTestCase {
    func testABatchInALargeLibraryStaysInTheImportsPageCache() throws {
        let db = try PinDatabase(path: try temporaryDatabasePath(self))
        // Records as the bench library's (scripts/gen-library --small): paths in walk order,
        // sizes and digests all over photos_identity, a pin each (rows of 1,000 pins).
        func records(_ from: Int, _ to: Int) -> String {
            """
            WITH RECURSIVE n(k) AS (SELECT \(from) UNION ALL SELECT k + 1 FROM n WHERE k < \(to))
            INSERT INTO photos (path, size, mtime_ns, inode, digest, decision, latitude, longitude, taken_at, pin)
            SELECT CAST(printf('/library/%07d.jpg', k) AS BLOB), 300 + abs(random()) % 200, k, k, lower(hex(randomblob(16))),
                   'distance', 45 + (k % 1000) / 1000.0, 5, 1.7e9 + k, 1 + abs(random()) % 1000 FROM n
            """
        }
        try db.connection.transaction { try db.connection.run(records(1, 100_000)) }
        let before = db.connection.cacheSpills
        try db.write { _ in try db.connection.run(records(100_001, 100_500)) }
        XCTAssertGreaterThan(db.connection.cacheSpills - before, 0, "at 2,000 KiB the batch spills")
        try db.useImportCache()
        try db.write { _ in try db.connection.run(records(100_501, 101_000)) }  // the cache fills again
        let filled = db.connection.cacheSpills
        try db.write { _ in try db.connection.run(records(101_001, 101_500)) }
        XCTAssertEqual(db.connection.cacheSpills - filled, 0, "at \(PinDatabase.importCacheKiB) KiB it does not")
    }
}
