import CExif
import CSupport
import Glibc

extension MetadataLimits {
    /// Longest Exif ASCII value copied out of libexif (bytes). Stops a date or GPS tag that
    /// announces kilobytes of text from being copied into every result; the values read are at
    /// most a few dozen bytes.
    static let maxExifTextBytes = 256
}

/// libexif for the metadata (the other caller, ExifThumbnail, reads only the embedded
/// thumbnail; docs/formats.md section 2). Takes a TIFF stream (the bytes after `Exif\0\0`,
/// docs/formats.md section 1.2) found by a container reader, loads it with libexif 0.6.24 and copies the raw
/// values we use into an `ExifValues`.
///
/// Thread safety (section 2.6): each call creates its own `ExifData` and `ExifLog`, never shared,
/// and frees them before returning; libexif 0.6.24 has no mutable global state. No value that
/// points into libexif memory escapes a call.
enum ExifDecoder {
    /// The 6-byte identifier libexif expects before the TIFF header (section 2.2).
    static let exifHeader: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0x00, 0x00]

    /// Where to look for the GPS tags.
    enum GPSLocation: Sendable {
        /// `ifd[EXIF_IFD_GPS]`, reached through the 0x8825 pointer (JPEG, HEIF, PNG, WebP, TIFF).
        case gpsDirectory
        /// IFD0 itself: a TIFF stream whose first IFD *is* the GPS IFD (Canon CR3 `CMT4`,
        /// section 3.6).
        case firstDirectory
    }

    /// Decodes `tiff` (starting at its `II`/`MM` header). Never throws: bad data gives fewer
    /// values and warnings; the caller decides what "no values" means.
    static func decode(tiff: [UInt8], gps: GPSLocation = .gpsDirectory) -> ExifValues {
        var values = ExifValues(hasGPSDirectory: false)
        // libexif's many small allocations come from this thread's arena (CSupport): the
        // previous decode on this thread freed all of its blocks, so it can start over.
        pins_exif_arena_reset()
        let mem = exif_mem_new(pins_exif_alloc, pins_exif_realloc, pins_exif_free)
        defer { exif_mem_unref(mem) }
        guard let data = exif_data_new_mem(mem) else {
            values.warnings.append("libexif: out of memory")
            return values
        }
        // The log's messages go to this array, through a pointer to it (no object per call);
        // the data, which holds the log, is released before the pointer goes out of scope.
        var messages: [String] = []
        withUnsafeMutablePointer(to: &messages) { sink in
            defer { exif_data_unref(data) }
            if let log = exif_log_new_mem(mem) {
                exif_log_set_func(log, { _, code, domain, format, args, user in
                    guard let user, let format, let args,
                          code == EXIF_LOG_CODE_CORRUPT_DATA || code == EXIF_LOG_CODE_NO_MEMORY
                    else { return }
                    var buffer = [CChar](repeating: 0, count: MetadataLimits.maxWarningLength)
                    _ = vsnprintf(&buffer, buffer.count, format, args)
                    let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) },
                                      as: UTF8.self)
                    let origin = domain.map { String(cString: $0) } ?? "libexif"
                    LogSink.add("libexif \(origin): \(text)", to: &user.assumingMemoryBound(to: [String].self).pointee)
                }, UnsafeMutableRawPointer(sink))
                exif_data_log(data, log)
                exif_log_unref(log)  // the ExifData holds its own reference
            }
            // Section 2.4: keep misplaced tags, add no defaults. Must precede the load.
            exif_data_unset_option(data, EXIF_DATA_OPTION_IGNORE_UNKNOWN_TAGS)
            exif_data_unset_option(data, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION)

            // Hand libexif `Exif\0\0` + TIFF: it parses that directly, with no JPEG guessing.
            // Assembled in a temporary buffer (on the stack when small: no allocation per file).
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: exifHeader.count + tiff.count) { buffer in
                _ = buffer.initialize(fromContentsOf: exifHeader)
                _ = buffer[exifHeader.count...].initialize(fromContentsOf: tiff)
                exif_data_load_data(data, buffer.baseAddress, UInt32(clamping: buffer.count))
            }
            read(data, gps: gps, into: &values)
        }
        values.warnings = messages + values.warnings
        return values
    }

    /// `decode`, then a second pass when libexif found neither a date nor a GPS directory but
    /// IFD0 points to them: libexif 0.6.24 abandons IFD0 at an offset-like tag (0x0201, 0x0202,
    /// 0xA005) whose value lies past the end of the block, before it reaches the Exif and GPS
    /// pointers (issue 14). The second pass hands libexif the same directories re-packed by
    /// `TIFF.repacked` (IFD0 reduced to the pointers and time tags), so libexif still decodes
    /// the Exif.
    static func decodeRecovering(tiff: [UInt8]) -> ExifValues {
        var first = decode(tiff: tiff)
        func found(_ v: ExifValues) -> Bool {
            v.dateTimeOriginal != nil || v.dateTimeDigitized != nil || v.hasGPSDirectory
        }
        guard !found(first) else { return noteDroppedDates(first, tiff: tiff) }
        var notes: [String] = []
        guard let repacked = TIFF.repacked(tiff, warnings: &notes), repacked != tiff else {
            return noteDroppedDates(first, tiff: tiff)
        }
        var second = decode(tiff: repacked)
        guard found(second) else {
            first = noteDroppedDates(first, tiff: tiff)
            return first
        }
        second.warnings = first.warnings + notes
            + ["libexif stopped in IFD0: the Exif and GPS directories were read on a second pass"] + second.warnings
        return noteDroppedDates(second, tiff: tiff)
    }

    /// Marks as malformed a date tag the directories announce but libexif did not load (issue
    /// 22: an absurd count made the date vanish and the file's time stand in without a word).
    /// Only looked for when DateTimeOriginal is missing: the rare path, one more IFD walk.
    static func noteDroppedDates(_ values: ExifValues, tiff: [UInt8]) -> ExifValues {
        guard values.dateTimeOriginal == nil else { return values }
        var values = values
        let announced = TIFF.announcedDateTags(tiff)
        for (tag, name, value) in [(UInt16(0x9003), "DateTimeOriginal", values.dateTimeOriginal),
                                   (UInt16(0x9004), "DateTimeDigitized", values.dateTimeDigitized)]
        where value == nil && values.malformed[name] == nil {
            guard let entry = announced[tag] else { continue }
            values.malformed[name] = "\(Format.name(UInt32(entry.type))) × \(entry.count) that cannot be read"
        }
        return values
    }

    // MARK: Copying values out

    private static func read(_ data: UnsafeMutablePointer<ExifData>, gps: GPSLocation,
                             into values: inout ExifValues) {
        let order = exif_data_get_byte_order(data)
        let ifds = data.pointee.ifd
        let ifd0 = ifds.0, exif = ifds.2
        let gpsIFD = gps == .gpsDirectory ? ifds.3 : ifds.0
        values.hasGPSDirectory = (gpsIFD?.pointee.count ?? 0) > 0
        let reader = EntryReader(order: order)

        // GPS: only from the GPS IFD; its small tag numbers collide with IFD0 and Interop ones
        // (section 1.3), so never fall back to another IFD.
        if let gpsIFD {
            values.latitudeRef = reader.ascii(gpsIFD, Tag.gpsLatitudeRef, "GPSLatitudeRef", &values)
            let latitude = reader.coordinate(gpsIFD, Tag.gpsLatitude, "GPSLatitude", &values)
            values.latitude = latitude?.parts
            values.longitudeRef = reader.ascii(gpsIFD, Tag.gpsLongitudeRef, "GPSLongitudeRef", &values)
            let longitude = reader.coordinate(gpsIFD, Tag.gpsLongitude, "GPSLongitude", &values)
            values.longitude = longitude?.parts
            // A hemisphere written in the text stands in for a missing reference.
            if values.latitudeRef?.exifTrimmed.isEmpty ?? true, let h = latitude?.hemisphere { values.latitudeRef = String(h) }
            if values.longitudeRef?.exifTrimmed.isEmpty ?? true, let h = longitude?.hemisphere { values.longitudeRef = String(h) }
            values.altitudeRef = reader.byte(gpsIFD, Tag.gpsAltitudeRef, "GPSAltitudeRef", &values)
            values.altitude = reader.rationals(gpsIFD, Tag.gpsAltitude, "GPSAltitude", count: 1, &values)?.first
            values.gpsTimeStamp = reader.rationals(gpsIFD, Tag.gpsTimeStamp, "GPSTimeStamp", count: 3, &values)
            values.gpsDateStamp = reader.ascii(gpsIFD, Tag.gpsDateStamp, "GPSDateStamp", &values)
            values.gpsStatus = reader.ascii(gpsIFD, Tag.gpsStatus, "GPSStatus", &values)
        }

        // Time: the Exif IFD, else IFD0 where some writers misplace them (section 1.5).
        func timeTag(_ tag: UInt32, _ name: String) -> String? {
            if let exif, let value = reader.ascii(exif, tag, name, &values) { return value }
            if let ifd0, let value = reader.ascii(ifd0, tag, name, &values) {
                values.warnings.append("\(name) found in IFD0 instead of the Exif IFD")
                return value
            }
            return nil
        }
        values.dateTimeOriginal = timeTag(Tag.dateTimeOriginal, "DateTimeOriginal")
        values.subSecTimeOriginal = timeTag(Tag.subSecTimeOriginal, "SubSecTimeOriginal")
        values.offsetTimeOriginal = timeTag(Tag.offsetTimeOriginal, "OffsetTimeOriginal")
        values.dateTimeDigitized = timeTag(Tag.dateTimeDigitized, "DateTimeDigitized")
        values.subSecTimeDigitized = timeTag(Tag.subSecTimeDigitized, "SubSecTimeDigitized")
        values.offsetTimeDigitized = timeTag(Tag.offsetTimeDigitized, "OffsetTimeDigitized")
        // DateTime belongs in IFD0 (some writers put it in the Exif IFD, section 1.5); its
        // fraction and offset in the Exif IFD. Read only without the capture dates: it is the
        // last capture time before the file's, and most photos never need it.
        if values.dateTimeOriginal == nil && values.dateTimeDigitized == nil {
            if let ifd0, let value = reader.ascii(ifd0, Tag.dateTime, "DateTime", &values) {
                values.dateTime = value
            } else if let exif {
                values.dateTime = reader.ascii(exif, Tag.dateTime, "DateTime", &values)
            }
            values.subSecTime = timeTag(Tag.subSecTime, "SubSecTime")
            values.offsetTime = timeTag(Tag.offsetTime, "OffsetTime")
        }
    }

    /// Tag numbers (exif-tag.h; the GPS ones are `#define`s there).
    enum Tag {
        static let gpsLatitudeRef: UInt32 = 0x0001
        static let gpsLatitude: UInt32 = 0x0002
        static let gpsLongitudeRef: UInt32 = 0x0003
        static let gpsLongitude: UInt32 = 0x0004
        static let gpsAltitudeRef: UInt32 = 0x0005
        static let gpsAltitude: UInt32 = 0x0006
        static let gpsTimeStamp: UInt32 = 0x0007
        static let gpsStatus: UInt32 = 0x0009
        static let gpsDateStamp: UInt32 = 0x001D
        static let dateTime: UInt32 = 0x0132
        static let offsetTime: UInt32 = 0x9010
        static let subSecTime: UInt32 = 0x9290
        static let dateTimeOriginal: UInt32 = 0x9003
        static let dateTimeDigitized: UInt32 = 0x9004
        static let offsetTimeOriginal: UInt32 = 0x9011
        static let offsetTimeDigitized: UInt32 = 0x9012
        static let subSecTimeOriginal: UInt32 = 0x9291
        static let subSecTimeDigitized: UInt32 = 0x9292
    }

    /// ExifFormat numbers (section 1.2).
    enum Format {
        static let byte: UInt32 = 1, ascii: UInt32 = 2, short: UInt32 = 3
        static let rational: UInt32 = 5, sbyte: UInt32 = 6, undefined: UInt32 = 7
        static let srational: UInt32 = 10

        static func name(_ format: UInt32) -> String {
            switch format {
            case 1: "BYTE"
            case 2: "ASCII"
            case 3: "SHORT"
            case 4: "LONG"
            case 5: "RATIONAL"
            case 6: "SBYTE"
            case 7: "UNDEFINED"
            case 8: "SSHORT"
            case 9: "SLONG"
            case 10: "SRATIONAL"
            case 11: "FLOAT"
            case 12: "DOUBLE"
            default: "type \(format)"
            }
        }
    }

    /// Reads one entry's bytes after checking format, component count and size (section 2.5).
    private struct EntryReader {
        let order: ExifByteOrder

        func entry(_ content: UnsafeMutablePointer<ExifContent>, _ tag: UInt32)
            -> (format: UInt32, components: Int, bytes: UnsafeBufferPointer<UInt8>)? {
            guard let entry = exif_content_get_entry(content, ExifTag(rawValue: tag)) else { return nil }
            let e = entry.pointee
            guard let data = e.data else {
                return (e.format.rawValue, Int(clamping: e.components), UnsafeBufferPointer(start: nil, count: 0))
            }
            return (e.format.rawValue, Int(clamping: e.components),
                    UnsafeBufferPointer(start: UnsafePointer(data), count: Int(e.size)))
        }

        /// ASCII (also UNDEFINED or BYTE, which some writers use for strings), copied as
        /// Latin-1 so that no byte is lost or rejected; NULs are kept for the parsers to trim.
        func ascii(_ content: UnsafeMutablePointer<ExifContent>, _ tag: UInt32, _ name: String,
                   _ values: inout ExifValues) -> String? {
            guard let found = entry(content, tag) else { return nil }
            let format = found.format, bytes = found.bytes
            guard format == Format.ascii || format == Format.undefined || format == Format.byte else {
                values.malformed[name] = "format \(Format.name(format)), expected ASCII"
                return nil
            }
            let kept = bytes.prefix(MetadataLimits.maxExifTextBytes)
            // Plain ASCII (the usual case) decodes directly; other bytes are read as Latin-1.
            if !kept.contains(where: { $0 >= 0x80 }) { return String(decoding: kept, as: UTF8.self) }
            return String(String.UnicodeScalarView(kept.map { Unicode.Scalar($0) }))
        }

        /// A BYTE value (GPSAltitudeRef); SHORT is accepted too.
        func byte(_ content: UnsafeMutablePointer<ExifContent>, _ tag: UInt32, _ name: String,
                  _ values: inout ExifValues) -> UInt8? {
            guard let found = entry(content, tag) else { return nil }
            let format = found.format, components = found.components, bytes = found.bytes
            switch format {
            case Format.byte, Format.undefined, Format.sbyte:
                guard components >= 1, bytes.count >= 1 else { break }
                return bytes[0]
            case Format.short:
                guard components >= 1, bytes.count >= 2, let base = bytes.baseAddress else { break }
                return UInt8(clamping: exif_get_short(base, order))
            default:
                break
            }
            values.malformed[name] = "format \(Format.name(format)) × \(components) in \(bytes.count) bytes, expected BYTE"
            return nil
        }

        /// GPSLatitude/GPSLongitude: three RATIONAL or SRATIONAL values, or text read as
        /// numbers (`GPSConversion.textRationals`; some writers store coordinates as text,
        /// docs/formats.md 9.15), with the hemisphere the text carries.
        func coordinate(_ content: UnsafeMutablePointer<ExifContent>, _ tag: UInt32, _ name: String,
                        _ values: inout ExifValues) -> (parts: [ExifRational], hemisphere: Character?)? {
            guard let found = entry(content, tag) else { return nil }
            guard found.format == Format.ascii else {
                return rationals(content, tag, name, count: 3, &values).map { ($0, nil) }
            }
            let text = String(decoding: found.bytes.prefix(MetadataLimits.maxExifTextBytes).prefix { $0 != 0 }, as: UTF8.self)
            guard let parsed = GPSConversion.textRationals(text) else {
                values.malformed[name] = "text '\(CaptureTime.printable(text))' is not a coordinate"
                return nil
            }
            values.warnings.append("\(name) is written as text ('\(CaptureTime.printable(text))')")
            return parsed
        }

        /// `count` RATIONAL or SRATIONAL values, decoded in the data's byte order.
        func rationals(_ content: UnsafeMutablePointer<ExifContent>, _ tag: UInt32, _ name: String,
                       count: Int, _ values: inout ExifValues) -> [ExifRational]? {
            guard let found = entry(content, tag) else { return nil }
            let format = found.format, components = found.components, bytes = found.bytes
            guard format == Format.rational || format == Format.srational,
                  components >= count, bytes.count >= 8 * count, let base = bytes.baseAddress else {
                values.malformed[name] = "format \(Format.name(format)) × \(components) in \(bytes.count) bytes, expected RATIONAL × \(count)"
                return nil
            }
            return (0..<count).map { i in
                let at = base + 8 * i
                if format == Format.srational {
                    let r = exif_get_srational(at, order)
                    return ExifRational(Int64(r.numerator), Int64(r.denominator), signed: true)
                }
                let r = exif_get_rational(at, order)
                return ExifRational(Int64(r.numerator), Int64(r.denominator))
            }
        }
    }
}

/// The libexif messages of one decode: the first `maxWarnings`, without repeats in a row.
private enum LogSink {
    static func add(_ message: String, to messages: inout [String]) {
        guard messages.count < MetadataLimits.maxWarnings, messages.last != message else { return }
        messages.append(message)
    }
}
