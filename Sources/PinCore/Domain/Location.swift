import Foundation

/// A pin: the central model, as in the app.
public struct Location: Identifiable, Codable, Sendable, Hashable {
    public var id: UUID
    public var title: String
    public var coordinate: Coordinate
    /// ISO 3166-1 alpha-2 code of the country the pin lies in, nil at sea or where unknown.
    public var countryID: String?
    public var type: LocationType
    public var date: Date
    /// `#RRGGBB`.
    public var color: String
    public var visitCount: Int
    public var note: String?
    public var tags: [String]?
    /// Identities of the photos that made this pin (the importer's photo identity).
    public var photoIDs: [String]
    /// The import run that made this pin (`pins runs` lists it); nil for a pin made by hand.
    public var runID: Int64?
    /// The offset from UTC of the place and moment of the visit (the photo's own offset, or the
    /// one written with `--date`): dates are shown in it. nil when unknown (then UTC).
    public var utcOffsetSeconds: Int? = nil
    /// When the user last changed the pin (`pins edit`); nil for a pin as it was created. An
    /// undone import leaves edited pins alone.
    public var editedAt: Date? = nil

    public init(id: UUID, title: String, coordinate: Coordinate, countryID: String? = nil,
                type: LocationType = .point, date: Date, color: String = Settings.defaultPinColor,
                visitCount: Int = 1, note: String? = nil, tags: [String]? = nil, photoIDs: [String] = [],
                runID: Int64? = nil) {
        self.id = id
        self.title = title
        self.coordinate = coordinate
        self.countryID = countryID
        self.type = type
        self.date = date
        self.color = color
        self.visitCount = visitCount
        self.note = note
        self.tags = tags
        self.photoIDs = photoIDs
        self.runID = runID
    }
}
