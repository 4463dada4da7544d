import CServe
import Foundation
import PinApp
import PinCore
import PinImport
import PinReport
import PinStore

/// The routes past the gate, each one use case of the application layer (PinApp): decode the
/// request's values, call, encode the result. No rule of its own.
public final class AppBackend: Backend {
    public let app: PinApp
    /// The --library folders, by real path: the roots photos are served from.
    public let libraries: [String]
    /// Pins deleted from the browser, each as it was stored (`PinApp.removePin`), kept for its
    /// undo (`restorePins`), the last 10,000.
    let trash = Trash<PinChange>()
    /// Pins moved from the browser (a drag), each with its last move, kept for its undo
    /// (`restorePins` with "moved"), the last 10,000.
    let moves = Trash<PinChange>()
    /// The imports started from the browser, one at a time.
    let jobs = ImportJobs()
    /// The stored pins and the map data, read once per version of the database (scripts/bench-serve:
    /// 50 browsers each reading and decoding 100,000 rows for a page of 100 took seconds a request).
    /// A change reads only the pins it changed (`PinList.updated`).
    let pinsCache = VersionCache<PinList>()
    let pageDataCache = VersionCache<MapData>()
    let tripsCache = VersionCache<StoredTrips>()

    /// The --basemap file, when one was given: its tiles are drawn under the pins.
    public let basemap: MBTiles?

    /// Whether an import from the browser estimates positions, and within which limits: the
    /// reading `pins import` makes of PINS_ESTIMATE, PINS_ESTIMATE_MAX_* and pins.conf (the CLI
    /// hands its own function in), called as each import starts so a changed pins.conf applies
    /// to the next one. A setting it cannot read fails that import with its message.
    let estimateSettings: @Sendable () throws -> (limits: EstimateLimits, estimates: Bool)

    public init(app: PinApp, libraries: [String], basemap: MBTiles? = nil,
                estimateSettings: @escaping @Sendable () throws -> (limits: EstimateLimits, estimates: Bool) = { (EstimateLimits(), false) }) {
        self.app = app
        self.libraries = libraries
        self.basemap = basemap
        self.estimateSettings = estimateSettings
    }

    public func respond(_ route: Route, _ target: RequestTarget, _ request: HTTPRequest, _ caller: Gate.Caller) throws -> HTTPResponse {
        switch route {
        case .version: return .json(200, ["version": ChangeCounter.version(of: app.databasePath)])
        case .page: return try page(request)
        case .pageData: return try pageData(target, request)
        case .listPins: return try listPins(target)
        case .showPin(let id): return try showPin(id)
        case .addPin: return try addPin(JSONBody(request.body))
        case .editPin(let id): return try editPin(id, JSONBody(request.body))
        case .deletePin(let id): return try deletePins([id])
        case .bulk: return try bulk(JSONBody(request.body))
        case .restorePins: return try restorePins(JSONBody(request.body))
        case .locate: return try locate(target)
        case .settings: return try settings()
        case .changeSettings: return try changeSettings(JSONBody(request.body))
        case .trips: return try trips()
        case .renameTrip(let id): return try renameTrip(id, JSONBody(request.body))
        case .photo(let id, let index): return try photo(id, index)
        case .preview(let id): return try preview(id)
        case .openPhoto(let id): return try openPhoto(id)
        case .runs: return try runs()
        case .undoRun(let id): return try undoRun(id, request)
        case .imports: return try imports()
        case .startImport: return try startImport(JSONBody(request.body))
        case .importPlaces: return try importPlaces(target, request)
        case .importPage(let id): return try importPage(id)
        case .stats: return try stats()
        case .basemap: return basemapInfo()
        case .tile(let z, let x, let y): return try tile(z, x, y)
        case .session, .login, .logout, .loginPage, .asset, .health: return .error(500, "routed twice")
        }
    }

    /// The server is stopping: the running import (if any) stops after the batch it saves.
    public func stopImports(waitingUpTo seconds: Double) { jobs.stopAndWait(seconds: seconds) }

    /// The map page as `pins report` makes it, with the served page's script and policy.
    /// Its text (33 MB at 100,000 pins) is gzipped for a browser that says it accepts gzip (as
    /// the map data is), and sent by reference either way: copied into the answer, then into
    /// the socket's buffer, it was three times in memory at once.
    func page(_ request: HTTPRequest) throws -> HTTPResponse {
        let response = try madePage(request)
        // The page's text (33 MB) and what made it are free now (the answer holds its gzipped
        // bytes): their pages go back to the system. malloc kept them: 118 MB of RSS after a page
        // at 100,000 pins, against 100 MB before it.
        pins_memory_trim()
        return response
    }

    private func madePage(_ request: HTTPRequest) throws -> HTTPResponse {
        let input = try keptPageInput()
        var html = PageRenderer.render(input)
        var response = HTTPResponse(status: 200, headers: [("Content-Type", "text/html; charset=utf-8"), ("Vary", "Accept-Encoding")])
        let packed = !AcceptEncoding.acceptsGzip(request.header("Accept-Encoding")) ? nil
            : GzipStream.packed(expected: html.utf8.count / 4) { write in html.withUTF8(write) }
        if let packed {
            response.shared = packed
            response.headers.append(("Content-Encoding", "gzip"))
        } else {
            response.shared = SharedBody(html)
        }
        response.headers.append(("Content-Security-Policy", PagePolicy.contentSecurityPolicy(settings: input.settings, served: true)
            + "; frame-ancestors 'none'"))
        return response
    }

    /// The page's data islands, for the page to draw again when the database changed.
    /// A poll (no `fresh`) is answered at once with the data kept, whatever its version (its
    /// X-Pins-Version says which): when the database changed since, the new data is made on a
    /// thread of its own meanwhile, and the page's next poll finds it. The map data of 100,000
    /// pins takes a second or two to make; a request that made it waited that long
    /// (scripts/bench-serve's map p99: 3.5-4.3 s). `fresh=1`, asked by a page after its own
    /// change: the data of the database as it is now (waiting for it to be made), so the
    /// change is in it.
    func pageData(_ target: RequestTarget, _ request: HTTPRequest) throws -> HTTPResponse {
        let version = ChangeCounter.version(of: app.databasePath)
        let make: @Sendable () throws -> MapData = { [self] in try makePageData(version: version) }
        let data = target.query["fresh"] == nil ? try pageDataCache.keptValue(for: version, makeInBackground: make)
            : try pageDataCache.freshValue(for: version, load: make)
        var response = try data.answer(acceptsGzip: AcceptEncoding.acceptsGzip(request.header("Accept-Encoding")))
        response.headers.append(("Vary", "Accept-Encoding"))
        return response
    }

    /// The map data as of `version` (read before the data: a change during the read shows
    /// again at the next poll), gzipped as it is written (`MapData`).
    private func makePageData(version: String) throws -> MapData {
        let input = try keptPageInput(islandsOnly: true)
        let data = MapData(version: version, expected: pageDataCache.kept?.byteCount) { PageRenderer.writeIslandsJSON(input, to: $0) }
        // What the making allocated for a while (every pin's page object, statistics, the
        // islands' texts) is free now: its pages go back to the system.
        pins_memory_trim()
        return data
    }

    /// The served page's input from the pins kept, oldest first (the page's order, fetchAll's):
    /// none read again nor copied (`StoredLocation`), each pin's object written from it as the
    /// data is written (`PagePin.dataJSON`). The page read and copied every pin and wrote each
    /// one's text again: 110 MB at a time at 100,000 pins.
    /// `islandsOnly`: for the map data, which carries the page's data islands alone.
    private func keptPageInput(islandsOnly: Bool = false) throws -> PageInput {
        let listed = Array(try storedPins().reversed())
        var input = try app.pageInput(stored: listed.map(\.stored), title: "pins", filterDescription: nil, thumbnails: true,
                                      embedPreviews: false, trips: try storedTrips(fresh: true), islandsOnly: islandsOnly)
        input.served = true
        return input
    }

    /// Each pin's trip (pins on none absent), found from the whole history once per version of
    /// the database, while the version stays (the trips themselves only when what they are found
    /// from changed: `TripCache`). A shown pin's trip is looked up here: finding it from the
    /// months around the pin at each show cost 50-100 ms of CPU a request at 100,000 pins.
    func tripOfPins() throws -> TripOfPins {
        try storedTrips().tripOf
    }

    /// The trips and each pin's trip, found once per version of the database: by the map data
    /// and the shown pins alike (each found them again: 14 % of a map data's CPU). A shown pin
    /// may get them as of the version before while they are found (`staleWhileLoading`); the
    /// map data (`fresh`) waits for them, so it is never made with an older version's trips.
    func storedTrips(fresh: Bool = false) throws -> StoredTrips {
        let version = ChangeCounter.version(of: app.databasePath)
        if fresh { return try tripsCache.freshValue(for: version) { try app.tripsAndTheirPins() } }
        return try tripsCache.value(for: version, staleWhileLoading: true) { try app.tripsAndTheirPins() }
    }

    /// Every stored pin (none without a database), newest first (the list's order: `PinFilter`
    /// with `descending`), as of the database's current version: the list kept, with the pins
    /// changed since read again (`PinList`).
    func storedPins() throws -> [ListedPin] {
        try storedList().pins
    }

    /// `storedPins` with the filters already answered from them (`FilterMatches`).
    func storedList() throws -> PinList {
        try pinsCache.value(for: ChangeCounter.version(of: app.databasePath)) { kept in
            try kept?.updated(app) ?? PinList.load(app)
        }
    }
}

/// The map data of one version, kept gzipped only (6.5 MB at 100,000 pins; the 23 MB as it is
/// were kept beside it, for the rare client without gzip, which now gets them unpacked when it
/// asks). It is gzipped as it is written, piece by piece: the 23 MB text is never whole in
/// memory. Its body is shared by every answer in flight, not copied into each (`SharedBody`).
struct MapData: Sendable {
    /// With `Content-Encoding: gzip` when `gzipped`; as it is when zlib failed.
    let response: HTTPResponse
    let gzipped: Bool

    /// The data `write` writes (called once, or twice when zlib fails: then as it is).
    /// `expected`: about how many gzipped bytes (the last data's), to grow no buffer by doubling.
    init(version: String, expected: Int? = nil, _ write: ((UnsafeBufferPointer<UInt8>) -> Void) -> Void) {
        var response = HTTPResponse(status: 200, headers: [("Content-Type", "application/json; charset=utf-8"), ("X-Pins-Version", version)])
        if let packed = GzipStream.packed(expected: expected.map { $0 + $0 / 8 } ?? 1 << 20, write) {
            response.shared = packed
            response.headers.append(("Content-Encoding", "gzip"))
            self.response = response
            gzipped = true
            return
        }
        var plain: [UInt8] = []
        write { plain.append(contentsOf: $0) }
        response.shared = SharedBody(plain)
        gzipped = false
        self.response = response
    }

    /// The body's length as kept.
    var byteCount: Int { response.shared?.byteCount ?? 0 }

    /// The answer for a client that accepts gzip or not (then unpacked now, for it alone).
    func answer(acceptsGzip: Bool) throws -> HTTPResponse {
        guard gzipped, !acceptsGzip, let shared = response.shared else { return response }
        guard let plain = Gzip.decompress(UnsafeRawBufferPointer(start: shared.bytes.baseAddress, count: shared.byteCount)) else {
            throw RequestError(500, "the map data kept could not be unpacked")
        }
        var answer = response
        answer.headers.removeAll { $0.name == "Content-Encoding" }
        answer.shared = SharedBody(plain)
        return answer
    }
}

/// One value per version of the database (`ChangeCounter`): the value read for the version
/// current when it was asked for is kept until the version changes. Requests that arrive while it
/// is read wait for that one read instead of each reading it. The version is read before the
/// value, so a change made during the read is read again at the next request.
final class VersionCache<Value>: @unchecked Sendable {
    private let condition = NSCondition()
    /// Guarded by `condition`.
    private var cached: (version: String, value: Value)?
    private var loading = false
    /// Guarded by `condition`: when the last background read ended and how long it took
    /// (`ProcessInfo.systemUptime` seconds).
    private var lastBackground: (ended: Double, took: Double)?

    func value(for version: String, load: () throws -> Value) throws -> Value {
        try value(for: version, keepingOld: false) { _ in try load() }
    }

    /// The value kept, whatever its version (nil: none).
    var kept: Value? {
        condition.lock()
        defer { condition.unlock() }
        return cached?.value
    }

    /// As `value(for:load:)`, but while one thread makes the value of a newer version, the others
    /// are answered at once with the value kept (its older version), not held: the map data of
    /// 100,000 pins takes 1-2 s to make after a change, and 50 browsers polling queued behind it
    /// (scripts/bench-serve: its p99 14-20 s). The thread that finds the version changed makes the
    /// new value and answers with it, so a client's own edit is in its next answer; the others
    /// get the older version (a caller that says which version it answers, as the map data's
    /// X-Pins-Version, lets a page see that and ask again). Both values are in memory meanwhile.
    func value(for version: String, staleWhileLoading: Bool, load: () throws -> Value) throws -> Value {
        try value(for: version, keepingOld: false, stale: staleWhileLoading) { _ in try load() }
    }

    /// The value of `version` itself, never an older one: a read under way is waited for, and
    /// `load` reads `version` when that read was of another. Meanwhile the value kept before
    /// answers the `staleWhileLoading` and `keptValue` callers.
    func freshValue(for version: String, load: () throws -> Value) throws -> Value {
        try value(for: version, keepingOld: false, stale: true, waitForLoad: true) { _ in try load() }
    }

    /// The value kept, whatever its version, at once; when it is not `version`'s and no read is
    /// under way, a thread of its own reads `version`'s (a failed read leaves the old value, and
    /// the next call tries again). With nothing kept yet the caller reads it, as
    /// `value(for:staleWhileLoading:)`.
    /// The background reads take at most `share` of the time: one that took T seconds is followed
    /// by the next no sooner than T × (1/share − 1) after it ended (the map data of 100,000 pins
    /// takes about 1.2 s of CPU: with an edit every 2 s it was made again without rest, most of a
    /// core). A page of a few thousand pins (tens of ms) sees no wait.
    func keptValue(for version: String, share: Double = 0.25, makeInBackground load: @escaping @Sendable () throws -> Value) throws -> Value
    where Value: Sendable {
        condition.lock()
        guard let kept = cached else {
            condition.unlock()
            return try value(for: version, staleWhileLoading: true, load: load)
        }
        let now = ProcessInfo.processInfo.systemUptime
        let rested = lastBackground.map { now - $0.ended >= $0.took * (1 / max(0.01, share) - 1) } ?? true
        let start = kept.version != version && !loading && rested
        if start { loading = true }
        condition.unlock()
        if start {
            let thread = Thread { [self] in
                let began = ProcessInfo.processInfo.systemUptime
                let result = Result { try load() }
                finishLoad(version, result, began: began)
                // What the read allocated for a while (the map data: arrays of every pin, their
                // statistics, the text before it was gzipped), and the value it replaced, are
                // free now: their pages go back to the system, not kept by malloc's arenas.
                pins_memory_trim()
            }
            thread.name = "pins-serve-map-data"
            thread.stackSize = 4 << 20
            thread.start()
        }
        return kept.value
    }

    /// A background read's end (`keptValue`): its value kept when it was read, and its time.
    private func finishLoad(_ version: String, _ result: Result<Value, any Error>, began: Double) {
        let ended = ProcessInfo.processInfo.systemUptime
        condition.lock()
        loading = false
        lastBackground = (ended, ended - began)
        if case .success(let value) = result { cached = (version, value) }
        condition.broadcast()
        condition.unlock()
    }

    /// The value for `version`, made from the value kept before (nil: none yet, or its read
    /// failed) when the version changed.
    func value(for version: String, update: (Value?) throws -> Value) throws -> Value {
        try value(for: version, keepingOld: true, update)
    }

    private func value(for version: String, keepingOld: Bool, stale: Bool = false, waitForLoad: Bool = false,
                       _ make: (Value?) throws -> Value) throws -> Value {
        condition.lock()
        while true {
            if let cached, cached.version == version {
                condition.unlock()
                return cached.value
            }
            if !loading { break }
            if stale, !waitForLoad, let cached {
                condition.unlock()
                return cached.value
            }
            condition.wait()
        }
        loading = true
        // Unless it is updated or answered meanwhile, the old value is let go before the new one
        // is read: one copy in memory, not two.
        let old = keepingOld ? cached?.value : nil
        if !stale { cached = nil }
        condition.unlock()
        let result = Result { try make(old) }
        condition.lock()
        loading = false
        if case .success(let value) = result { cached = (version, value) } else if stale { cached = nil }
        condition.broadcast()
        condition.unlock()
        return try result.get()
    }
}

/// What the browser's undos need, by pin id (newest last, at most 10,000), kept in memory (a
/// restart forgets them): the pins deleted and the pins moved, each with its delete or last
/// move (`PinChange`: as it was stored before). A pin kept again replaces what was kept.
final class Trash<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var pins: [UUID: Value] = [:]
    private var order: [UUID] = []

    func keep(_ value: Value, id: UUID) {
        lock.lock()
        defer { lock.unlock() }
        // Once in the order: a pin kept again is not forgotten with its older entry.
        if pins.updateValue(value, forKey: id) != nil { order.removeAll { $0 == id } }
        order.append(id)
        if order.count > 10_000 {
            for id in order.prefix(order.count - 10_000) { pins[id] = nil }
            order.removeFirst(order.count - 10_000)
        }
    }

    /// The value kept for `id`, no longer kept. Its place in the order goes with it: left there,
    /// it outlived the entry and, the pin kept again later, was taken for the newer entry's place
    /// (the newer one then forgotten 10,000 pins early).
    func take(_ id: UUID) -> Value? {
        lock.lock()
        defer { lock.unlock() }
        guard let value = pins.removeValue(forKey: id) else { return nil }
        order.removeAll { $0 == id }
        return value
    }

    /// A value taken and not used (its undo refused), kept again as the newest.
    func putBack(_ value: Value, id: UUID) {
        keep(value, id: id)
    }

    /// How many are kept, and how many places the order holds (the same, always): for the tests.
    var counts: (kept: Int, order: Int) {
        lock.lock()
        defer { lock.unlock() }
        return (pins.count, order.count)
    }
}

/// What changed in the database since the page last asked, without opening it: the modification
/// times and sizes of the file and its write-ahead log (every commit of any process, the CLI's
/// or a nightly import's, changes one of them). The page polls this and draws its data again
/// when it differs.
enum ChangeCounter {
    static func version(of path: String) -> String {
        var text = ""
        for file in [path, path + "-wal"] {
            var info = stat()
            if stat(file, &info) == 0 {
                text += "\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec).\(info.st_size);"
            } else {
                text += "-;"
            }
        }
        return text
    }
}
