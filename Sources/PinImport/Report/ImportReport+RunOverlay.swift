import PinCore
import PinReport

/// The run drawn over the map page (`pins import --html`): the photos it decided with a
/// position (created, and the first skipped ones), those without, the unreadable files, the
/// pins that followed their photo's sidecar, and the counts.
extension ImportReport {
    public var runOverlay: RunOverlay {
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
            photo.detail = "skipped earlier for no location, decided again for a new or changed track"
        }
        if let fix = item.trackFix {
            photo.trackFile = fix.file
            photo.secondsToTrackFix = fix.seconds
        }
        return photo
    }
}
