import Foundation
@testable import PinCore

/// A transaction runner over plain dictionaries, for unit tests of the pipeline's stages: a
/// write works on a copy of the state and keeps it only when the closure returns (a throw
/// rolls back, as SQLite does). Not a second storage engine: only what the stages call.
final class InMemoryStore: TransactionRunner {
    struct State {
        var locations: [UUID: Location] = [:]
        var countries: [String: Country] = [:]
        var photos: [RawPath: (record: PhotoRecord, runID: Int64?, missing: Bool)] = [:]
        var runs: [ImportRunRecord] = []
        var tracks: [TrackRecord] = []
    }

    private(set) var state = State()
    /// Write transactions committed, for tests of batching.
    private(set) var commits = 0
    /// Read transactions begun.
    private(set) var reads = 0

    func write<T>(_ body: (Repositories) throws -> T) throws -> T {
        let box = Box(state)
        let result = try body(Repos(box: box))
        state = box.state
        commits += 1
        return result
    }

    func read<T>(_ body: (Repositories) throws -> T) throws -> T {
        reads += 1
        return try body(Repos(box: Box(state)))
    }

    final class Box {
        var state: State
        init(_ state: State) { self.state = state }
    }

    struct Repos: Repositories {
        let box: Box
        var locations: LocationRepository { LocationRepo(box: box) }
        var countries: CountryRepository { CountryRepo(box: box) }
        func sharedPlaces<Place: SharedPlace>(_ type: Place.Type) -> any SharedPlaceRepository<Place> { NoPlaces<Place>() }
        var settings: SettingsRepository { Unused() }
        var photos: PhotoRepository { PhotoRepo(box: box) }
        var runs: RunRepository { RunRepo(box: box) }
        var tracks: TrackRepository { TrackRepo(box: box) }
    }

    struct NotStored: Error {}

    struct LocationRepo: LocationRepository {
        let box: Box
        func fetch(id: UUID) throws -> Location? { box.state.locations[id] }
        func fetchAll(countryID: String?) throws -> [Location] {
            box.state.locations.values.filter { countryID == nil || $0.countryID == countryID }.sorted { $0.date < $1.date }
        }
        func fetchCoordinates() throws -> [(id: UUID, title: String, coordinate: Coordinate, wanted: Bool)] {
            box.state.locations.values.map { ($0.id, $0.title, $0.coordinate, $0.wanted) }
        }
        func insert(_ location: Location) throws {
            guard box.state.locations[location.id] == nil else { throw NotStored() }
            box.state.locations[location.id] = location
        }
        func update(_ location: Location) throws {
            guard box.state.locations[location.id] != nil else { throw NotStored() }
            box.state.locations[location.id] = location
        }
        func delete(id: UUID) throws { box.state.locations[id] = nil }
    }

    struct CountryRepo: CountryRepository {
        let box: Box
        func fetch(id: String) throws -> Country? { box.state.countries[id] }
        func fetchAll() throws -> [Country] { box.state.countries.values.sorted { $0.id < $1.id } }
        func save(_ country: Country) throws { box.state.countries[country.id] = country }
        func delete(id: String) throws { box.state.countries[id] = nil }
    }

    struct PhotoRepo: PhotoRepository {
        let box: Box
        func knownFiles(under root: RawPath, unplaced: Bool) throws -> KnownFileCursor {
            KnownFileCursor(sorting: try known(under: root, unplaced: unplaced))
        }
        func known(under root: RawPath, unplaced: Bool = false) throws -> [RawPath: KnownPhoto] {
            let prefix = root.bytes + [UInt8(ascii: "/")]
            var out: [RawPath: KnownPhoto] = [:]
            for (path, row) in box.state.photos where path.bytes.starts(with: prefix) {
                var known = KnownPhoto(fingerprint: row.record.fingerprint, digest: row.record.digest, missing: row.missing)
                if unplaced, row.record.decision == .noLocation {
                    known.unplaced = UnplacedPhoto(takenAt: row.record.takenAt?.timeIntervalSince1970, timeSource: row.record.timeSource,
                                                   utcOffsetSeconds: row.record.utcOffsetSeconds, runID: row.runID)
                }
                out[RawPath(bytes: Array(path.bytes.dropFirst(prefix.count)))] = known
            }
            return out
        }
        func acceptedPhotos() throws -> [AcceptedPhoto] {
            box.state.photos.values.filter { $0.record.decision == .accepted && $0.record.takenAt != nil
                                             && $0.record.timeSource != .fileModification }
                .map { AcceptedPhoto(instant: $0.record.takenAt!.timeIntervalSince1970, path: $0.record.path) }
                .sorted { ($0.instant, $0.path) < ($1.instant, $1.path) }
        }
        func find(size: Int64, digest: String) throws -> PhotoRecord? {
            box.state.photos.values
                .filter { $0.record.fingerprint.size == size && $0.record.digest == digest && $0.record.decision != .notMedia }
                .sorted { ($0.missing ? 0 : 1, $0.record.path) < ($1.missing ? 0 : 1, $1.record.path) }.first?.record
        }
        func save(_ record: PhotoRecord, runID: Int64?) throws { box.state.photos[record.path] = (record, runID, false) }
        func move(from old: RawPath, to new: PhotoRecord, runID: Int64?) throws {
            box.state.photos[old] = nil
            try save(new, runID: runID)
        }
        func refresh(_ path: RawPath, fingerprint: PhotoFingerprint) throws {
            guard var row = box.state.photos[path] else { return }
            row.record.fingerprint = fingerprint
            row.missing = false
            box.state.photos[path] = row
        }
        func markMissing(_ paths: [RawPath]) throws {
            for path in paths { box.state.photos[path]?.missing = true }
        }
    }

    struct TrackRepo: TrackRepository {
        let box: Box
        func all(root: RawPath) throws -> [TrackRecord] { box.state.tracks.filter { $0.root == root }.sorted { $0.path < $1.path } }
        func save(_ record: TrackRecord) throws {
            box.state.tracks.removeAll { $0.root == record.root && $0.path == record.path }
            box.state.tracks.append(record)
        }
    }

    struct RunRepo: RunRepository {
        let box: Box
        func start(root: String, at date: Date) throws -> Int64 {
            let id = Int64(box.state.runs.count + 1)
            box.state.runs.append(ImportRunRecord(id: id, root: root, startedAt: date, status: .running))
            return id
        }
        func finish(_ run: ImportRunRecord) throws { box.state.runs[Int(run.id) - 1] = run }
        func recent(limit: Int) throws -> [ImportRunRecord] { Array(box.state.runs.reversed().prefix(limit)) }
    }

    /// Shared places and settings: the import makes points only, with the default color.
    struct NoPlaces<Place: SharedPlace>: SharedPlaceRepository {
        func fetch(id: UUID) throws -> Place? { nil }
        func find(key: SharedPlaceKey) throws -> Place? { nil }
        func fetchAll() throws -> [Place] { [] }
        func insert(_ place: Place) throws { throw NotStored() }
        func update(_ place: Place) throws { throw NotStored() }
        func delete(id: UUID) throws {}
    }

    struct Unused: SettingsRepository {
        func load() throws -> Settings { Settings() }
        func save(_ settings: Settings) throws {}
    }
}
