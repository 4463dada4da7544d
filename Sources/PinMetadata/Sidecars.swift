import Foundation
import PinCore

/// Which files next to a photo or video describe it (docs/formats.md sections 6.1, 6.2).
/// Pure name matching: no I/O. Names are raw bytes (they need not be UTF-8); the parts that
/// are extensions (`.xmp`, `.json`, `.supplemental-metadata`, `-edited`, the media's own
/// extension) compare ASCII case-insensitively, the rest of a name byte for byte.
///
/// XMP: `IMG_0001.CR2.xmp` (darktable, digiKam: extension kept) and `IMG_0001.xmp` (Adobe:
/// extension replaced).
///
/// Google Takeout: for a media name N (after removing a `(n)` duplicate counter and an
/// `-edited` suffix from its stem):
/// - `N.json`, `N.supplemental-metadata.json` (exact);
/// - duplicates: `photo(1).jpg` ↔ `photo.jpg(1).json`, `photo.jpg.supplemental-metadata(1).json`;
/// - `-edited` copies share the original's sidecar (`photo-edited.jpg` ↔ `photo.jpg.json`);
/// - truncated: Takeout cuts a long sidecar name to 46 characters + `.json`, so the suffix
///   shrinks (`….jpg.supplemental-me.json`, `….jpg.su.json`) or the media name itself is cut
///   (`….jp.json`); also `photo.json` for `photo.jpg`. These forms are prefixes of the exact
///   name and can be shared by two media files, so they are accepted only when the JSON's
///   `title` confirms them (`Sidecars.needsTitleCheck`, done by `MetadataReader`).
public enum Sidecars {
    enum Kind: String, Sendable, Hashable {
        case xmp
        case takeout
    }

    /// How a sidecar name relates to a media name.
    struct Match: Sendable, Hashable {
        var kind: Kind
        /// Preference among several sidecars of one file (lower first): 0 `IMG.CR2.xmp`,
        /// 1 `IMG.xmp`, 2 exact Takeout names, 3 `-edited` sharing the original's, 4 truncated
        /// or extension-less Takeout names.
        var rank: Int
        /// True for the Takeout forms that must be confirmed by the JSON `title`.
        var needsTitleCheck: Bool
    }

    static let xmpSuffix = Array(".xmp".utf8)
    static let jsonSuffix = Array(".json".utf8)
    static let supplemental = Array(".supplemental-metadata".utf8)
    static let edited = Array("-edited".utf8)

    /// True for names that are sidecars rather than media: `*.xmp` and `*.json` (any case),
    /// with at least one byte before the extension.
    public static func isSidecarName(_ name: [UInt8]) -> Bool {
        (name.count > xmpSuffix.count && hasSuffixCI(name, xmpSuffix))
            || (name.count > jsonSuffix.count && hasSuffixCI(name, jsonSuffix))
    }

    /// The sidecars of `mediaName` among `siblings` (the other names in the same folder), most
    /// specific first (see `Match.rank`; ties in bytewise order). Names needing a title check
    /// are included; the reader confirms them.
    public static func match(mediaName: [UInt8], siblings: [[UInt8]]) -> [[UInt8]] {
        guard !mediaName.isEmpty, !isSidecarName(mediaName) else { return [] }
        var found: [(rank: Int, name: [UInt8])] = []
        for sibling in siblings where sibling != mediaName {
            if let m = classify(sidecarName: sibling, mediaName: mediaName) {
                found.append((m.rank, sibling))
            }
        }
        found.sort { $0.rank != $1.rank ? $0.rank < $1.rank : $0.name.lexicographicallyPrecedes($1.name) }
        var seen = Set<[UInt8]>()
        return found.map(\.name).filter { seen.insert($0).inserted }
    }

    /// How `sidecarName` belongs to `mediaName`, or nil when it does not.
    static func classify(sidecarName: [UInt8], mediaName: [UInt8]) -> Match? {
        guard !mediaName.isEmpty, !isSidecarName(mediaName) else { return nil }
        let (stem, ext) = splitExtension(mediaName)
        if sidecarName.count > xmpSuffix.count, hasSuffixCI(sidecarName, xmpSuffix) {
            let core = Array(sidecarName.dropLast(xmpSuffix.count))
            if equalName(core, mediaName, stemLength: stem.count) { return Match(kind: .xmp, rank: 0, needsTitleCheck: false) }
            if !ext.isEmpty, core == stem { return Match(kind: .xmp, rank: 1, needsTitleCheck: false) }
            return nil
        }
        guard sidecarName.count > jsonSuffix.count, hasSuffixCI(sidecarName, jsonSuffix) else { return nil }
        var body = Array(sidecarName.dropLast(jsonSuffix.count))
        let jsonCounter = duplicateCounter(body)
        if let jsonCounter { body.removeLast(jsonCounter.count) }

        var best: Match?
        func consider(_ m: Match) {
            if best == nil || m.rank < best!.rank { best = m }
        }
        for candidate in originalNames(mediaName) where candidate.counter == jsonCounter {
            let name = candidate.name
            let nameStem = splitExtension(name).stem.count
            let full = name + supplemental
            let shared = candidate.sharesOriginal ? 1 : 0
            if equalName(body, name, stemLength: nameStem) || equalName(body, full, stemLength: nameStem) {
                consider(Match(kind: .takeout, rank: 2 + shared, needsTitleCheck: false))
            } else if body.count > name.count + 1, body.count < full.count,
                      isPrefix(body, of: full, stemLength: nameStem) {
                consider(Match(kind: .takeout, rank: 4, needsTitleCheck: true))  // `.supplemental-me`, `.su`
            } else if body.count < name.count, body.count >= nameStem || body.count >= truncatedLength,
                      isPrefix(body, of: name, stemLength: nameStem) {
                consider(Match(kind: .takeout, rank: 4, needsTitleCheck: true))  // `photo.jp`, `photo`
            }
        }
        return best
    }

    /// Characters Takeout keeps of a long sidecar name before `.json` (section 6.2).
    static let truncatedLength = 46

    /// True when a Takeout JSON `title` names `mediaName` (or the original it was copied from:
    /// without `(n)` or `-edited`), case-insensitively, with or without the extension.
    static func titleMatches(_ title: String, mediaName: [UInt8]) -> Bool {
        let wanted = Array(title.trimmingCharacters(in: .whitespacesAndNewlines).utf8)
        guard !wanted.isEmpty else { return false }
        for candidate in originalNames(mediaName) {
            if equalCI(wanted, candidate.name) || equalCI(wanted, splitExtension(candidate.name).stem) {
                return true
            }
        }
        return false
    }

    // MARK: Name pieces

    /// The name the media file had in Google Photos, with the duplicate counter Takeout put on
    /// it: the name itself; without `-edited`; without `(n)` (counter `(n)`).
    struct OriginalName: Hashable {
        var name: [UInt8]
        var counter: [UInt8]?
        var sharesOriginal: Bool
    }

    static func originalNames(_ mediaName: [UInt8]) -> [OriginalName] {
        let (stem, ext) = splitExtension(mediaName)
        var result = [OriginalName(name: mediaName, counter: nil, sharesOriginal: false)]
        var base = stem
        var isEdited = false
        if base.count > edited.count, hasSuffixCI(base, edited) {
            base.removeLast(edited.count)
            isEdited = true
            result.append(OriginalName(name: base + ext, counter: nil, sharesOriginal: true))
        }
        if let counter = duplicateCounter(base), base.count > counter.count {
            base.removeLast(counter.count)
            result.append(OriginalName(name: base + ext, counter: counter, sharesOriginal: isEdited))
        }
        return result
    }

    /// `(digits)` at the end of `name`, if any (1–4 digits: Takeout's duplicate counter).
    static func duplicateCounter(_ name: [UInt8]) -> [UInt8]? {
        guard name.last == UInt8(ascii: ")"), let open = name.lastIndex(of: UInt8(ascii: "(")) else { return nil }
        let digits = name[(open + 1)..<(name.count - 1)]
        guard (1...4).contains(digits.count), digits.allSatisfy({ (48...57).contains($0) }) else { return nil }
        return Array(name[open...])
    }

    /// Stem and extension (with its dot) split at the last dot; a leading dot is no extension.
    static func splitExtension(_ name: [UInt8]) -> (stem: [UInt8], ext: [UInt8]) {
        guard let dot = name.lastIndex(of: UInt8(ascii: ".")), dot > 0 else { return (name, []) }
        return (Array(name[..<dot]), Array(name[dot...]))
    }

    static func lower(_ b: UInt8) -> UInt8 { (65...90).contains(b) ? b + 32 : b }

    static func hasSuffixCI(_ name: [UInt8], _ suffix: [UInt8]) -> Bool {
        name.count >= suffix.count && zip(name.suffix(suffix.count), suffix).allSatisfy { lower($0) == lower($1) }
    }

    static func equalCI(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { lower($0) == lower($1) }
    }

    /// Equal, bytes before `stemLength` exactly and the rest (extensions) case-insensitively.
    static func equalName(_ a: [UInt8], _ b: [UInt8], stemLength: Int) -> Bool {
        a.count == b.count && isPrefix(a, of: b, stemLength: stemLength)
    }

    static func isPrefix(_ a: [UInt8], of b: [UInt8], stemLength: Int) -> Bool {
        guard a.count <= b.count else { return false }
        for i in a.indices {
            if i < stemLength ? a[i] != b[i] : lower(a[i]) != lower(b[i]) { return false }
        }
        return true
    }
}

// MARK: - Reading sidecar files

/// Sidecar contents read for one media file.
struct SidecarContents: Sendable {
    var xmp: [XMPValues] = []
    var takeout: [TakeoutValues] = []
    var warnings: [String] = []
    /// The bytes of every sidecar read, in order: part of the photo's metadata digest, so an
    /// edited sidecar makes the photo count as changed.
    var bytes: [UInt8] = []
    /// A sidecar that went away between the listing and its read (`FileLost`): the photo is
    /// then not read either.
    var lost: FileLost?
}

enum SidecarLoader {
    /// Reads and parses `paths` (as returned by `Sidecars.match`) for the media file named
    /// `mediaName`. A sidecar that cannot be read or parsed gives a warning, never an error;
    /// one that went away (`FileLost`) is set in `lost`.
    static func load(_ paths: [RawPath], mediaName: [UInt8], options: MetadataOptions) -> SidecarContents {
        var contents = SidecarContents()
        for path in paths {
            let name = lastComponent(path.bytes)
            let label = RawPath(bytes: name).description
            let match = Sidecars.classify(sidecarName: name, mediaName: mediaName)
            let kind = match?.kind ?? (Sidecars.hasSuffixCI(name, Sidecars.xmpSuffix) ? .xmp : .takeout)
            let limit = kind == .xmp ? MetadataLimits.maxXMPPacketBytes : MetadataLimits.maxTakeoutJSONBytes
            let bytes: [UInt8]
            do {
                bytes = try readWhole(path, limit: limit)
            } catch let error as FileLost {
                contents.lost = contents.lost ?? FileLost(.cannotOpen(reason: "\(systemError(error.code)) (sidecar \(label))"), code: error.code)
                continue
            } catch {
                contents.warnings.append("sidecar \(label): \(error)")
                continue
            }
            contents.bytes += bytes
            switch kind {
            case .xmp:
                guard let values = XMP.parse(bytes, options: options) else {
                    contents.warnings.append("sidecar \(label): no XMP packet")
                    continue
                }
                contents.warnings += values.warnings.map { "sidecar \(label): \($0)" }
                contents.xmp.append(values)
            case .takeout:
                guard let values = TakeoutSidecar.parse(bytes) else {
                    contents.warnings.append("sidecar \(label): not a Google Takeout JSON sidecar")
                    continue
                }
                if match?.needsTitleCheck ?? true {
                    guard let title = values.title, Sidecars.titleMatches(title, mediaName: mediaName) else {
                        let shown = values.title.map { "'\(CaptureTime.printable($0))'" } ?? "no title"
                        contents.warnings.append("sidecar \(label): title \(shown) does not name this file: ignored")
                        continue
                    }
                }
                contents.warnings += values.warnings.map { "sidecar \(label): \($0)" }
                contents.takeout.append(values)
            }
        }
        return contents
    }

    static func lastComponent(_ path: [UInt8]) -> [UInt8] {
        var end = path.count
        while end > 1, path[end - 1] == UInt8(ascii: "/") { end -= 1 }
        let trimmed = path[..<end]
        if let slash = trimmed.lastIndex(of: UInt8(ascii: "/")) { return Array(trimmed[(slash + 1)...]) }
        return Array(trimmed)
    }

    /// The whole file, refusing files over `limit` bytes.
    static func readWhole(_ path: RawPath, limit: Int) throws -> [UInt8] {
        try withOpenFile(path) { fd, size in
            guard size <= limit else {
                throw MetadataError.limitExceeded(container: "sidecar", what: "\(size) bytes", limit: limit)
            }
            guard size > 0 else { return [] }
            var source = try FileSource(fd: fd, size: size)
            return try source.reader(at: 0, count: size, context: "sidecar").allBytes
        }
    }
}
