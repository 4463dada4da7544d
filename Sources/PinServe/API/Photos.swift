import Foundation
import PinApp
import PinCore

/// Photos, by the id of a pin the database knows and the index of its photo: the path comes
/// from the database, never from the request, and is served only when its real path (every
/// symbolic link resolved) lies under one of the --library folders and is a regular file.
extension AppBackend {
    /// The largest photo sent (the bytes are read into memory; a phone's JPEG is 2-10 MB).
    static let photoLimit = 32 << 20

    func photo(_ id: UUID, _ index: Int) throws -> HTTPResponse {
        guard let photos = try app.photosOfPin(id) else { throw RequestError(404, "no pin with id \(id.lowercasedText)") }
        guard index < photos.count else { throw RequestError(404, "the pin has \(photos.count) photo(s)") }
        guard let real = servable(photos[index].path) else {
            throw RequestError(403, "the photo is not in a --library folder of this server")
        }
        return try fileResponse(real)
    }

    /// The file at `real` when a browser shows its kind (by its first bytes), within the limit.
    /// Opened by its bytes: a name that is not UTF-8 has no `String` that names it.
    func fileResponse(_ real: RawPath) throws -> HTTPResponse {
        let fd = real.withCString { open($0, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { throw RequestError(404, "the photo is not there any more") }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        defer { try? handle.close() }
        let data = try handle.read(upToCount: Self.photoLimit + 1) ?? Data()
        guard data.count <= Self.photoLimit else { throw RequestError(413, "the photo is over \(Self.photoLimit >> 20) MiB") }
        guard let type = Self.imageType(data) else { throw RequestError(415, "a browser cannot show this photo's format") }
        var response = HTTPResponse(status: 200, headers: [("Content-Type", type)], body: [UInt8](data))
        response.headers.append(("Cache-Control", "private, max-age=3600"))
        return response
    }

    /// The preview of photo record `id` (issue 39): only a photo the database links to a pin,
    /// only when its file lies in a --library folder (checked before any decoder reads it);
    /// made now when the preview folder beside the database lacks it; a placeholder SVG that
    /// says why when there is none.
    func preview(_ id: Int64) throws -> HTTPResponse {
        try checkServable(id)
        guard let preview = try app.preview(photoID: id, cache: previewCache) else { throw RequestError(404, "no photo with id \(id)") }
        var response = HTTPResponse(status: 200, headers: [("Content-Type", preview.mimeType)], body: preview.bytes)
        response.headers.append(("Cache-Control", "private, max-age=3600"))
        return response
    }

    /// Photo record `id` as a browser opens it: a HEIC's JPEG copy (made once into the preview
    /// folder), a raw's embedded JPEG, or the file itself when a browser shows its kind.
    func openPhoto(_ id: Int64) throws -> HTTPResponse {
        let real = try checkServable(id)
        switch try app.browserCopy(photoID: id, cache: previewCache) {
        case nil: throw RequestError(404, "no photo with id \(id)")
        case let .failure(reason)?: throw RequestError(415, "no copy a browser shows: \(reason.words)")
        case let .success(copy?)?:
            var response = HTTPResponse(status: 200, headers: [("Content-Type", copy.mimeType)], body: copy.bytes)
            response.headers.append(("Cache-Control", "private, max-age=3600"))
            return response
        case .success(nil)?:
            return try fileResponse(real)
        }
    }

    /// The preview folder: `previews` beside the database, as `pins previews` makes it.
    var previewCache: PreviewCache { PreviewCache(folder: app.defaultPreviewFolder) }

    /// The real path of photo record `id`'s file: 404 for an id the database does not link to a
    /// pin, 403 for a file outside the --library folders.
    @discardableResult
    func checkServable(_ id: Int64) throws -> RawPath {
        guard let path = try app.linkedPhotoPath(photoID: id) else { throw RequestError(404, "no photo with id \(id)") }
        guard let real = servable(path) else { throw RequestError(403, "the photo is not in a --library folder of this server") }
        return real
    }

    /// The real path of `path` when it is a regular file under a --library folder, else nil.
    /// All in bytes, as the kernel has them: a name that is not UTF-8 (`caf\xE9.jpg` from an
    /// old camera card) is resolved and compared as it is, never through a `String`.
    func servable(_ path: RawPath) -> RawPath? {
        guard !libraries.isEmpty, let resolved = path.withCString({ realpath($0, nil) }) else { return nil }
        defer { free(resolved) }
        let real = RawPath(bytes: Array(UnsafeRawBufferPointer(start: resolved, count: strlen(resolved))))
        var info = stat()
        guard real.withCString({ stat($0, &info) }) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return libraries.contains { real.bytes.starts(with: Array(($0.hasSuffix("/") ? $0 : $0 + "/").utf8)) } ? real : nil
    }

    /// The image types a browser shows, by their first bytes (never by the file name).
    static func imageType(_ data: Data) -> String? {
        let b = [UInt8](data.prefix(12))
        if b.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if b.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "image/png" }
        if b.starts(with: Array("GIF8".utf8)) { return "image/gif" }
        if b.count >= 12, b.starts(with: Array("RIFF".utf8)), Array(b[8..<12]) == Array("WEBP".utf8) { return "image/webp" }
        return nil
    }
}
