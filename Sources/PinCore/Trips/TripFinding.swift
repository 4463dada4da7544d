import Foundation

/// Finds home and the trips in a person's points (pins and positioned photos): pure, so the
/// rule is tested on hand-worked timelines. The rule and its constants are `TripRule`'s.
public struct TripFinder: Sendable {
    /// Home as the person set it (`pins settings --home-lat/--home-lon`), for every day;
    /// nil: found from the data, month by month.
    public var home: Coordinate?
    public var names: [TripName]
    /// Country names for titles ("JP" → "Japan").
    var countryName: @Sendable (String) -> String
    /// Points after this (plus a day) are in the future: reported, not made a trip.
    public var now: Date

    public init(home: Coordinate? = nil, names: [TripName] = [], now: Date = Date(),
                countryName: @escaping @Sendable (String) -> String = { $0 }) {
        self.home = home
        self.names = names
        self.now = now
        self.countryName = countryName
    }

    public func find(_ input: [TripPoint]) -> TripTimeline {
        let latest = now.addingTimeInterval(86_400)
        var outOfRange: [TripPoint] = []
        var points: [TripPoint] = []
        points.reserveCapacity(input.count)
        for point in input {
            if point.instant >= TripRule.earliest, point.instant <= latest, point.coordinate.isValid {
                points.append(point)
            } else {
                outOfRange.append(point)
            }
        }
        // By local day, then instant: across the date line local days and instants disagree.
        // Indices sorted on plain keys, then the points moved once (sorting the points
        // themselves moved their strings at every swap: a fifth of the time over 300,000).
        let dayNumbers = points.map { $0.day.number }, instants = points.map { $0.instant.timeIntervalSince1970 }
        let order = points.indices.sorted { (dayNumbers[$0], instants[$0], $0) < (dayNumbers[$1], instants[$1], $1) }
        points = order.map { points[$0] }
        var days = Self.days(of: points)
        let homes = findHomes(&days, points: points)
        for i in days.indices { days[i].classify(points: points) }
        var trips = Self.trips(in: days, points: points, countryName: countryName)
        Self.apply(names, to: &trips)
        var timeline = TripTimeline(homes: homes, trips: trips, outOfRange: outOfRange, daysByYear: [:],
                                    daysAbroadByYear: [:], daysByCountryAndYear: [:])
        Self.count(days, points: points, into: &timeline)
        return timeline
    }
}

/// One day with points, and what the rule says of it.
struct TripDay {
    let day: LocalDay
    /// Indices into the sorted points.
    var points: Range<Int>
    let centre: Coordinate
    var home: Coordinate = Coordinate(latitude: 0, longitude: 0)
    var homeCountry: String?
    /// Points farther than TripRule.awayKm from home.
    var away: [Int] = []
    var awayCentre: Coordinate?
    var awayCountries: Set<String> = []

    var isAway: Bool { !away.isEmpty }

    mutating func classify(points all: [TripPoint]) {
        away = points.filter { AngularDistance.kilometres(all[$0].coordinate, home) > TripRule.awayKm }
        awayCentre = away.isEmpty ? nil : Spherical.centre(of: away.map { all[$0].coordinate })
        awayCountries = Set(away.compactMap { all[$0].country })
    }
}

/// Means on the sphere: the mean of unit vectors, so that points either side of ±180° average
/// to the date line, not to the prime meridian.
public enum Spherical {
    public static func centre(of coordinates: [Coordinate]) -> Coordinate {
        var x = 0.0, y = 0.0, z = 0.0
        for c in coordinates {
            let phi = c.latitude * .pi / 180, lambda = c.longitude * .pi / 180
            x += cos(phi) * cos(lambda)
            y += cos(phi) * sin(lambda)
            z += sin(phi)
        }
        let horizontal = (x * x + y * y).squareRoot()
        // Antipodal points have no mean: the first point stands for them.
        guard horizontal > 1e-12 || abs(z) > 1e-12 else { return coordinates.first ?? Coordinate(latitude: 0, longitude: 0) }
        return Coordinate(latitude: atan2(z, horizontal) * 180 / .pi, longitude: atan2(y, x) * 180 / .pi)
    }
}

extension TripFinder {
    /// Days of points sorted by (local day, instant): each day is a range of them.
    static func days(of points: [TripPoint]) -> [TripDay] {
        var days: [TripDay] = []
        var start = 0
        while start < points.count {
            let day = points[start].day
            var end = start + 1
            while end < points.count, points[end].day == day { end += 1 }
            days.append(TripDay(day: day, points: start..<end,
                                centre: Spherical.centre(of: points[start..<end].map(\.coordinate))))
            start = end
        }
        return days
    }
}

// MARK: home

extension TripFinder {
    /// Sets each day's home and returns the periods. A home the person set holds for every day;
    /// otherwise the days are clustered (a cluster's days lie within TripRule.clusterKm of its
    /// first day's centre) and each month's home is the cluster with the most days in the
    /// months around it (TripRule.homeWindowMonths either side), so a move shows as a new home
    /// from about the month the person moved.
    func findHomes(_ days: inout [TripDay], points: [TripPoint]) -> [HomePeriod] {
        guard let first = days.first, let last = days.last else { return [] }
        if let home {
            let near = points.filter { AngularDistance.kilometres($0.coordinate, home) <= TripRule.awayKm }
            let country = Self.mostCommon(near.compactMap(\.country))
            for i in days.indices { days[i].home = home; days[i].homeCountry = country }
            return [HomePeriod(from: first.day, to: last.day, centre: home, country: country,
                               place: Self.mostCommon(near.compactMap(\.place)), isSet: true)]
        }
        let cluster = Self.clusters(of: days)
        let monthOfDay = days.map { Self.month(of: $0.day) }
        let homeOfMonth = Self.homeByMonth(cluster: cluster.ofDay, months: monthOfDay)
        // Periods: runs of days with the same home cluster.
        var periods: [(cluster: Int, from: Int, to: Int)] = []
        for i in days.indices {
            let c = homeOfMonth[monthOfDay[i]]!
            if let lastPeriod = periods.last, lastPeriod.cluster == c { periods[periods.count - 1].to = i } else { periods.append((c, i, i)) }
        }
        var homes: [HomePeriod] = []
        for period in periods {
            let members = days.indices.filter { cluster.ofDay[$0] == period.cluster }
            let centre = Spherical.centre(of: members.map { days[$0].centre })
            let memberPoints = members.flatMap { Array(points[days[$0].points]) }
            let country = Self.mostCommon(memberPoints.compactMap(\.country))
            for i in period.from...period.to { days[i].home = centre; days[i].homeCountry = country }
            homes.append(HomePeriod(from: days[period.from].day, to: days[period.to].day, centre: centre, country: country,
                                    place: Self.mostCommon(memberPoints.compactMap(\.place)), isSet: false))
        }
        return homes
    }

    /// Leader clustering of the days' centres, in date order.
    static func clusters(of days: [TripDay]) -> (ofDay: [Int], seeds: [Coordinate]) {
        var seeds: [Coordinate] = []
        var index = PinSpatialIndexLite()
        var ofDay: [Int] = []
        ofDay.reserveCapacity(days.count)
        for day in days {
            if let c = index.nearest(to: day.centre, within: TripRule.clusterKm, seeds: seeds) {
                ofDay.append(c)
            } else {
                seeds.append(day.centre)
                index.insert(seeds.count - 1, at: day.centre)
                ofDay.append(seeds.count - 1)
            }
        }
        return (ofDay, seeds)
    }

    /// Months since year 0 (year × 12 + month − 1).
    static func month(of day: LocalDay) -> Int {
        let (y, m, _) = day.date
        return y * 12 + m - 1
    }

    /// For every month from the first to the last, the cluster with the most days within
    /// TripRule.homeWindowMonths either side, when it has at least TripRule.minHomeDays there;
    /// ties keep the previous month's home, then the earlier cluster. Otherwise (a stretch with
    /// few or no days) the home before it stays; before any, the cluster with the most days.
    static func homeByMonth(cluster: [Int], months: [Int]) -> [Int: Int] {
        var perMonth: [Int: [Int: Int]] = [:]
        for (i, m) in months.enumerated() { perMonth[m, default: [:]][cluster[i], default: 0] += 1 }
        guard let firstMonth = months.min(), let lastMonth = months.max() else { return [:] }
        let w = TripRule.homeWindowMonths
        var window: [Int: Int] = [:]
        for m in (firstMonth - w)...min(lastMonth, firstMonth + w - 1) {
            for (c, n) in perMonth[m] ?? [:] { window[c, default: 0] += n }
        }
        var result: [Int: Int] = [:]
        var total: [Int: Int] = [:]
        for c in cluster { total[c, default: 0] += 1 }
        let mostDays = total.max { ($0.value, -$0.key) < ($1.value, -$1.key) }?.key ?? cluster[0]
        var previous: Int? = nil
        for m in firstMonth...lastMonth {
            for (c, n) in perMonth[m + w] ?? [:] { window[c, default: 0] += n }
            for (c, n) in perMonth[m - w - 1] ?? [:] {
                window[c]! -= n
                if window[c] == 0 { window[c] = nil }
            }
            var best = previous
            for (c, n) in window {
                guard let b = best, let bn = window[b] else { best = c; continue }
                if n > bn || (n == bn && c != previous && b != previous && c < b) { best = c }
            }
            let home = best.flatMap { b in window[b].map { $0 >= TripRule.minHomeDays ? b : nil } ?? nil }
                ?? previous ?? mostDays
            result[m] = home
            previous = home
        }
        return result
    }

    static func mostCommon(_ values: [String]) -> String? {
        var counts: [String: Int] = [:]
        var firstSeen: [String: Int] = [:]
        for (i, v) in values.enumerated() {
            counts[v, default: 0] += 1
            if firstSeen[v] == nil { firstSeen[v] = i }
        }
        return counts.max { a, b in a.value != b.value ? a.value < b.value : firstSeen[a.key]! > firstSeen[b.key]! }?.key
    }
}

/// A grid of 0.5° cells over cluster seeds, so that clustering 20 years of days is not a scan
/// of every seed per day. A cell is ~55 km high; a match within 25 km is in the cell or one of
/// its neighbours (longitude cells widen towards the poles, where every seed is checked).
struct PinSpatialIndexLite {
    private var cells: [Int64: [Int]] = [:]
    private static let size = 0.5

    private static func cell(_ c: Coordinate) -> (Int, Int) {
        (Int(saturating: (c.latitude / size).rounded(.down)), Int(saturating: (c.longitude / size).rounded(.down)))
    }

    private static func key(_ lat: Int, _ lon: Int) -> Int64 {
        let wrapped = ((lon % 720) + 720) % 720
        return Int64(lat) << 32 | Int64(wrapped)
    }

    mutating func insert(_ id: Int, at c: Coordinate) {
        let (la, lo) = Self.cell(c)
        cells[Self.key(la, lo), default: []].append(id)
    }

    func nearest(to c: Coordinate, within km: Double, seeds: [Coordinate]) -> Int? {
        let (la, lo) = Self.cell(c)
        // Near the poles a degree of longitude is short: look wider.
        let span = abs(c.latitude) > 60 ? 720 : 1
        var best: (Int, Double)?
        for dla in -1...1 {
            for dlo in span == 1 ? Array(-1...1) : Array(0..<720) {
                let lon = span == 1 ? lo + dlo : dlo
                for id in cells[Self.key(la + dla, lon)] ?? [] {
                    let d = AngularDistance.kilometres(c, seeds[id])
                    if d <= km, best.map({ d < $0.1 || (d == $0.1 && id < $0.0) }) ?? true { best = (id, d) }
                }
            }
        }
        return best?.0
    }
}

// MARK: trips

extension TripFinder {
    /// Runs of away days: a trip goes on across up to TripRule.maxGapDays days at home or
    /// without points; across a day at home only when both sides are one journey (a shared
    /// country other than home's, or centres within TripRule.sameJourneyKm). At least
    /// TripRule.minAwayDays away days.
    static func trips(in days: [TripDay], points: [TripPoint], countryName: (String) -> String) -> [Trip] {
        var runs: [(first: Int, last: Int, away: Int)] = []
        var current: (first: Int, last: Int, away: Int)?
        for i in days.indices where days[i].isAway {
            if let run = current {
                let gap = days[i].day.number - days[run.last].day.number - 1
                let homeBetween = i - run.last > 1
                if gap <= TripRule.maxGapDays && (!homeBetween || sameJourney(days[run.last], days[i])) {
                    current = (run.first, i, run.away + 1)
                    continue
                }
                runs.append(run)
            }
            current = (i, i, 1)
        }
        if let run = current { runs.append(run) }
        var seenCountries = Set<String>()
        var trips: [Trip] = []
        var dayIndex = 0
        for run in runs {
            // Countries seen before the trip, at home or away.
            while dayIndex < run.first {
                for p in points[days[dayIndex].points] { if let c = p.country { seenCountries.insert(c) } }
                dayIndex += 1
            }
            if run.away >= TripRule.minAwayDays {
                trips.append(trip(days[run.first...run.last], away: run.away, points: points,
                                  seen: seenCountries, countryName: countryName))
            }
        }
        return trips
    }

    static func sameJourney(_ a: TripDay, _ b: TripDay) -> Bool {
        let shared = a.awayCountries.intersection(b.awayCountries).subtracting([a.homeCountry, b.homeCountry].compactMap { $0 })
        if !shared.isEmpty { return true }
        guard let ca = a.awayCentre, let cb = b.awayCentre else { return false }
        return AngularDistance.kilometres(ca, cb) <= TripRule.sameJourneyKm
    }

    static func trip(_ days: ArraySlice<TripDay>, away: Int, points: [TripPoint], seen: Set<String>,
                     countryName: (String) -> String) -> Trip {
        var countries: [String] = [], places: [String] = [], pins: [UUID] = []
        var daysByCountry: [String: Int] = [:], daysByPlace: [String: Int] = [:]
        for day in days {
            var countriesToday = Set<String>(), placesToday = Set<String>()
            for i in day.away {
                let p = points[i]
                if let c = p.country {
                    if !countries.contains(c) { countries.append(c) }
                    countriesToday.insert(c)
                }
                if let place = p.place {
                    if !places.contains(place) { places.append(place) }
                    placesToday.insert(place)
                }
                if let id = p.pinID { pins.append(id) }
            }
            for c in countriesToday { daysByCountry[c, default: 0] += 1 }
            for place in placesToday { daysByPlace[place, default: 0] += 1 }
        }
        let first = days.first!, last = days.last!
        let home = first.homeCountry
        let title = TripTitle.make(countries: countries, daysByCountry: daysByCountry, home: home, places: places,
                                   daysByPlace: daysByPlace, start: first.day, end: last.day, countryName: countryName)
        return Trip(start: first.day, end: last.day, awayDays: away, countries: countries, places: places, pinIDs: pins,
                    newCountries: countries.filter { !seen.contains($0) }, daysByCountry: daysByCountry, title: title)
    }

    /// Each name goes to the trip it overlaps most (ties: the earlier trip); a trip keeps the
    /// name that overlaps it most.
    static func apply(_ names: [TripName], to trips: inout [Trip]) {
        var best: [Int: (overlap: Int, name: String)] = [:]
        for name in names {
            var chosen: (index: Int, overlap: Int)?
            for (i, trip) in trips.enumerated() {
                let overlap = min(trip.end.number, name.end.number) - max(trip.start.number, name.start.number) + 1
                if overlap > 0, overlap > (chosen?.overlap ?? 0) { chosen = (i, overlap) }
            }
            guard let chosen else { continue }
            if chosen.overlap > (best[chosen.index]?.overlap ?? 0) { best[chosen.index] = (chosen.overlap, name.name) }
        }
        for (i, named) in best {
            trips[i].title = named.name
            trips[i].renamed = true
        }
    }

    /// Days per year, days abroad (a point in a country other than that day's home country),
    /// days per country and year.
    static func count(_ days: [TripDay], points: [TripPoint], into timeline: inout TripTimeline) {
        for day in days {
            let year = day.day.date.year
            timeline.daysByYear[year, default: 0] += 1
            let countries = Set(points[day.points].compactMap(\.country))
            if countries.contains(where: { $0 != day.homeCountry }) { timeline.daysAbroadByYear[year, default: 0] += 1 }
            for c in countries { timeline.daysByCountryAndYear[c, default: [:]][year, default: 0] += 1 }
        }
    }
}

/// "Japan, April 2024": the countries by days (home's left out), or for a trip inside home's
/// country its main place; then the months.
enum TripTitle {
    static let months = ["January", "February", "March", "April", "May", "June", "July", "August",
                         "September", "October", "November", "December"]

    static func make(countries: [String], daysByCountry: [String: Int], home: String?, places: [String],
                     daysByPlace: [String: Int], start: LocalDay, end: LocalDay, countryName: (String) -> String) -> String {
        let foreign = countries.filter { $0 != home }
        let ranked = foreign.enumerated().sorted {
            (daysByCountry[$0.element] ?? 0, -$0.offset) > (daysByCountry[$1.element] ?? 0, -$1.offset)
        }.map { countryName($0.element) }
        let what: String
        switch ranked.count {
        case 0:
            let place = places.enumerated().max { (daysByPlace[$0.element] ?? 0, -$0.offset) < (daysByPlace[$1.element] ?? 0, -$1.offset) }
            what = place?.element ?? countries.first.map(countryName) ?? "At sea"
        case 1: what = ranked[0]
        case 2: what = "\(ranked[0]) and \(ranked[1])"
        case 3: what = "\(ranked[0]), \(ranked[1]) and \(ranked[2])"
        default: what = "\(ranked[0]), \(ranked[1]) and \(ranked.count - 2) other countries"
        }
        return "\(what), \(monthSpan(start, end))"
    }

    /// "April 2024", "April–May 2024", "December 2023–January 2024".
    static func monthSpan(_ start: LocalDay, _ end: LocalDay) -> String {
        let a = start.date, b = end.date
        if a.year == b.year && a.month == b.month { return "\(months[a.month - 1]) \(a.year)" }
        if a.year == b.year { return "\(months[a.month - 1])–\(months[b.month - 1]) \(a.year)" }
        return "\(months[a.month - 1]) \(a.year)–\(months[b.month - 1]) \(b.year)"
    }
}
