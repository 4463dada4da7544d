import PinCore
import PinImport
import PinPlaces
import PinReport

// The runs drawn over the map page are built here, by the caller of the import, from its plain
// report: PinImport knows nothing of the page (issue 35 item 4).

/// The run drawn over the map page (`pins import --html`): the photos it decided with a
/// position (created, and the first skipped ones), those without, the unreadable files, the
/// pins that followed their photo's sidecar, and the counts.
extension ImportReport {
    var runOverlay: RunOverlay {
        var created: [RunOverlay.Photo] = []
        var skipped: [RunOverlay.Photo] = []
        var unplaced: [RunOverlay.Unreadable] = []
        for item in items {
            guard let coordinate = item.metadata?.coordinate else {
                if item.decision == .noLocation, unplaced.count < RunOverlay.unplacedListedCap {
                    unplaced.append(RunOverlay.Unreadable(photo: item.entry.relativePath.description,
                                                          reason: item.detail ?? item.decision.words))
                }
                continue
            }
            let photo = overlayPhoto(item, at: coordinate)
            switch item.decision {
            case .accepted: created.append(photo)
            case .interval, .distance, .noLocation: if skipped.count < RunOverlay.skippedDrawnCap { skipped.append(photo) }
            case .unreadable, .notMedia: break
            }
        }
        let unreadableFiles = unreadable.map { RunOverlay.Unreadable(photo: $0.entry.relativePath.description, reason: $0.detail ?? "unreadable") }
            + problems.map { RunOverlay.Unreadable(photo: $0.path.description, reason: $0.reason) }
        // Pins that followed their photo's sidecar: moved, or kept where they were.
        let followed = corrected.prefix(RunOverlay.skippedDrawnCap).map { c in
            RunOverlay.Correction(pin: c.pinID.lowercasedText, title: c.title,
                                  newTitle: c.plan.flatMap { $0.title == c.title ? nil : $0.title }, photo: c.photo.description,
                                  from: c.from, to: c.to, country: c.to == nil ? nil : c.plan?.country)
        }
        var overlay = RunOverlay(root: root, dryRun: dryRun, created: created, skipped: skipped,
                                 counts: skippedCounts, unreadable: unreadableFiles, corrected: Array(followed),
                                 movedCount: pinsMoved, keptCount: pinsKept)
        overlay.unplaced = unplaced
        return overlay
    }

    /// One decided photo with a position, as the page draws it.
    private func overlayPhoto(_ item: ImportItem, at coordinate: Coordinate) -> RunOverlay.Photo {
        var photo = RunOverlay.Photo(
            photo: item.entry.relativePath.description, latitude: coordinate.latitude, longitude: coordinate.longitude,
            takenAt: item.takenAtText, reason: item.decision == .accepted ? "created" : item.decision.rawValue, detail: item.detail,
            title: item.title, country: item.country, pin: dryRun ? nil : item.locationID?.lowercasedText)
        photo.positionSource = item.metadata?.positionSource?.rawValue
        // A pin a new or changed track made of a photo an earlier run skipped (issue 29, nightly).
        if item.isRetriedForTracks, item.decision == .accepted {
            photo.detail = item.estimateDetail == nil ? "skipped earlier for no location, decided again for a new or changed track"
                : "skipped earlier for no location, decided again for the photos with a position around it"
        }
        // A position from the photos around it says from which (issue 36 item 4).
        if let estimate = item.estimateDetail {
            photo.detail = "position from the photos around it: " + estimate + (photo.detail.map { "; " + $0 } ?? "")
        }
        if let fix = item.trackFix {
            photo.trackFile = fix.file
            photo.secondsToTrackFix = fix.seconds
        }
        return photo
    }
}

extension PlacesImportReport {
    /// The places import drawn over the map page: created pins, and skipped records that have a
    /// position, as the photo import's page draws photos.
    var runOverlay: RunOverlay {
        var created: [RunOverlay.Photo] = []
        var skipped: [RunOverlay.Photo] = []
        var unreadable: [RunOverlay.Unreadable] = []
        for item in items {
            let name = "\(item.file) \(item.position)"
            guard let c = item.coordinate else {
                if item.decision == .malformed { unreadable.append(RunOverlay.Unreadable(photo: name, reason: item.detail ?? "malformed")) }
                continue
            }
            let photo = RunOverlay.Photo(photo: name, latitude: c.latitude, longitude: c.longitude, takenAt: item.date,
                                         reason: item.decision == .created ? "created" : item.decision.rawValue, detail: item.detail,
                                         title: item.title, country: item.country,
                                         pin: dryRun ? nil : item.pinID?.lowercasedText)
            switch item.decision {
            case .created: created.append(photo)
            case .distance: if skipped.count < RunOverlay.skippedDrawnCap { skipped.append(photo) }
            default: break
            }
        }
        let counts: [String: Int] = ["distance": count(.distance), "noLocation": count(.noLocation),
                                     "unreadable": count(.malformed)]
        return RunOverlay(root: runRoot, dryRun: dryRun, created: created, skipped: skipped, counts: counts,
                          unreadable: unreadable, corrected: [], movedCount: 0, keptCount: 0)
    }

    /// The files imported, as the page's title and the overlay name them.
    var runRoot: String { files.map(\.file).joined(separator: ", ") }
}

extension PinApp {
    /// The page of the database with a photo import's run drawn over it (`pins import --html`).
    public func pageInput(photoImport report: ImportReport) throws -> PageInput {
        try pageInput(title: "pins: " + (report.dryRun ? "dry run of " : "import of ") + report.root,
                      filterDescription: nil, run: report.runOverlay)
    }

    /// The page of the database with a places import drawn over it (`pins import-places --html`).
    public func pageInput(placesImport report: PlacesImportReport) throws -> PageInput {
        try pageInput(title: "pins: " + (report.dryRun ? "dry run of " : "import of ") + report.runRoot,
                      filterDescription: nil, run: report.runOverlay)
    }
}
