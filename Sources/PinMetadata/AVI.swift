import Foundation
import PinCore
import PinGrammar

/// Resource limits of the AVI reader.
extension MetadataLimits {
    /// Most chunks walked (all levels together). Stops a file of millions of empty chunks from
    /// keeping the reader busy; a camera AVI has a few dozen outside `movi`.
    static let maxAVIChunks = 4_096
    /// Largest `hdrl` or `INFO` list read into memory (bytes). Stops a crafted list claiming
    /// hundreds of megabytes; ffmpeg's hdrl with its reserved JUNK is under 8 KiB.
    static let maxAVIListPayload = 1024 * 1024
}

/// AVI (RIFF `AVI `, docs/formats.md section 9.9): the capture time in `IDIT` (in `hdrl`
/// or at the top level; a local wall clock), `LIST INFO` `ICRD` (DateCreated), and Exif with GPS
/// in a stream's `strd` chunk starting `AVIF` (a little-endian IFD0 at byte 8, no TIFF header,
/// offsets counted from the IFD: `TIFF.exifBlock` walks it from offset 0 of the payload and
/// re-packs it behind a TIFF header for libexif).
///
/// Reads the chunk headers of the first RIFF list, and only the payloads of `hdrl`, `INFO` and
/// top-level `IDIT`; never `movi` or `idx1`. Later `RIFF AVIX` lists (files over 1 GiB) hold
/// only media.
enum AVI {
    static let container = "AVI"

    struct Values {
        var idit: String?
        var icrd: String?
        var exif: ExifBlock?
    }

    static func read<S: ByteSource>(in source: inout S, warnings: inout [String]) throws -> Values {
        let size = source.size
        guard size >= 12 else {
            throw MetadataError.endOfFile(container: container, offset: size, expected: "the RIFF header")
        }
        let riffSize = Int(try source.reader(at: 4, count: 4, context: container).u32(at: 4, .littleEndian))
        let end = min(size, 8 + riffSize)
        var values = Values()
        var chunks = 0
        var offset = 12
        while offset + 8 <= end {
            chunks += 1
            guard chunks <= MetadataLimits.maxAVIChunks else {
                warnings.append("AVI: more than \(MetadataLimits.maxAVIChunks) chunks: the rest is not read")
                break
            }
            let header = try source.reader(at: offset, count: min(12, end - offset), context: container)
            let fourcc = try header.bytes(at: offset, count: 4)
            let length = Int(try header.u32(at: offset + 4, .littleEndian))
            guard length <= end - offset - 8 else {
                warnings.append("AVI chunk '\(printable(fourcc))' at byte \(offset) runs past the end of the file: the rest is not read")
                break
            }
            if fourcc == Array("LIST".utf8), length >= 4 {
                let type = try header.bytes(at: offset + 8, count: 4)
                if type == Array("hdrl".utf8) || type == Array("INFO".utf8) {
                    if length > MetadataLimits.maxAVIListPayload {
                        warnings.append("AVI LIST '\(printable(type))' of \(length) bytes is over \(MetadataLimits.maxAVIListPayload): not read")
                    } else {
                        let list = try source.reader(at: offset + 12, count: length - 4, context: container)
                        walk(list, depth: 1, values: &values, chunks: &chunks, warnings: &warnings)
                    }
                }
            } else if fourcc == Array("IDIT".utf8), values.idit == nil, length <= 256 {
                values.idit = text(try source.reader(at: offset + 8, count: length, context: container).allBytes)
            }
            offset += 8 + length + (length & 1)
        }
        return values
    }

    /// The chunks of an in-memory list: `IDIT`, `ICRD`, `strd` and nested `LIST strl`.
    static func walk(_ r: ByteReader, depth: Int, values: inout Values, chunks: inout Int, warnings: inout [String]) {
        var offset = r.range.lowerBound
        while offset + 8 <= r.endOffset, chunks < MetadataLimits.maxAVIChunks {
            chunks += 1
            guard let fourcc = try? r.bytes(at: offset, count: 4),
                  let length = (try? r.u32(at: offset + 4, .littleEndian)).map(Int.init),
                  length <= r.endOffset - offset - 8 else {
                warnings.append("AVI chunk at byte \(offset) runs past its list: the rest of the list is not read")
                return
            }
            let payload = offset + 8
            switch String(decoding: fourcc, as: UTF8.self) {
            case "LIST" where depth < 3 && length >= 4:
                if let inner = try? r.child(at: payload + 4, count: length - 4) {
                    walk(inner, depth: depth + 1, values: &values, chunks: &chunks, warnings: &warnings)
                }
            case "IDIT" where values.idit == nil:
                values.idit = (try? r.bytes(at: payload, count: min(length, 256))).flatMap(text)
            case "ICRD" where values.icrd == nil:
                values.icrd = (try? r.bytes(at: payload, count: min(length, 256))).flatMap(text)
            case "strd" where values.exif == nil && length > 8 && r.matches(Array("AVIF".utf8), at: payload):
                // The TIFF walker re-packs it behind a TIFF header, as it does for TIFF files.
                if let ifd = try? r.bytes(at: payload + 8, count: length - 8) {
                    var source = MemorySource(ifd)
                    do {
                        values.exif = try TIFF.exifBlock(in: &source, order: .littleEndian, ifd0: 0, warnings: &warnings)
                            .map { ExifBlock(tiff: $0.tiff, offset: payload + 8) }
                    } catch {
                        warnings.append("AVI strd Exif at byte \(payload + 8): \(error)")
                    }
                }
            default:
                break
            }
            offset = payload + length + (length & 1)
        }
    }

    static func text(_ bytes: [UInt8]) -> String? {
        let s = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return s.isEmpty ? nil : s
    }

    static func printable(_ bytes: [UInt8]) -> String {
        String(bytes.map { (32...126).contains($0) ? Character(UnicodeScalar($0)) : "?" })
    }

    static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// IDIT as cameras write it: ctime `Mon Mar 10 15:04:43 2003`, or numeric forms such as
    /// Konica's `2002-12-16  15:35:01` (ExifTool's ConvertRIFFDate).
    static func parseIDIT(_ text: String) -> LocalDateTime? {
        let parts = text.split(whereSeparator: { $0 == " " || $0 == "\t" })
        if parts.count >= 5, let month = months.firstIndex(of: parts[1].lowercased()),
           let day = Int(parts[2]), let year = Int(parts[4]), year >= 1000, year <= 9999 {
            let hms = parts[3].split(separator: ":").compactMap { Int($0) }
            guard hms.count == 3, CivilDate.isValid(year: year, month: month + 1, day: day),
                  hms[0] <= 23, hms[1] <= 59, hms[2] <= 60 else { return nil }
            return LocalDateTime(year: year, month: month + 1, day: day, hour: hms[0], minute: hms[1], second: hms[2])
        }
        return CaptureTime.parseDateTime(text)
    }

    static func metadata<S: ByteSource>(in source: inout S, warnings: [String], modificationTime: Date?,
                                        options: MetadataOptions) throws -> PhotoMetadata {
        var warnings = warnings
        let values = try read(in: &source, warnings: &warnings)
        var result = MetadataReader.metadata(format: .avi, exif: values.exif, warnings: warnings,
                                             modificationTime: nil, options: options) { _ in nil }
        if result.takenAt == nil {
            // IDIT, then ICRD: local wall clocks without a zone (section 7 step 5).
            for (text, tag, parse) in [(values.idit, "AVI IDIT", parseIDIT), (values.icrd, "AVI ICRD", CaptureTime.parseDateTime)] {
                guard let text else { continue }
                guard let local = parse(text) else {
                    result.warnings.append("\(tag) '\(CaptureTime.printable(text))' is not a date and time: ignored")
                    continue
                }
                let (date, offset) = CaptureTime.instant(of: local, in: options.defaultTimeZone)
                result.takenAt = date
                result.utcOffsetSeconds = offset
                result.timeSource = .assumedZone
                result.timeTag = tag
                break
            }
        }
        if result.takenAt == nil, let modificationTime {
            result.takenAt = modificationTime
            result.timeSource = .fileModification
        }
        if result.metadataDigest == nil, values.idit != nil || values.icrd != nil {
            result.storedDigest = .value(FNV1a64.hash(Array(((values.idit ?? "") + "\0" + (values.icrd ?? "")).utf8)))
        }
        return result
    }
}
