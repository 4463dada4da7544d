import Foundation
import XCTest
@testable import PinFormats

/// The parse of Google's timeline structures that the track reader and `import-places` share:
/// what the file wrote, as plain values (the keys as Fixtures/places/google and the
/// TrackReaderTests cite them from the public descriptions).
final class GoogleTimelineParseTests: XCTestCase {
    func testPlacesWrittenInEachForm() throws {
        XCTAssertEqual(GoogleTimelineParse.latLng("48.8566°, 2.3522°").map { [$0.0, $0.1] }, [48.8566, 2.3522])
        XCTAssertEqual(GoogleTimelineParse.latLng("geo:35.0116,135.7681").map { [$0.0, $0.1] }, [35.0116, 135.7681])
        XCTAssertEqual(GoogleTimelineParse.latLng("-33.8567, 151.2153").map { [$0.0, $0.1] }, [-33.8567, 151.2153])
        // Unchecked: a reader decides what is out of range.
        XCTAssertEqual(GoogleTimelineParse.latLng("95°, 200°").map { [$0.0, $0.1] }, [95, 200])
        XCTAssertNil(GoogleTimelineParse.latLng("48.85°"))
        XCTAssertNil(GoogleTimelineParse.latLng("48.85°, east"))
    }

    /// The byte path takes the common forms; every other form goes to the Foundation path, whose
    /// reading of them (hand-worked here) stays: commas omitted when empty, the sign anywhere,
    /// an exponent, white space other than spaces and tabs.
    func testPlacesInRarerFormsReadAsBefore() {
        func pair(_ s: String) -> [Double]? { GoogleTimelineParse.latLng(s).map { [$0.0, $0.1] } }
        func quick(_ s: String) -> [Double]? {
            Array(s.utf8).withUnsafeBufferPointer(GoogleTimelineParse.plainLatLng).map { [$0.0, $0.1] }
        }
        XCTAssertEqual(quick("48.8566°, 2.3522°"), [48.8566, 2.3522])
        XCTAssertEqual(quick("geo:35.0116,135.7681"), [35.0116, 135.7681])
        XCTAssertEqual(quick(" \t-33.8567 ,\t+151.2153° "), [-33.8567, 151.2153])
        // A degree sign inside a number is not LatLonPair's form: the Foundation path removes it.
        XCTAssertNil(quick("4°8.5, 2"))
        XCTAssertEqual(pair("4°8.5, 2"), [48.5, 2])
        XCTAssertEqual(quick("48.5 ° ,2"), [48.5, 2])
        for other in [",48.5,2", "48.5,,2", "4.85e1, 2", "48.5\u{A0}, 2", "48.5\n, 2", "geo:48.5", "48.5°\u{301}, 2", "., 2"] {
            XCTAssertNil(quick(other), other)
        }
        XCTAssertEqual(pair(",48.5,2"), [48.5, 2], "split omits empty parts")
        XCTAssertEqual(pair("48.5,,2"), [48.5, 2])
        XCTAssertEqual(pair("4.85e1, 2"), [48.5, 2])
        XCTAssertEqual(pair("48.5\u{A0}, 2"), [48.5, 2], "no-break space is white space")
        XCTAssertNil(pair("48.5\n, 2"), "a newline is not")
        XCTAssertNil(pair("., 2"))
    }

    func testAPlaceVisitAsWritten() throws {
        let json = """
        {"timelineObjects": [{"placeVisit": {"location": {"latitudeE7": "488583701", "longitudeE7": 22944813, "placeId": "ChIJ",
          "name": "Eiffel Tower", "address": 7}, "duration": {"startTimestampMs": "1e300", "endTimestamp": "2019-04-01T10:02:00.000Z"},
          "centerLatE7": 488583000.5, "otherCandidateLocations": [{"latitudeE7": 1}]}, "activitySegment": {}}]}
        """
        let r = JSONReader(input: MemoryInput(json, chunk: 4))
        XCTAssertEqual(try r.next(), .objectStart)
        XCTAssertEqual(try r.next(), .key)
        XCTAssertEqual(try r.next(), .arrayStart)
        XCTAssertEqual(try r.next(), .objectStart)
        let visit = try XCTUnwrap(GoogleTimelineParse.timelineObject(r))
        XCTAssertEqual(visit.latitudeE7, .init(text: "488583701", int64: 488_583_701, double: 488_583_701))
        XCTAssertEqual(visit.longitudeE7, .init(text: "22944813", int64: 22_944_813, double: 22_944_813))
        XCTAssertEqual(visit.centerLatE7, .init(text: "488583000.5", int64: nil, double: 488_583_000.5))
        XCTAssertNil(visit.centerLngE7)
        XCTAssertEqual(visit.placeID, "ChIJ")
        XCTAssertEqual(visit.name, "Eiffel Tower")
        XCTAssertNil(visit.address, "a number is not an address")
        XCTAssertEqual(visit.startTimestampMs, .init(text: "1e300", int64: nil, double: 1e300))
        XCTAssertNil(visit.startTimestamp)
        XCTAssertEqual(visit.endTimestamp, "2019-04-01T10:02:00.000Z")
        // The element was read to its end: the array closes next.
        XCTAssertEqual(try r.next(), .arrayEnd)
    }

    func testASegmentOfThePhonesExport() throws {
        let json = """
        {"startTime": "2024-05-01T09:00:00.000+09:00", "visit": {"topCandidate": {"placeID": "old", "placeId": "ChIJ",
          "semanticType": "INFERRED_HOME", "placeLocation": {"latLng": "35.6585805°, 139.7454329°"}}},
         "activity": {"start": "geo:35.0,135.0", "end": {"LatLng": "34.9°, 135.7°"}},
         "timelinePath": [{"point": "35.66°, 139.73°", "time": "2024-05-01T11:45:00.000+09:00"},
                          {"point": "geo:35.1,135.1", "durationMinutesOffsetFromStartTime": "12"}, 5],
         "endTime": "2024-05-01T11:30:00.000+09:00"}
        """
        func read(readPath: Bool) throws -> (GoogleTimelineParse.Segment, [GoogleTimelineParse.PathPoint]) {
            let r = JSONReader(input: MemoryInput(json, chunk: 7))
            XCTAssertEqual(try r.next(), .objectStart)
            var points: [GoogleTimelineParse.PathPoint] = []
            let segment = try GoogleTimelineParse.segment(r, readPath: readPath) { points.append($0) }
            XCTAssertNil(try r.next(), "the segment was read to its end")
            return (segment, points)
        }
        let (segment, points) = try read(readPath: true)
        XCTAssertEqual(segment.startTime, "2024-05-01T09:00:00.000+09:00")
        XCTAssertEqual(segment.endTime, "2024-05-01T11:30:00.000+09:00")
        XCTAssertEqual(segment.visit?.placeID, "ChIJ", "placeId before the older export's placeID")
        XCTAssertEqual(segment.visit?.semanticType, "INFERRED_HOME")
        XCTAssertEqual(segment.visit?.placeLocation, "35.6585805°, 139.7454329°")
        XCTAssertEqual(segment.activityStart, "geo:35.0,135.0")
        XCTAssertEqual(segment.activityEnd, "34.9°, 135.7°")
        XCTAssertEqual(points.map(\.point), ["35.66°, 139.73°", "geo:35.1,135.1"])
        XCTAssertEqual(points.map(\.time), ["2024-05-01T11:45:00.000+09:00", nil])
        XCTAssertEqual(points.map(\.minutesAfterStart), [nil, 12])
        let (same, none) = try read(readPath: false)
        XCTAssertEqual(same, segment)
        XCTAssertTrue(none.isEmpty)
    }
}
