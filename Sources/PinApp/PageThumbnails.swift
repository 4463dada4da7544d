import Foundation
import PinCore
import PinMetadata
import PinReport
import PinStore

/// The photos' own EXIF thumbnails on the map page, within the page's budget: beside the page's
/// use case (`pageInput`), which alone asks for them.
enum PageThumbnails {
    /// Most photos opened for thumbnails by one page (the newest pins'): bounds the page's cost on
    /// a library whose photos carry none.
    static let thumbnailLookups = 600

    /// Thumbnails of the newest pins' photos, only while the page's budget lasts and at most
    /// `thumbnailLookups` photos are looked at: a page of 10,000 pins opens a few hundred photos,
    /// not 10,000.
    static func attach(to pins: inout [PagePin], places: [UUID: PinPhotoPlace]) {
        var budget = PageRenderer.thumbnailPageCap
        var lookups = 0
        for index in pins.indices.reversed() where budget > 0 && lookups < thumbnailLookups {
            lookups += 1
            guard let place = places[pins[index].location.id], isStill(place),
                  let jpeg = try? ExifThumbnail.read(path: place.path), jpeg.count <= PageRenderer.thumbnailCap else { continue }
            pins[index].thumbnailJPEG = jpeg
            budget -= jpeg.count
        }
    }

    /// The photo is still where its pin says: a regular file at the recorded path with the
    /// recorded size and modification time.
    private static func isStill(_ place: PinPhotoPlace) -> Bool {
        var info = stat()
        guard place.path.withCString({ stat($0, &info) }) == 0, info.st_mode & S_IFMT == S_IFREG else { return false }
        let nanoseconds = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        return Int64(info.st_size) == place.fingerprint.size && nanoseconds == place.fingerprint.modificationNanoseconds
    }
}
