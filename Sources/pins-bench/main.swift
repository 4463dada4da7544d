// pins-bench: the rules and the country resolver alone, at scale (scripts/bench runs it).
//   pins-bench rules [PHOTOS] [PINS]     decide PHOTOS photos against PINS existing pins
//   pins-bench countries [LOOKUPS]       country lookups at random points, and the load of Countries.bin
//   pins-bench places [LOOKUPS]          place lookups near the gazetteer's places, and the two loads
//   pins-bench regions [LOOKUPS]         place lookups with and without the admin-1 outlines
//   pins-bench named [LOOKUPS]           the place and region lookups with the outlines alone, as indices and named
//   pins-bench regions-answers [POINTS]  every answer at random points, one line each (two builds' outputs compared with cmp)
import Foundation
import PinCore
import PinData

struct SplitMix {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func uniform(_ lo: Double, _ hi: Double) -> Double { lo + (hi - lo) * Double(next() >> 11) / Double(1 << 53) }
}

func seconds(_ body: () -> Void) -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

/// The CPU seconds this thread spent in `body`: on a shared machine (2 cores, several builders)
/// the wall time says as much about the others as about the code; a lookup rate "on one core"
/// is lookups per CPU second.
func cpuSeconds(_ body: () -> Void) -> Double {
    func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }
    let start = now()
    body()
    return now() - start
}

/// The data folder named on the command line (Resources/ of the checkout by default), loaded
/// as pins loads it (DataFiles: mapped, checked, indexed); a load that fails ends the bench.
func dataFiles(_ position: Int) -> DataFiles {
    DataFiles(directory: args.count > position ? args[position] : "Resources")
}

func loaded<T>(_ what: String, _ body: () throws -> T) -> T {
    do { return try body() } catch { print("pins-bench: \(what): \(error)"); exit(1) }
}

let args = CommandLine.arguments
var rng = SplitMix(state: 42)
switch args.count > 1 ? args[1] : "" {
case "rules":
    let photos = args.count > 2 ? Int(args[2]) ?? 1_000_000 : 1_000_000
    let pinCount = args.count > 3 ? Int(args[3]) ?? 100_000 : 100_000
    // Pins and photos clustered around 2,000 places, as a real library is.
    let centres = (0..<2000).map { _ in Coordinate(latitude: rng.uniform(-55, 70), longitude: rng.uniform(-180, 180)) }
    func near(_ c: Coordinate, _ spread: Double) -> Coordinate {
        Coordinate(latitude: max(-89.9, min(89.9, c.latitude + rng.uniform(-spread, spread))),
                   longitude: max(-180, min(180, c.longitude + rng.uniform(-spread, spread))))
    }
    let pins = (0..<pinCount).map { _ in ImportRules.ExistingPin(title: "pin", coordinate: near(centres[Int(rng.next() % 2000)], 1.0)) }
    var t = 1_500_000_000.0
    var candidates: [ImportRules.Candidate] = []
    candidates.reserveCapacity(photos)
    for i in 0..<photos {
        t += rng.uniform(0, 120)
        let c = near(centres[Int(rng.next() % 2000)], 1.5)
        candidates.append(.init(index: i, instant: t, path: RawPath("p/\(i).jpg"), coordinate: i % 10 == 0 ? nil : c))
    }
    var accepted = 0
    var built = 0.0, ordered = 0.0
    let total = seconds {
        var filters = ImportRules(existingPins: [])
        built = seconds { filters = ImportRules(existingPins: pins) }
        var sorted: [ImportRules.Candidate] = []
        ordered = seconds { sorted = ImportRules.ordered(candidates) }
        for c in sorted where filters.decide(c, label: "x") == .accepted { accepted += 1 }
    }
    print(String(format: "rules: %d photos against %d pins decided in %.2f s (index %.2f s, sort %.2f s); %d accepted",
                 photos, pinCount, total, built, ordered, accepted))
case "countries":
    let lookups = args.count > 2 ? Int(args[2]) ?? 100_000 : 100_000
    let data = dataFiles(3)
    let geojson = loaded("Countries.geojson") { try data.read("Countries.geojson") }
    var resolver: CountryResolver?
    var polygons = CountryPolygons()
    // What pins loads (Countries.bin), and for reference what it used to do (parse the outlines, index them).
    let load = cpuSeconds { resolver = loaded("Countries.bin") { try data.countryResolver() } }
    let parse = cpuSeconds { polygons = try! CountryGeoJSONParser.parse(geojson) }
    let build = cpuSeconds { _ = CountryResolver(polygons: polygons) }
    let points = (0..<lookups).map { _ in Coordinate(latitude: rng.uniform(-60, 75), longitude: rng.uniform(-180, 180)) }
    var found = 0
    let time = cpuSeconds { for p in points where resolver!.countryIndex(at: p) != nil { found += 1 } }
    print(String(format: "countries: %d lookups in %.3f CPU s (%.0f per CPU second) after a %.4f CPU s load of Countries.bin "
                 + "(from the outlines instead: parse %.3f s, index %.3f s); %d in a country",
                 lookups, time, Double(lookups) / time, load, parse, build, found))
case "places":
    // Place lookups (issue 23): points near the gazetteer's places (within about 10 km of the
    // centres of places drawn at random, as photos are), their country found first as an import
    // does; the lookup is timed alone, then with its country lookup.
    let lookups = args.count > 2 ? Int(args[2]) ?? 1_000_000 : 1_000_000
    let data = dataFiles(3)
    var countries: CountryResolver?
    var places: PlaceResolver?
    // The two loads as pins makes them: the files mapped, then checked and indexed.
    let countryLoad = cpuSeconds { countries = loaded("Countries.bin") { try data.countryResolver() } }
    let resolver = countries!
    let placeLoad = cpuSeconds { places = loaded("Places.bin") { try data.gazetteer(onLand: DataFiles.onLand(resolver)) } }
    let gazetteer = places!
    let anchors = resolver.codes.flatMap { gazetteer.largestPlaces(of: $0, limit: 200) }
    var points: [Coordinate] = []
    points.reserveCapacity(lookups)
    for _ in 0..<lookups {
        let a = anchors[Int(rng.next() % UInt64(anchors.count))].coordinate
        points.append(Coordinate(latitude: max(-89.9, min(89.9, a.latitude + rng.uniform(-0.09, 0.09))),
                                 longitude: max(-180, min(180, a.longitude + rng.uniform(-0.09, 0.09)))))
    }
    // The country and whether its outline holds the point (as an import has them: at sea the
    // coastal rule gave the country).
    let fixes = points.map { resolver.country(at: $0) }
    var named = 0
    var alone = 0.0
    let aloneWall = seconds {
        alone = cpuSeconds {
            for (p, c) in zip(points, fixes) where gazetteer.match(at: p, countryCode: c?.code, inOutline: c?.inOutline).place != nil {
                named += 1
            }
        }
    }
    let both = cpuSeconds {
        for p in points {
            let c = resolver.country(at: p)
            _ = gazetteer.match(at: p, countryCode: c?.code, inOutline: c?.inOutline)
        }
    }
    // CPU seconds of this thread (cpuSeconds): the rate on one core, whatever else runs.
    print(String(format: "places: %d lookups in %.3f CPU s (%.0f per CPU second, target >= 1000000; wall %.3f s; "
                 + "%.0f per CPU second with the country lookup); %d named; "
                 + "load (CPU s): outlines %.4f, gazetteer %.4f, together %.4f (target <= 0.020) (%d places)",
                 lookups, alone, Double(lookups) / alone, aloneWall, Double(lookups) / both, named,
                 countryLoad, placeLoad, countryLoad + placeLoad, gazetteer.placeCount))
case "regions":
    // The admin-1 outlines (issue 23, step 6; issue 38): points near the largest places of every
    // country the outlines cover, each looked up by the gazetteer alone and then with the outlines deciding the
    // region, in the same run (the ratio is the figure).
    let lookups = args.count > 2 ? Int(args[2]) ?? 1_000_000 : 1_000_000
    let data = dataFiles(3)
    let resolver = loaded("Countries.bin") { try data.countryResolver() }
    let onLand = DataFiles.onLand(resolver)
    let gazetteer = loaded("Places.bin") { try data.gazetteer(onLand: onLand) }
    var outlines: RegionOutlines?
    let regionBytes = loaded("Regions.bin") { try data.read("Regions.bin") }
    // The best of 5 loads (the first pays the page faults of its arrays, as a process does).
    var loads: [Double] = []
    for _ in 0..<5 { loads.append(cpuSeconds { outlines = try! RegionOutlines(data: regionBytes) }) }
    let load = loads[0], bestLoad = loads.min()!
    let outlined = try! OutlinedRegionPlaces(places: gazetteer, outlines: outlines!)
    let anchors = outlines!.countryCodes.flatMap { gazetteer.largestPlaces(of: $0, limit: 200) }
    var points: [Coordinate] = []
    for _ in 0..<lookups {
        let a = anchors[Int(rng.next() % UInt64(anchors.count))].coordinate
        points.append(Coordinate(latitude: a.latitude + rng.uniform(-0.09, 0.09), longitude: a.longitude + rng.uniform(-0.09, 0.09)))
    }
    let countries = points.map { resolver.country(at: $0) }
    var differ = 0, inUnit = 0, sum = 0, named = 0
    // The lookups as indices (PlaceHit: what a caller names when it shows one), then as the
    // callers take them, named (PlaceMatch: the place's name made, the region's strings).
    let alone = cpuSeconds { for (p, c) in zip(points, countries) { sum &+= Int(gazetteer.hit(at: p, countryCode: c?.code, inOutline: c?.inOutline).place) } }
    let with = cpuSeconds { for (p, c) in zip(points, countries) { sum &+= Int(outlined.hit(at: p, countryCode: c?.code, inOutline: c?.inOutline).region) } }
    let aloneNamed = cpuSeconds {
        for (p, c) in zip(points, countries) where gazetteer.match(at: p, countryCode: c?.code, inOutline: c?.inOutline).place != nil { named += 1 }
    }
    let withNamed = cpuSeconds {
        for (p, c) in zip(points, countries) where outlined.match(at: p, countryCode: c?.code, inOutline: c?.inOutline).region != nil { named += 1 }
    }
    let units = cpuSeconds {
        for (p, c) in zip(points, countries) where c != nil && outlines!.unit(at: p, countryCode: c!.code) != nil { inUnit += 1 }
    }
    // The outlines' whole answer (the unit, else the nearest within 10 or 22 km), without the gazetteer.
    let regionsOnly = cpuSeconds {
        for (p, c) in zip(points, countries) where c != nil { _ = outlined.outlineRegion(at: p, countryCode: c!.code, inOutline: c!.inOutline) }
    }
    let outside = zip(points, countries).filter { $0.1 != nil && outlines!.unit(at: $0.0, countryCode: $0.1!.code) == nil }
    let nearestOnly = cpuSeconds {
        for (p, c) in outside { _ = outlined.outlineRegion(at: p, countryCode: c!.code, inOutline: c!.inOutline) }
    }
    print(String(format: "regions: the outlines' answer alone %.0f per CPU second; the %d points in no unit %.1f µs each",
                 Double(lookups) / regionsOnly, outside.count, nearestOnly / Double(max(1, outside.count)) * 1e6))
    for (p, c) in zip(points, countries)
    where outlined.match(at: p, countryCode: c?.code, inOutline: c?.inOutline).region != gazetteer.match(at: p, countryCode: c?.code).region {
        differ += 1
    }
    print(String(format: "regions: %d lookups; gazetteer alone %.0f per CPU second, with the outlines %.0f per CPU second (%.2fx the time); "
                 + "named (PlaceMatch, the place's name made): gazetteer alone %.0f, with the outlines %.0f per CPU second; "
                 + "outline lookups alone %.0f per CPU second (%d in a unit); the outline changed %d regions; Regions.bin load %.1f CPU ms (the first), %.1f (the best of 5); checksum %d",
                 lookups, Double(lookups) / alone, Double(lookups) / with, with / alone, Double(lookups) / aloneNamed, Double(lookups) / withNamed,
                 Double(lookups) / units, inUnit, differ, load * 1000, bestLoad * 1000, sum &+ named))
case "named":
    // Issue 38's target alone: place and region lookups with the outlines, as indices (PlaceHit)
    // and named (PlaceMatch, as a new pin takes them), at the points of `regions`; 5 passes of
    // each, alternately, the median of each printed. A run is short, so that many runs of an old
    // and a new binary can alternate on a shared machine.
    let lookups = args.count > 2 ? Int(args[2]) ?? 1_000_000 : 1_000_000
    let data = dataFiles(3)
    let resolver = loaded("Countries.bin") { try data.countryResolver() }
    let gazetteer = loaded("Places.bin") { try data.gazetteer(onLand: DataFiles.onLand(resolver)) }
    let outlines = loaded("Regions.bin") { try data.regionOutlines() }
    let outlined = try! OutlinedRegionPlaces(places: gazetteer, outlines: outlines)
    let anchors = outlines.countryCodes.flatMap { gazetteer.largestPlaces(of: $0, limit: 200) }
    let points = (0..<lookups).map { _ in
        let a = anchors[Int(rng.next() % UInt64(anchors.count))].coordinate
        return Coordinate(latitude: a.latitude + rng.uniform(-0.09, 0.09), longitude: a.longitude + rng.uniform(-0.09, 0.09))
    }
    let countries = points.map { resolver.country(at: $0) }
    var hits: [Double] = [], named: [Double] = [], sum = 0
    for _ in 0..<5 {
        hits.append(cpuSeconds { for (p, c) in zip(points, countries) { sum &+= Int(outlined.hit(at: p, countryCode: c?.code, inOutline: c?.inOutline).region) } })
        named.append(cpuSeconds {
            for (p, c) in zip(points, countries) where outlined.match(at: p, countryCode: c?.code, inOutline: c?.inOutline).place != nil { sum &+= 1 }
        })
    }
    func median(_ v: [Double]) -> Double { v.sorted()[v.count / 2] }
    print(String(format: "named: %d lookups with the outlines, the median of 5 passes: as indices %.0f per CPU second, named %.0f per CPU second "
                 + "(target >= 1000000); checksum %d", lookups, Double(lookups) / median(hits), Double(lookups) / median(named), sum))
case "regions-answers":
    // Every answer the lookups give at POINTS points (half near the largest places of every
    // country the outlines cover, half anywhere from 60° S to 75° N), one line each: the country,
    // the gazetteer's place and region, then with the outlines (the point's side of the outline
    // given, and asked), for comparing two builds line by line.
    let count = args.count > 2 ? Int(args[2]) ?? 1_000_000 : 1_000_000
    let data = dataFiles(3)
    let resolver = loaded("Countries.bin") { try data.countryResolver() }
    let onLand = DataFiles.onLand(resolver)
    let gazetteer = loaded("Places.bin") { try data.gazetteer(onLand: onLand) }
    let outlines = loaded("Regions.bin") { try data.regionOutlines() }
    let outlined = try! OutlinedRegionPlaces(places: gazetteer, outlines: outlines)
    let anchors = outlines.countryCodes.flatMap { gazetteer.largestPlaces(of: $0, limit: 200) }
    func text(_ m: PlaceMatch) -> String {
        let place = m.place.map { "\($0.id) \($0.name) \($0.coordinate.latitude),\($0.coordinate.longitude) \($0.population) \(m.placeDistanceKm.map { "\($0)" } ?? "-")" } ?? "-"
        let region = m.region.map { "\($0.code ?? "-") \($0.name)" } ?? "-"
        return place + " | " + region
    }
    var out = ""
    out.reserveCapacity(1 << 20)
    for i in 0..<count {
        let p: Coordinate
        if i % 2 == 0 {
            let a = anchors[Int(rng.next() % UInt64(anchors.count))].coordinate
            let spread = i % 4 == 0 ? 0.09 : 0.5
            p = Coordinate(latitude: max(-89.9, min(89.9, a.latitude + rng.uniform(-spread, spread))),
                           longitude: max(-180, min(180, a.longitude + rng.uniform(-spread, spread))))
        } else {
            p = Coordinate(latitude: rng.uniform(-60, 75), longitude: rng.uniform(-180, 180))
        }
        let c = resolver.country(at: p)
        out += "\(p.latitude),\(p.longitude) \(c.map { "\($0.code) \($0.inOutline.map { "\($0)" } ?? "-")" } ?? "-") || "
            + text(gazetteer.match(at: p, countryCode: c?.code, inOutline: c?.inOutline)) + " || "
            + text(outlined.match(at: p, countryCode: c?.code, inOutline: c?.inOutline)) + " || "
            + text(outlined.match(at: p, countryCode: c?.code)) + "\n"
        if out.utf8.count > 1 << 20 { FileHandle.standardOutput.write(Data(out.utf8)); out = "" }
    }
    FileHandle.standardOutput.write(Data(out.utf8))
default:
    print("usage: pins-bench rules [PHOTOS] [PINS] | countries [LOOKUPS] [RESOURCE_DIR] | places [LOOKUPS] [RESOURCE_DIR] | regions [LOOKUPS] [RESOURCE_DIR] | named [LOOKUPS] [RESOURCE_DIR] | regions-answers [POINTS] [RESOURCE_DIR]")
    exit(64)
}
