import Foundation
import PinCore
import PinStore

/// The folder previews are kept in (`--cache DIR`, default `previews` beside the database),
/// never beside the photos: one file per photo version, named by a hash of its path, size and
/// modification time (`<key>.jpg` or `.png`), and `<key>.why` holding the reason for a photo that
/// got a placeholder, so that a file no decoder can read is not tried at every run. A preview
/// read is touched, and when the folder grows past `capBytes` the least recently used go first.
public struct PreviewCache: Sendable {
    public let folder: String
    public let capBytes: Int64
    /// The default cap: 1 GiB, about 70,000 previews of 15 KB.
    public static let defaultCapBytes: Int64 = 1 << 30

    public init(folder: String, capBytes: Int64 = defaultCapBytes) {
        self.folder = folder
        self.capBytes = capBytes
    }

    /// The file name stem of a photo version: FNV-1a (64 bits) of its path bytes, size and
    /// modification time, in hex. A changed file is a new version and gets a new preview.
    static func key(_ photo: LinkedPhoto) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix<S: Sequence>(_ bytes: S) where S.Element == UInt8 {
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        }
        mix(photo.path.bytes)
        withUnsafeBytes(of: photo.fingerprint.size.littleEndian) { mix($0) }
        withUnsafeBytes(of: photo.fingerprint.modificationNanoseconds.littleEndian) { mix($0) }
        return String(hash, radix: 16).leftPadded(to: 16)
    }

    /// The stored preview of `photo`, or the reason it has none, or nil when it was never made.
    func stored(_ photo: LinkedPhoto) -> Result<Preview, PreviewReason>? {
        let stem = folder + "/" + Self.key(photo)
        for (ext, type) in [("jpg", "image/jpeg"), ("png", "image/png")] {
            guard let data = FileManager.default.contents(atPath: stem + "." + ext) else { continue }
            // Touched: the cap removes the least recently used first.
            try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: stem + "." + ext)
            return .success(Preview(bytes: Array(data), mimeType: type, placeholder: nil))
        }
        return Self.reason(stem).map { .failure($0) }
    }

    /// What the cache knows of `photo` without reading or touching its preview: success when
    /// it has one, the reason it has none, nil when it was never made.
    func known(_ photo: LinkedPhoto) -> Result<Void, PreviewReason>? {
        let stem = folder + "/" + Self.key(photo)
        if access(stem + ".jpg", F_OK) == 0 || access(stem + ".png", F_OK) == 0 { return .success(()) }
        return Self.reason(stem).map { .failure($0) }
    }

    /// The reason kept in `<stem>.why`; nil when there is none (or not one this pins knows).
    private static func reason(_ stem: String) -> PreviewReason? {
        FileManager.default.contents(atPath: stem + ".why").flatMap { PreviewReason(rawValue: String(decoding: $0, as: UTF8.self)) }
    }

    /// The browser copy of `photo` kept by `storeFull` (`<key>.full.jpg`), touched; nil when none.
    func storedFull(_ photo: LinkedPhoto) -> [UInt8]? {
        let name = folder + "/" + Self.key(photo) + ".full.jpg"
        guard let data = FileManager.default.contents(atPath: name) else { return nil }
        try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: name)
        return Array(data)
    }

    /// Keeps a browser copy (a HEIC's JPEG): counted in the cap like the previews.
    func storeFull(_ bytes: [UInt8], for photo: LinkedPhoto) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let temporary = folder + "/.new-\(UUID().uuidString)"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(bytes)),
              rename(temporary, folder + "/" + Self.key(photo) + ".full.jpg") == 0 else {
            try? FileManager.default.removeItem(atPath: temporary)
            throw AppFailure("cannot write in the preview folder \(folder)")
        }
    }

    /// Keeps `result` for `photo`: the preview through a temporary file renamed into place (a
    /// reader never sees half a file), or the reason.
    func store(_ result: Result<Preview, PreviewReason>, for photo: LinkedPhoto) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let stem = folder + "/" + Self.key(photo)
        let (bytes, name): ([UInt8], String)
        switch result {
        case let .success(preview): (bytes, name) = (preview.bytes, stem + (preview.mimeType == "image/png" ? ".png" : ".jpg"))
        case let .failure(reason): (bytes, name) = (Array(reason.rawValue.utf8), stem + ".why")
        }
        let temporary = folder + "/.new-\(UUID().uuidString)"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(bytes)) else {
            throw AppFailure("cannot write in the preview folder \(folder)")
        }
        guard rename(temporary, name) == 0 else {
            try? FileManager.default.removeItem(atPath: temporary)
            throw AppFailure("cannot write in the preview folder \(folder): \(String(cString: strerror(errno)))")
        }
    }

    /// Removes the least recently used previews until the folder holds at most `capBytes`;
    /// returns the bytes it holds then.
    @discardableResult
    func trim() -> Int64 {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return 0 }
        var files: [(path: String, size: Int64, used: Date)] = []
        for name in names where name.hasSuffix(".jpg") || name.hasSuffix(".png") || name.hasSuffix(".why") {
            let path = folder + "/" + name
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { continue }
            files.append((path, (attributes[.size] as? NSNumber)?.int64Value ?? 0, attributes[.modificationDate] as? Date ?? .distantPast))
        }
        var total = files.reduce(0) { $0 + $1.size }
        for file in files.sorted(by: { $0.used < $1.used }) where total > capBytes {
            if (try? FileManager.default.removeItem(atPath: file.path)) != nil { total -= file.size }
        }
        return total
    }
}

extension String {
    func leftPadded(to width: Int) -> String { count >= width ? self : String(repeating: "0", count: width - count) + self }
}
