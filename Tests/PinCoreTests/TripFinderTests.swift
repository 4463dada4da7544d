import XCTest
@testable import PinCore

/// The trip rule (README "Trips") on hand-worked timelines. Places and distances, checked by
/// hand: Zürich 47.3769,8.5417 and Milan 45.4642,9.1900 are 217 km apart; Edinburgh 55.9533,-3.1883
/// is 1,230 km from Zürich; Barcelona 41.3874,2.1686 is 725 km from Milan; Berlin
/// 52.5200,13.4050 is 670 km from Zürich; Paris 48.8566,2.3522 is 490 km from Zürich.
final class TripFinderTests: XCTestCase {
    let zurich = Coordinate(latitude: 47.3769, longitude: 8.5417)
    let winterthur = Coordinate(latitude: 47.4988, longitude: 8.7237) // 19 km from Zürich: still home
    let milan = Coordinate(latitude: 45.4642, longitude: 9.1900)
    let edinburgh = Coordinate(latitude: 55.9533, longitude: -3.1883)
    let glasgow = Coordinate(latitude: 55.8642, longitude: -4.2518)
    let barcelona = Coordinate(latitude: 41.3874, longitude: 2.1686)
    let berlin = Coordinate(latitude: 52.5200, longitude: 13.4050)
    let paris = Coordinate(latitude: 48.8566, longitude: 2.3522)
    let now = Date(timeIntervalSince1970: 1_800_000_000) // 2027-01-15

    func day(_ text: String) -> LocalDay { LocalDay(text: text)! }

    /// A point at noon local time (offset +01:00 unless given) on `date`.
    func at(_ date: String, _ c: Coordinate, _ country: String?, place: String? = nil, hour: Int = 12,
            offset: Int? = 3600, pin: Bool = true) -> TripPoint {
        let seconds = Double(day(date).number * 86_400 + hour * 3600 - (offset ?? 0))
        return TripPoint(instant: Date(timeIntervalSince1970: seconds), utcOffsetSeconds: offset, coordinate: c,
                         country: country, place: place, pinID: pin ? UUID() : nil)
    }

    /// Home in Zürich every day from `from` to `to` except the days listed.
    func homeDays(_ from: String, _ to: String, except: Set<String> = []) -> [TripPoint] {
        (day(from).number...day(to).number).map(LocalDay.init).filter { !except.contains($0.description) }
            .map { at($0.description, $0.number % 2 == 0 ? zurich : winterthur, "CH", place: "Zürich", pin: false) }
    }

    func find(_ points: [TripPoint], home: Coordinate? = nil, names: [TripName] = []) -> TripTimeline {
        TripFinder(home: home, names: names, now: now, countryName: { ["IT": "Italy", "GB": "United Kingdom", "ES": "Spain",
                                                                        "CH": "Switzerland", "FR": "France", "DE": "Germany",
                                                                        "FJ": "Fiji"][$0] ?? $0 }).find(points)
    }

    func testLocalDayIsTheDateInThePointsOwnOffsetAndTheUTCDateWithoutOne() {
        // 2024-04-03T23:30Z: 2024-04-04 in +02:00, 2024-04-03 in UTC or with no offset.
        let instant = Date(timeIntervalSince1970: 1_712_187_000)
        XCTAssertEqual(LocalDay(instant, offsetSeconds: 7200).description, "2024-04-04")
        XCTAssertEqual(LocalDay(instant, offsetSeconds: nil).description, "2024-04-03")
        XCTAssertEqual(LocalDay(instant, offsetSeconds: -36_000).description, "2024-04-03")
        XCTAssertEqual(LocalDay(text: "1969-12-31")?.number, -1)
        XCTAssertEqual(LocalDay(text: "2024-02-29")?.description, "2024-02-29")
        XCTAssertNil(LocalDay(text: "2023-02-29"))
    }

    func testAWeekendAwayIsATripOfTwoDays() {
        // Saturday 2024-06-08 and Sunday 2024-06-09 in Milan; home all month otherwise.
        let points = homeDays("2024-06-01", "2024-06-30", except: ["2024-06-08", "2024-06-09"])
            + [at("2024-06-08", milan, "IT", place: "Milan"), at("2024-06-09", milan, "IT", place: "Milan")]
        let timeline = find(points)
        XCTAssertEqual(timeline.trips.count, 1)
        let trip = timeline.trips[0]
        XCTAssertEqual(trip.id, "2024-06-08")
        XCTAssertEqual(trip.end.description, "2024-06-09")
        XCTAssertEqual(trip.days, 2)
        XCTAssertEqual(trip.countries, ["IT"])
        XCTAssertEqual(trip.places, ["Milan"])
        XCTAssertEqual(trip.pinIDs.count, 2)
        XCTAssertEqual(trip.title, "Italy, June 2024")
        XCTAssertEqual(timeline.homes.count, 1)
        XCTAssertEqual(timeline.homes[0].country, "CH")
        XCTAssertEqual(timeline.homes[0].place, "Zürich")
        XCTAssertLessThan(AngularDistance.kilometres(timeline.homes[0].centre, zurich), 20)
    }

    func testOneDayAwayIsNoTrip() {
        let points = homeDays("2024-06-01", "2024-06-30", except: ["2024-06-08"]) + [at("2024-06-08", milan, "IT")]
        XCTAssertEqual(find(points).trips, [])
    }

    func testALongTripWithADayBackHomeInsideItIsOneTrip() {
        // Scotland 10-16 July, home on the 17th, Scotland again 18-21: one journey (a shared country).
        let away = ["2024-07-10", "2024-07-11", "2024-07-12", "2024-07-13", "2024-07-14", "2024-07-15", "2024-07-16",
                    "2024-07-18", "2024-07-19", "2024-07-20", "2024-07-21"]
        let points = homeDays("2024-06-01", "2024-08-31", except: Set(away))
            + away.enumerated().map { at($0.element, $0.offset % 2 == 0 ? edinburgh : glasgow, "GB", offset: 3600) }
        let trips = find(points).trips
        XCTAssertEqual(trips.map(\.id), ["2024-07-10"])
        XCTAssertEqual(trips.first?.end.description, "2024-07-21")
        XCTAssertEqual(trips.first?.days, 12)
        XCTAssertEqual(trips.first?.awayDays, 11)
        XCTAssertEqual(trips.first?.title, "United Kingdom, July 2024")
    }

    func testTwoTripsADayApartAreTwoTrips() {
        // Milan 1-4 May, home on the 5th, Barcelona 6-9 May: no shared country, 725 km apart.
        let italy = ["2024-05-01", "2024-05-02", "2024-05-03", "2024-05-04"]
        let spain = ["2024-05-06", "2024-05-07", "2024-05-08", "2024-05-09"]
        let points = homeDays("2024-04-01", "2024-05-31", except: Set(italy + spain))
            + italy.map { at($0, milan, "IT") } + spain.map { at($0, barcelona, "ES") }
        let trips = find(points).trips
        XCTAssertEqual(trips.map(\.id), ["2024-05-01", "2024-05-06"])
        XCTAssertEqual(trips.map(\.days), [4, 4])
        XCTAssertEqual(trips.map(\.title), ["Italy, May 2024", "Spain, May 2024"])
    }

    func testDaysWithoutAnyPointInsideATripDoNotEndIt() {
        // Milan 1-4 May, nothing on the 5th and 6th, Barcelona 7-9: one journey of 9 days.
        let italy = ["2024-05-01", "2024-05-02", "2024-05-03", "2024-05-04"]
        let spain = ["2024-05-07", "2024-05-08", "2024-05-09"]
        let points = homeDays("2024-04-01", "2024-05-31", except: Set(italy + spain + ["2024-05-05", "2024-05-06"]))
            + italy.map { at($0, milan, "IT") } + spain.map { at($0, barcelona, "ES") }
        let trips = find(points).trips
        XCTAssertEqual(trips.map(\.id), ["2024-05-01"])
        XCTAssertEqual(trips.first?.days, 9)
        XCTAssertEqual(trips.first?.countries, ["IT", "ES"])
        // Italy 4 days, Spain 3: Italy first.
        XCTAssertEqual(trips.first?.title, "Italy and Spain, May 2024")
    }

    func testThreeEmptyDaysEndATrip() {
        let points = homeDays("2024-04-01", "2024-05-31", except: ["2024-05-01", "2024-05-02", "2024-05-03", "2024-05-04", "2024-05-05", "2024-05-06", "2024-05-07"])
            + [at("2024-05-01", milan, "IT"), at("2024-05-02", milan, "IT"), at("2024-05-06", milan, "IT"), at("2024-05-07", milan, "IT")]
        XCTAssertEqual(find(points).trips.map(\.id), ["2024-05-01", "2024-05-06"])
    }

    func testATripAcrossTheDateLineIsOneTripInLocalDates() {
        // Home in Zürich; Fiji (Suva, +12:00) on 1-4 March 2024 local, then Taveuni across the
        // 180th meridian (lon -179.97, still Fiji) 5-6 March: the day centres of points either
        // side of ±180 stay on the line, and the trip is one, in local dates.
        let suva = Coordinate(latitude: -18.1416, longitude: 178.4415)
        let taveuniEast = Coordinate(latitude: -16.8500, longitude: -179.9700)
        let taveuniWest = Coordinate(latitude: -16.8400, longitude: 179.9800)
        var points = homeDays("2024-02-01", "2024-03-31", except: ["2024-03-01", "2024-03-02", "2024-03-03", "2024-03-04", "2024-03-05", "2024-03-06"])
        for d in ["2024-03-01", "2024-03-02", "2024-03-03", "2024-03-04"] { points.append(at(d, suva, "FJ", place: "Suva", offset: 43_200)) }
        for d in ["2024-03-05", "2024-03-06"] {
            points.append(at(d, taveuniEast, "FJ", place: "Taveuni", hour: 9, offset: 43_200))
            points.append(at(d, taveuniWest, "FJ", place: "Taveuni", hour: 15, offset: 43_200))
        }
        let trips = find(points).trips
        XCTAssertEqual(trips.map(\.id), ["2024-03-01"])
        XCTAssertEqual(trips.first?.end.description, "2024-03-06")
        XCTAssertEqual(trips.first?.places, ["Suva", "Taveuni"])
        XCTAssertEqual(trips.first?.title, "Fiji, March 2024")
        XCTAssertEqual(Spherical.centre(of: [taveuniEast, taveuniWest]).longitude.magnitude, 180, accuracy: 0.05)
    }

    func testAHomeOnTheDateLineIsOneHome() {
        // Living on Taveuni, on both sides of the 180th meridian: never away (a mean of
        // longitudes would put home at 0°, in the Gulf of Guinea, and every day away).
        let east = Coordinate(latitude: -16.85, longitude: -179.97), west = Coordinate(latitude: -16.84, longitude: 179.98)
        let points = (0..<60).map { i in
            at(LocalDay(day("2024-01-01").number + i).description, i % 2 == 0 ? east : west, "FJ", offset: 43_200)
        }
        let timeline = find(points)
        XCTAssertEqual(timeline.trips, [])
        XCTAssertEqual(timeline.homes.count, 1)
        XCTAssertEqual(timeline.homes[0].centre.longitude.magnitude, 180, accuracy: 0.05)
    }

    func testAMoveGivesTwoHomesAndAVisitToTheOldHomeIsATrip() {
        // Zürich all of 2022 (a Paris trip 10-12 June), Berlin all of 2023 (back in Zürich 14-16 July).
        var points: [TripPoint] = []
        for n in day("2022-01-01").number...day("2022-12-31").number {
            let d = LocalDay(n).description
            points.append(["2022-06-10", "2022-06-11", "2022-06-12"].contains(d) ? at(d, paris, "FR") : at(d, zurich, "CH", place: "Zürich"))
        }
        for n in day("2023-01-01").number...day("2023-12-31").number {
            let d = LocalDay(n).description
            points.append(["2023-07-14", "2023-07-15", "2023-07-16"].contains(d) ? at(d, zurich, "CH", place: "Zürich") : at(d, berlin, "DE", place: "Berlin"))
        }
        let timeline = find(points)
        XCTAssertEqual(timeline.homes.map(\.place), ["Zürich", "Berlin"])
        XCTAssertEqual(timeline.homes.map(\.from.description), ["2022-01-01", "2023-01-01"])
        XCTAssertEqual(timeline.trips.map(\.id), ["2022-06-10", "2023-07-14"])
        XCTAssertEqual(timeline.trips.map(\.title), ["France, June 2022", "Switzerland, July 2023"])
        // Switzerland was visited before: not new on the second trip; France was new.
        XCTAssertEqual(timeline.trips.map(\.newCountries), [["FR"], []])
        // Days abroad: the Paris days in 2022, the Zürich days in 2023 (home was Germany).
        XCTAssertEqual(timeline.daysAbroadByYear, [2022: 3, 2023: 3])
        XCTAssertEqual(timeline.daysByCountryAndYear["CH"], [2022: 362, 2023: 3])
        XCTAssertEqual(timeline.daysByYear, [2022: 365, 2023: 365])
    }

    func testTravelPhotosAloneKeepOneHomeThePlaceWithTheMostDays() {
        // No photo at home: three days in Paris, two in Milan, two in Barcelona over a year.
        // Paris has the most days: it stays home, and the others are trips from it.
        let points = [at("2023-03-01", paris, "FR"), at("2023-03-02", paris, "FR"), at("2023-09-09", paris, "FR"),
                      at("2023-05-01", milan, "IT"), at("2023-05-02", milan, "IT"),
                      at("2023-11-01", barcelona, "ES"), at("2023-11-02", barcelona, "ES")]
        let timeline = find(points)
        XCTAssertEqual(timeline.homes.count, 1)
        XCTAssertLessThan(AngularDistance.kilometres(timeline.homes[0].centre, paris), 1)
        XCTAssertEqual(timeline.trips.map(\.title), ["Italy, May 2023", "Spain, November 2023"])
    }

    func testAHomeThePersonSetHoldsForEveryDay() {
        // Set home in Milan: the weeks in Zürich become one long trip.
        let points = homeDays("2024-06-01", "2024-06-10")
        let timeline = find(points, home: milan)
        XCTAssertEqual(timeline.homes.map(\.isSet), [true])
        XCTAssertEqual(timeline.trips.map(\.id), ["2024-06-01"])
        XCTAssertEqual(timeline.trips.first?.days, 10)
    }

    func testADomesticTripIsNamedAfterItsPlace() {
        // Lugano (CH) is 156 km from Zürich: a trip inside home's country is named by its place.
        let lugano = Coordinate(latitude: 46.0037, longitude: 8.9511)
        let points = homeDays("2024-09-01", "2024-10-31", except: ["2024-09-30", "2024-10-01"])
            + [at("2024-09-30", lugano, "CH", place: "Lugano"), at("2024-10-01", lugano, "CH", place: "Lugano")]
        XCTAssertEqual(find(points).trips.map(\.title), ["Lugano, September–October 2024"])
    }

    func testDatesInTheFarPastOrFutureAreReportedNotMadeATrip() {
        let future = TripPoint(instant: now.addingTimeInterval(86_400 * 30), utcOffsetSeconds: 0, coordinate: milan, country: "IT")
        let past = TripPoint(instant: Date(timeIntervalSince1970: -3_000_000_000), utcOffsetSeconds: 0, coordinate: milan, country: "IT")
        let future2 = TripPoint(instant: now.addingTimeInterval(86_400 * 31), utcOffsetSeconds: 0, coordinate: milan, country: "IT")
        let timeline = find(homeDays("2024-06-01", "2024-06-30") + [future, past, future2])
        XCTAssertEqual(timeline.trips, [])
        XCTAssertEqual(timeline.outOfRange.count, 3)
    }

    func testARenamedTripKeepsItsNameWhenTheDataChanges() {
        let base = homeDays("2024-06-01", "2024-06-30", except: ["2024-06-08", "2024-06-09", "2024-06-10"])
        let weekend = [at("2024-06-08", milan, "IT"), at("2024-06-09", milan, "IT")]
        let name = TripName(start: day("2024-06-08"), end: day("2024-06-09"), name: "Nonna's birthday")
        XCTAssertEqual(find(base + weekend, names: [name]).trips.map(\.title), ["Nonna's birthday"])
        // A later import adds a third day: the trip grows and keeps the name.
        let grown = find(base + weekend + [at("2024-06-10", milan, "IT")], names: [name]).trips
        XCTAssertEqual(grown.map(\.title), ["Nonna's birthday"])
        XCTAssertEqual(grown.map(\.renamed), [true])
        XCTAssertEqual(grown.first?.days, 3)
    }

    func testTitlesOfMonthsAcrossAYear() {
        XCTAssertEqual(TripTitle.monthSpan(day("2023-12-28"), day("2024-01-03")), "December 2023–January 2024")
        XCTAssertEqual(TripTitle.monthSpan(day("2024-04-28"), day("2024-05-03")), "April–May 2024")
    }
}
