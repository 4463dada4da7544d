import Foundation

/// What kind of place a pin is. City and Mountain carry visit-specific data; the shared
/// object (City, Mountain) they point at is found or created by CreationService.
///
/// The visits are held by reference (`indirect`): inline, the larger one made every `Location`
/// 56 bytes larger, points too (5.6 MB of the 100,000 pins pins serve keeps).
public enum LocationType: Codable, Sendable, Hashable {
    case point
    indirect case city(CityVisitData)
    indirect case mountain(MountainVisitData)

    public var selection: LocationTypeSelection {
        switch self {
        case .point: return .point
        case .city: return .city
        case .mountain: return .mountain
        }
    }
}

/// The payload-free twin of LocationType, as the app has it: for filters, storage and statistics.
/// With the extension below it is the one registry of pin types: every list of types a person
/// sees (the CLI's choices, help and messages, the server's errors and form, the page's filter)
/// is made from `allCases` and these properties, never typed again (`PinTypeRegistryTests`
/// fails on a source line that does). docs/adding-a-pin-type.md is the guide.
public enum LocationTypeSelection: String, Codable, Sendable, CaseIterable {
    case point, city, mountain
}

extension LocationTypeSelection {
    /// The type as a person reads it, its name capitalised: the server form's label. The map
    /// page's filter capitalises the name the same way in page.js, so the two always agree.
    public var label: String { rawValue.prefix(1).uppercased() + rawValue.dropFirst() }

    /// The plural a count says ("cities 3"): the statistics' words and keys.
    public var plural: String {
        switch self {
        case .point: "points"
        case .city: "cities"
        case .mountain: "mountains"
        }
    }

    /// The shared object the pins of this type point at; nil for a type whose pins stand alone.
    public var shared: SharedObjectType? {
        switch self {
        case .point: nil
        case .city: SharedObjectType(table: "cities", nameKey: "cityName", coordinateKey: "cityCoordinate", rebuiltColumns: [],
                                     listingExample: "pins cities --json")
        case .mountain: SharedObjectType(table: "mountains", nameKey: "mountainName", coordinateKey: "mountainCoordinate",
                                         rebuiltColumns: ["height"], listingExample: "pins mountains")
        }
    }

    /// The symbol of the type's waypoints in the GPX export (`sym`: Garmin's names, which GPS
    /// units and map apps draw).
    public var gpxSymbol: String {
        switch self {
        case .point: "Flag, Red"
        case .city: "City (Medium)"
        case .mountain: "Summit"
        }
    }

    /// The types that have a shared object, in the registry's order.
    public static var sharedTypes: [LocationTypeSelection] { allCases.filter { $0.shared != nil } }

    /// The names as a sentence says them: "point, city or mountain" (of `types`, all by
    /// default); "cities and mountains" with `plural` and the conjunction "and".
    public static func spoken(_ types: [LocationTypeSelection] = allCases, plural: Bool = false, conjunction: String = "or") -> String {
        let names = types.map { plural ? $0.plural : $0.rawValue }
        guard let last = names.last else { return "" }
        return names.count == 1 ? last : names.dropLast().joined(separator: ", ") + " \(conjunction) " + last
    }

    /// The names as a usage line offers them: "point|city|mountain".
    public static var usage: String { allCases.map(\.rawValue).joined(separator: "|") }
}

/// One field of a type's visit as place files, exports and forms carry it: its key, its kind,
/// and the column of pins' flat files that carries it. `visitFields` declares each type's, once;
/// import-places reads, spools and hands on a visit by that list alone (`VisitValues`), and the
/// exports write it (docs/adding-a-pin-type.md).
public struct VisitField: Sendable, Hashable {
    public enum Kind: Sendable, Hashable { case text, number }

    /// Its key in the type's object of pins' own JSON (`"city": {"address": …}`, `pins list
    /// --json`, the GeoJSON export, read back by import-places).
    public let key: String
    public let kind: Kind
    /// The column of pins' flat files (the CSV export's column, the KML export's ExtendedData
    /// `Data`) that carries it; nil: only the JSON does. Fields of one type may share a column:
    /// it carries the last of them given (`flatValue`), and is read back into each.
    public let flatKey: String?
    /// A number's allowed values, where a person types it (`pins add`, the server's body).
    public let range: ClosedRange<Double>?
    /// A field a pin made by hand (`pins add`, the server) takes from another when not given:
    /// the height reached is the mountain's height.
    public let defaultKey: String?
    /// How the map page's popup shows it (nil: not apart; the name is the type's line's own).
    public let shown: Shown?

    /// Where the map page's popup shows a field (PagePolicy writes its lines into page.js): on
    /// the type's line after the shared object's name (" (4806 m)"), or on a row of its own
    /// under `label` ("Reached"); a number rounded, `unit` after the value.
    public enum Shown: Sendable, Hashable {
        case afterName(unit: String)
        case row(label: String, unit: String)
    }

    init(key: String, kind: Kind, flatKey: String?, range: ClosedRange<Double>? = nil, defaultKey: String? = nil,
         shown: Shown? = nil) {
        self.key = key
        self.kind = kind
        self.flatKey = flatKey
        self.range = range
        self.defaultKey = defaultKey
        self.shown = shown
    }

    /// Its option on the command line: the key in kebab case (`--achieved-height`).
    public var option: String {
        "--" + key.unicodeScalars.map { CharacterSet.uppercaseLetters.contains($0) ? "-" + String($0).lowercased() : String($0) }.joined()
    }

    /// Every type's fields, each key once, in the registry's order (`name`, `address`, `height`,
    /// `achievedHeight`): the fields a person may give a new pin.
    public static var all: [VisitField] {
        LocationTypeSelection.allCases.flatMap(\.visitFields).reduce(into: []) { fields, field in
            if !fields.contains(where: { $0.key == field.key }) { fields.append(field) }
        }
    }

    /// The shared object's name: the first field of every shared type, and the one a visit
    /// cannot do without (with the pin's position it finds the shared object).
    public static let name = VisitField(key: "name", kind: .text, flatKey: "name")
}

extension LocationTypeSelection {
    /// The fields of the type's visit, `VisitField.name` first; none for a type whose pins stand
    /// alone. A city's `address`; a mountain's `height` and the `achievedHeight` reached (in the
    /// flat files one column, `height`: the height reached, else the mountain's).
    public var visitFields: [VisitField] {
        switch self {
        case .point: []
        case .city: [.name, VisitField(key: "address", kind: .text, flatKey: nil, shown: .row(label: "Address", unit: ""))]
        case .mountain: [.name, VisitField(key: "height", kind: .number, flatKey: "height", range: -500...9000,
                                           shown: .afterName(unit: " m")),
                         VisitField(key: "achievedHeight", kind: .number, flatKey: "height", range: -500...9000, defaultKey: "height",
                                    shown: .row(label: "Reached", unit: " m"))]
        }
    }

    /// True for a type whose pin made by hand without a name is named by the gazetteer's place
    /// at its position (a city: `PinApp.cityVisit`); any other shared type needs its name.
    public var namedByThePlace: Bool { self == .city }
}

extension LocationTypeSelection {
    /// The flat files' columns its visit's fields are carried in, each once, in the fields' order.
    public var flatKeys: [String] {
        visitFields.reduce(into: []) { keys, field in
            if let key = field.flatKey, !keys.contains(key) { keys.append(key) }
        }
    }
}

/// The value of one visit field.
public enum VisitValue: Sendable, Hashable {
    case text(String)
    case number(Double)

    public var text: String? { if case let .text(t) = self { t } else { nil } }
    public var number: Double? { if case let .number(n) = self { n } else { nil } }
}

/// A visit as its type and its fields' values (one per `type.visitFields`, in that order; nil:
/// not given): what a place file carries, before the pin's position makes it a `LocationType`.
public struct VisitValues: Sendable, Hashable {
    public let type: LocationTypeSelection
    public var values: [VisitValue?]

    public init(type: LocationTypeSelection, values: [VisitValue?]) {
        precondition(values.count == type.visitFields.count, "one value per field of \(type.rawValue)")
        self.type = type
        self.values = values
    }

    /// A point's: no fields.
    public static let point = VisitValues(type: .point, values: [])

    /// The fields with their values, in the declared order.
    public var fields: Zip2Sequence<[VisitField], [VisitValue?]> { zip(type.visitFields, values) }

    /// The value of the field `key`; nil when not given or the type has no such field.
    subscript(key: String) -> VisitValue? {
        type.visitFields.firstIndex { $0.key == key }.flatMap { values[$0] }
    }

    /// The shared object's name.
    public var name: String? { self[VisitField.name.key]?.text }

    /// What the flat files' column `flatKey` carries: the last given of the fields it carries.
    public func flatValue(_ flatKey: String) -> VisitValue? {
        fields.reversed().first { $0.0.flatKey == flatKey && $0.1 != nil }?.1
    }
}

extension LocationType {
    /// The pin type of `visit`, its shared object named there at `coordinate` (named by hand:
    /// a city of a place file is not matched to the gazetteer's place).
    public init(_ visit: VisitValues, at coordinate: Coordinate) {
        switch visit.type {
        case .point: self = .point
        case .city: self = .city(CityVisitData(cityName: visit.name ?? "", cityCoordinate: coordinate, address: visit["address"]?.text))
        case .mountain:
            self = .mountain(MountainVisitData(mountainName: visit.name ?? "", height: visit["height"]?.number, mountainCoordinate: coordinate,
                                               achievedHeight: visit["achievedHeight"]?.number))
        }
    }

    /// The name of the shared object the visit is on (`visitValues.name`, without building the
    /// values: the search reads it for every pin).
    public var sharedName: String? {
        switch self {
        case .point: nil
        case let .city(v): v.cityName
        case let .mountain(v): v.mountainName
        }
    }

    /// The visit's fields' values (what exports write; a city's gazetteer id is not a field).
    public var visitValues: VisitValues {
        switch self {
        case .point: .point
        case let .city(v): VisitValues(type: .city, values: [.text(v.cityName), v.address.map(VisitValue.text)])
        case let .mountain(v):
            VisitValues(type: .mountain, values: [.text(v.mountainName), v.height.map(VisitValue.number), v.achievedHeight.map(VisitValue.number)])
        }
    }
}

extension LocationType {
    /// The visit of a shared-object type (its data, stored as the JSON of `locations.type_data`);
    /// nil for a point.
    public var sharedVisit: (any SharedVisit)? {
        switch self {
        case .point: nil
        case let .city(v): v
        case let .mountain(v): v
        }
    }
}

extension LocationTypeSelection {
    /// The type of the visit of a shared-object type, which reads it from the JSON of
    /// `locations.type_data`; nil for a point.
    public var visitType: (any SharedVisit.Type)? {
        switch self {
        case .point: nil
        case .city: CityVisitData.self
        case .mountain: MountainVisitData.self
        }
    }
}

extension LocationTypeSelection {
    /// The own columns of the type's shared object (`SharedPlace.ownColumns`); none for a point.
    public var ownColumns: [OwnColumn] {
        func columns<Visit: SharedVisit>(_: Visit.Type) -> [OwnColumn] { Visit.Place.ownColumns }
        return visitType.map { columns($0) } ?? []
    }
}

/// The visit of a shared-object type: what a pin of the type keeps of its own, which names
/// the shared object (`Place`) it points at.
public protocol SharedVisit: Codable, Sendable, Hashable {
    associatedtype Place: SharedPlace
    /// The pin type of this visit.
    var locationType: LocationType { get }
    /// The shared object's name and coordinate, as the visit names it.
    var sharedName: String { get set }
    var sharedCoordinate: Coordinate { get set }
    /// Two pins named alike this close share one shared object.
    static var sharingKm: Double { get }
    /// The stored shared object the visit points at (`storedByName` unless the type says
    /// otherwise). `adopting`: the visit of a pin being counted may make a stored one its own.
    func stored(in places: any SharedPlaceRepository<Place>, adopting: Bool) throws -> Place?
    /// The shared object the first pin of the visit makes, that pin counted.
    func newPlace(id: UUID) -> Place
    /// What the visit of a pin counted on `place` changes of it (none unless the type says
    /// otherwise); true when every pin on it shows the change (`showOwn`).
    func change(_ place: inout Place) -> Bool
    /// What the visit shows of its shared object besides its name and coordinate.
    mutating func showOwn(_ place: Place)
}

/// How a shared object is stored: its table (columns id, name, lat_e4, lon_e4, latitude,
/// longitude, pin_count and its own), and where a pin's visit (the JSON in `locations.type_data`)
/// names it, so that `check` can recount and rebuild it from the pins alone.
public struct SharedObjectType: Sendable, Hashable {
    /// The table, also the plural a person reads ("cities").
    public let table: String
    /// The visit's keys of the shared object's name and coordinate.
    public let nameKey: String
    public let coordinateKey: String
    /// Own columns a rebuild takes from the visits of the same key (the largest value given).
    public let rebuiltColumns: [String]
    /// The example of its listing's help (`pins cities --json`).
    public let listingExample: String
}

/// Visit-specific data of a City pin. The shared City is the gazetteer place `placeID` when it
/// has one (its name and centre are the place's); a city named by hand (`--name` unlike the
/// place there) is `cityName` + `cityCoordinate`, shared by name within `sharingKm`.
public struct CityVisitData: SharedVisit {
    public typealias Place = City

    public var cityName: String
    public var cityCoordinate: Coordinate
    public var address: String?
    /// The GeoNames id of the gazetteer place this city is.
    public var placeID: Int?

    public init(cityName: String, cityCoordinate: Coordinate, address: String? = nil, placeID: Int? = nil) {
        self.cityName = cityName
        self.cityCoordinate = cityCoordinate
        self.address = address
        self.placeID = placeID
    }

    /// The city of a gazetteer place: its name, its centre, its id.
    public init(place: PinCore.Place, address: String? = nil) {
        self.init(cityName: place.name, cityCoordinate: place.coordinate, address: address, placeID: place.id)
    }

    public var locationType: LocationType { .city(self) }
    public var sharedName: String { get { cityName } set { cityName = newValue } }
    public var sharedCoordinate: Coordinate { get { cityCoordinate } set { cityCoordinate = newValue } }
    /// A city is large: pins named alike this close to its centre share it.
    public static var sharingKm: Double { 15 }

    /// A city is the gazetteer place its pins are in (found by its id); named by hand, the city
    /// of that name (`storedByName`). `adopting`: a place's visit takes a city of the place's
    /// name within `sharingKm` that has no place yet (made by hand or before cities had
    /// places), which becomes the place's, keeping its name and coordinate (what its older
    /// pins point at).
    public func stored(in places: any SharedPlaceRepository<City>, adopting: Bool) throws -> City? {
        guard let placeID else { return try storedByName(in: places) }
        let all = try places.fetchAll()
        if let city = all.first(where: { $0.placeID == placeID }) { return city }
        guard adopting, var city = City.nearest(named: cityName, to: cityCoordinate, within: Self.sharingKm,
                                                in: all.filter { $0.placeID == nil }) else { return nil }
        city.placeID = placeID
        return city
    }

    /// A place's city is at its centre; a city named by hand at the rounded coordinate.
    public func newPlace(id: UUID) -> City {
        let name = cityName.trimmingCharacters(in: .whitespacesAndNewlines)
        let coordinate = placeID == nil ? SharedPlaceKey(name: name, coordinate: cityCoordinate).roundedCoordinate : cityCoordinate
        return City(id: id, name: name, coordinate: coordinate, pinCount: 1, placeID: placeID)
    }

    public mutating func showOwn(_ city: City) { placeID = city.placeID }
}

/// Visit-specific data of a Mountain pin. `mountainName` + `mountainCoordinate` identify the shared Mountain.
public struct MountainVisitData: SharedVisit {
    public typealias Place = Mountain

    public var mountainName: String
    public var height: Double?
    public var mountainCoordinate: Coordinate
    public var achievedHeight: Double?

    public init(mountainName: String, height: Double? = nil, mountainCoordinate: Coordinate, achievedHeight: Double? = nil) {
        self.mountainName = mountainName
        self.height = height
        self.mountainCoordinate = mountainCoordinate
        self.achievedHeight = achievedHeight
    }

    public var locationType: LocationType { .mountain(self) }
    public var sharedName: String { get { mountainName } set { mountainName = newValue } }
    public var sharedCoordinate: Coordinate { get { mountainCoordinate } set { mountainCoordinate = newValue } }
    /// Pins named alike this close share the mountain (a summit and a hut below it).
    public static var sharingKm: Double { 5 }

    public func newPlace(id: UUID) -> Mountain {
        let key = SharedPlaceKey(name: mountainName, coordinate: mountainCoordinate)
        return Mountain(id: id, name: key.name, height: height, coordinate: key.roundedCoordinate, pinCount: 1)
    }

    /// The mountain's height is the last one given: a pin made or edited with a new height
    /// changes it, and every pin on it shows that height.
    public func change(_ mountain: inout Mountain) -> Bool {
        guard let height, height != mountain.height else { return false }
        mountain.height = height
        return true
    }

    public mutating func showOwn(_ mountain: Mountain) { height = mountain.height }
}

/// A city shared by every City pin made in it; `pinCount` pins point at it.
public struct City: SharedPlace, Codable, Hashable {
    public var id: UUID
    public var name: String
    public var coordinate: Coordinate
    public var pinCount: Int
    /// The GeoNames id of the gazetteer place (then `coordinate` is its centre); nil for a city
    /// named by hand.
    public var placeID: Int?

    public init(id: UUID, name: String, coordinate: Coordinate, pinCount: Int = 0, placeID: Int? = nil) {
        self.id = id
        self.name = name
        self.coordinate = coordinate
        self.pinCount = pinCount
        self.placeID = placeID
    }

    public static var pinType: LocationTypeSelection { .city }
    public static var ownColumns: [OwnColumn] { [OwnColumn(name: "place_id", kind: .integer)] }
    public var ownValues: [ColumnValue] { [.integer(placeID)] }
    public init(id: UUID, name: String, coordinate: Coordinate, pinCount: Int, own: [ColumnValue]) {
        self.init(id: id, name: name, coordinate: coordinate, pinCount: pinCount, placeID: own[0].integer)
    }
}

/// A mountain shared by every Mountain pin made on it.
public struct Mountain: SharedPlace, Codable, Hashable {
    public var id: UUID
    public var name: String
    public var height: Double?
    public var coordinate: Coordinate
    public var pinCount: Int

    public init(id: UUID, name: String, height: Double? = nil, coordinate: Coordinate, pinCount: Int = 0) {
        self.id = id
        self.name = name
        self.height = height
        self.coordinate = coordinate
        self.pinCount = pinCount
    }

    public static var pinType: LocationTypeSelection { .mountain }
    public static var ownColumns: [OwnColumn] {
        [OwnColumn(name: "height", kind: .real, listing: OwnColumn.Listing(key: "height", plural: "heights", unit: " m"))]
    }
    public var ownValues: [ColumnValue] { [.real(height)] }
    public init(id: UUID, name: String, coordinate: Coordinate, pinCount: Int, own: [ColumnValue]) {
        self.init(id: id, name: name, height: own[0].real, coordinate: coordinate, pinCount: pinCount)
    }
}
