import Foundation
import PinCore

/// Options the CLI passes to the readers.
public struct MetadataOptions: Sendable {
    /// Zone for capture times that carry none and cannot be inferred (section 7 step 5): the
    /// camera's zone (`--camera-timezone`), else `--timezone`.
    public var defaultTimeZone: TimeZone
    /// Zones by position: a wall-clock time on a photo with a position is read in the zone there
    /// instead (`MetadataMerge.placeInZoneOfPosition`); nil keeps `defaultTimeZone` for all.
    public var timeZones: (any TimeZoneLocating)?
    /// Seconds added to the instant of every photo without a position of its own
    /// (`--camera-clock-offset`, exiftool's Geosync: -12 when the camera clock was 12 s fast).
    /// Applied once, when the instant is decided (`MetadataMerge.settleTime`): the tracks, the
    /// rules, the stored date and the reports all see the corrected instant (issue 36 item 1).
    public var cameraClockOffset: Double

    public init(defaultTimeZone: TimeZone = .current, timeZones: (any TimeZoneLocating)? = nil,
                cameraClockOffset: Double = 0) {
        self.defaultTimeZone = defaultTimeZone
        self.timeZones = timeZones
        self.cameraClockOffset = cameraClockOffset
    }
}

/// Entry point of the metadata layer: sniffs a file's content, dispatches to the container
/// reader, and turns the raw Exif values into a `PhotoMetadata`.
///
/// Safe to call concurrently from many tasks: no shared mutable state; each call owns its file
/// descriptor, buffers and libexif objects.
public enum MetadataReader {
    /// Recognises the container from the first bytes (see `FileKind.sniff`; `FileKind.sniffLength`
    /// bytes are enough). `.notMedia` for anything that is not a photo/video container we know.
    static func sniff(_ firstBytes: UnsafeRawBufferPointer) -> FileKind {
        FileKind.sniff(firstBytes)
    }

    /// Same on an array.
    static func sniff(_ firstBytes: [UInt8]) -> FileKind {
        FileKind.sniff(firstBytes)
    }

    /// Opens and reads one file, only the bytes needed: one `MetadataLimits.firstReadSize` (4 KiB)
    /// pread first, then exact ranges for the segments or boxes that hold metadata; the
    /// descriptor is always closed.
    /// - Returns: nil when the content is not media (the pipeline counts it as a plain file).
    /// - Throws: `MetadataError` for media whose metadata cannot be read (unreadable).
    /// - Parameter modificationTime: the file's mtime, the last-resort capture time
    ///   (`timeSource = .fileModification`).
    public static func read(path: RawPath, modificationTime: Date, options: MetadataOptions) throws -> PhotoMetadata? {
        try readFile(path: path, modificationTime: modificationTime, options: options)
            .map { MetadataMerge.settleTime($0, options: options) }
    }

    private static func readFile(path: RawPath, modificationTime: Date, options: MetadataOptions) throws -> PhotoMetadata? {
        try withOpenFile(path) { fd, size in
            var source = try FileSource(fd: fd, size: size)
            return try readLosingNothing(&source) { try read(source: &$0, modificationTime: modificationTime, options: options) }
        }
    }

    /// The same for a file the caller did not stat: its modification time comes from the fstat
    /// of the descriptor opened here, which `status` receives (nil when the file could not be
    /// opened; set whatever the read then throws).
    private static func readFile(path: RawPath, status: inout FileStatus?, options: MetadataOptions) throws -> PhotoMetadata? {
        try withOpenFile(path, status: &status) { fd, status in
            var source = try FileSource(fd: fd, size: Int(status.size))
            return try readLosingNothing(&source) { try read(source: &$0, modificationTime: status.modificationDate, options: options) }
        }
    }

    /// Runs a container reader on `source`; a read of it that failed because the file went away
    /// (`FileSource.lost`) is thrown even when the reader made a warning of it: what was read
    /// is not the whole file, so it is no decision.
    private static func readLosingNothing(_ source: inout FileSource,
                                          _ body: (inout FileSource) throws -> PhotoMetadata?) throws -> PhotoMetadata? {
        let result: PhotoMetadata?
        do {
            result = try body(&source)
        } catch {
            throw source.lost ?? error
        }
        if let lost = source.lost { throw lost }
        return result
    }

    /// Same, then merges the sidecars found next to the file (`Sidecars.match`: XMP files and
    /// Google Takeout JSON) by the precedence of `MetadataMerge`. A sidecar that cannot be read
    /// or parsed, or a truncated Takeout name whose JSON `title` names another file, gives a
    /// warning and is ignored; only the media file itself can make the result an error.
    /// An empty `sidecars` is the same as the overload without it.
    public static func read(path: RawPath, modificationTime: Date, options: MetadataOptions,
                            sidecars: [RawPath]) throws -> PhotoMetadata? {
        guard let base = try readFile(path: path, modificationTime: modificationTime, options: options) else { return nil }
        return try merge(base, path: path, modificationTime: modificationTime, options: options, sidecars: sidecars)
    }

    /// Bytes `prefetch` asks the kernel to read ahead of each file: a JPEG's Exif is in its
    /// first 64 KiB.
    static let prefetchBytes = 64 * 1024

    /// Opens `paths` ahead of their reads on this thread and starts the reads of their first
    /// `prefetchBytes` without waiting (posix_fadvise WILLNEED); `read(path:...)` of one of
    /// them on this thread then uses the descriptor opened here. For a cold cache: the thread
    /// waits for the disk once for the lot, not once per file. A file changed after this call
    /// is read as it is then (the descriptor is the same file); one not read is closed at the
    /// next call, or when the thread ends.
    public static func prefetch(_ paths: [RawPath]) {
        FolderCache.prefetch(paths, bytes: prefetchBytes)
    }

    /// The same for a file the caller did not stat (`status` nil on the way in): `status`
    /// receives what fstat(2) said of it once opened, and its modification time is the one
    /// used. It stays nil when the file could not be opened (the error says why).
    public static func read(path: RawPath, options: MetadataOptions, sidecars: [RawPath],
                            status: inout FileStatus?) throws -> PhotoMetadata? {
        guard let base = try readFile(path: path, status: &status, options: options) else { return nil }
        return try merge(base, path: path, modificationTime: status!.modificationDate, options: options, sidecars: sidecars)
    }

    private static func merge(_ base: PhotoMetadata, path: RawPath, modificationTime: Date, options: MetadataOptions,
                              sidecars: [RawPath]) throws -> PhotoMetadata {
        guard !sidecars.isEmpty else { return MetadataMerge.settleTime(base, options: options) }
        let contents = SidecarLoader.load(sidecars, mediaName: SidecarLoader.lastComponent(path.bytes), options: options)
        // A sidecar listed with the photo that went away since: the photo without it would say
        // something else than the pair does.
        if let lost = contents.lost { throw lost }
        var merged = MetadataMerge.applySidecars(xmp: contents.xmp, takeout: contents.takeout, to: base,
                                                 modificationTime: modificationTime)
        merged.warnings += contents.warnings
        // The sidecars are part of what the photo says: an edited sidecar changes the digest, so
        // a later import decides the photo again (and a moved pair keeps its identity).
        if !contents.bytes.isEmpty {
            merged.storedDigest = .value(FNV1a64.hash(Array((base.metadataDigest ?? "").utf8) + contents.bytes))
        }
        return MetadataMerge.settleTime(MetadataMerge.capped(merged), options: options)
    }

    /// Same on bytes already in memory (tests, sidecars). Without `modificationTime` a file with
    /// no capture time gets `takenAt = nil`, `timeSource = .none`.
    public static func read(bytes: [UInt8], modificationTime: Date?, options: MetadataOptions) throws -> PhotoMetadata? {
        var source = MemorySource(bytes)
        return try read(source: &source, modificationTime: modificationTime, options: options)
            .map { MetadataMerge.settleTime($0, options: options) }
    }

    // MARK: Internals

    static func read<S: ByteSource>(source: inout S, modificationTime: Date?,
                                    options: MetadataOptions) throws -> PhotoMetadata? {
        let head = try source.reader(at: 0, count: min(FileKind.sniffLength, source.size), context: "file")
        let kind = head.withUnsafeBytes { FileKind.sniff($0) }
        var warnings: [String] = []
        let found: EmbeddedMetadata
        switch kind {
        case .notMedia:
            return nil
        case .jpeg:
            let exif = try JPEG.findExif(in: &source, warnings: &warnings)
            return metadata(format: kind, exif: exif, warnings: warnings,
                            modificationTime: modificationTime, options: options,
                            extendedXMP: { guid, xmpWarnings in JPEG.findExtendedXMP(in: &source, guid: guid, warnings: &xmpWarnings) },
                            embeddedXMP: { xmpWarnings in JPEG.findXMP(in: &source, warnings: &xmpWarnings) })
        case .heif:
            found = try HEIF.findMetadata(in: &source, warnings: &warnings)
        case .png:
            found = try PNG.findMetadata(in: &source, warnings: &warnings)
        case .webp:
            found = try WebP.findMetadata(in: &source, warnings: &warnings)
        case .tiff:
            found = try TIFF.findMetadata(in: &source, warnings: &warnings)
        case .raf:
            found = try RAF.findMetadata(in: &source, warnings: &warnings)
        case .psd:
            found = try PSD.findMetadata(in: &source, warnings: &warnings)
        case .jxl:
            found = try JXL.findMetadata(in: &source, warnings: &warnings)
        case .jp2:
            found = try JP2.findMetadata(in: &source, warnings: &warnings)
        case .gif:
            found = try GIF.findMetadata(in: &source, warnings: &warnings)
        case .mrw:
            found = try MRW.findMetadata(in: &source, warnings: &warnings)
        case .crw:
            found = try CRW.findMetadata(in: &source, warnings: &warnings)
        case .x3f:
            found = try X3F.findMetadata(in: &source, warnings: &warnings)
        case .mpegts:
            return try TransportStream.metadata(in: &source, warnings: warnings, modificationTime: modificationTime,
                                                options: options)
        case .avi:
            return try AVI.metadata(in: &source, warnings: warnings, modificationTime: modificationTime, options: options)
        case .matroska:
            return try Matroska.metadata(in: &source, warnings: warnings, modificationTime: modificationTime,
                                         options: options)
        case .quicktime:
            let values = try QuickTime.read(in: &source, warnings: &warnings)
            return QuickTime.metadata(values, fileSize: source.size, warnings: warnings,
                                      modificationTime: modificationTime, options: options)
        }
        var result = metadata(format: kind, exif: found.exif, warnings: warnings,
                              modificationTime: modificationTime, options: options) { _ in found.xmp }
        if result.coordinate == nil, result.locationIssue == nil { result.locationIssue = found.unreadPart }
        return result
    }

    /// Builds the result from an Exif block and an embedded XMP packet (shared by every
    /// container that carries Exif). Position: Exif GPS, else XMP (`MetadataMerge`). Time:
    /// `CaptureTime.resolve`, where the EXIF date wins and XMP may only lend its offset.
    /// `embeddedXMP` gives the packet's bytes (adding its warnings); it is called only when the
    /// XMP can change the result (no Exif position, or no EXIF date with its own offset), so a
    /// phone photo costs no XMP walk. `extendedXMP` gives the Extended XMP of a GUID (JPEG),
    /// asked only when the main packet names one and lacks a position or a time.
    static func metadata(format: FileKind, exif block: ExifBlock?, warnings: [String],
                         modificationTime: Date?, options: MetadataOptions,
                         extendedXMP: (String, inout [String]) -> [UInt8]? = { _, _ in nil },
                         embeddedXMP: (inout [String]) -> [UInt8]?) -> PhotoMetadata {
        let values = block.map { ExifDecoder.decodeRecovering(tiff: $0.tiff) } ?? ExifValues(hasGPSDirectory: false)
        return metadata(format: format, values: values, digest: block.map { .value(FNV1a64.hash($0.tiff)) },
                        warnings: warnings, modificationTime: modificationTime, options: options,
                        extendedXMP: extendedXMP, embeddedXMP: embeddedXMP)
    }

    /// Same from values already decoded (or read from a container's own EXIF-like records, as
    /// AVCHD's MDPM); `digest` identifies the metadata block.
    static func metadata(format: FileKind, values: ExifValues, digest: StoredDigest?, warnings: [String],
                         modificationTime: Date?, options: MetadataOptions,
                         extendedXMP: (String, inout [String]) -> [UInt8]? = { _, _ in nil },
                         embeddedXMP: (inout [String]) -> [UInt8]?) -> PhotoMetadata {
        var result = PhotoMetadata(format: format, warnings: warnings)
        result.storedDigest = digest
        result.warnings += values.warnings

        let position = GPSConversion.position(from: values)
        result.coordinate = position.coordinate
        result.altitude = position.altitude
        result.locationIssue = position.issue
        if position.coordinate != nil { result.positionSource = .exif }
        result.warnings += position.warnings
        var time = CaptureTime.resolve(values, modificationTime: modificationTime,
                                       defaultTimeZone: options.defaultTimeZone)
        var xmp = position.coordinate != nil && time.source == .exifOffset
            ? nil : embeddedXMP(&result.warnings).flatMap { XMP.parse($0, options: options) }
        if let main = xmp, let guid = XMP.extendedXMPNeeded(main),
           let extended = extendedXMP(guid, &result.warnings).flatMap({ XMP.parse($0, options: options) }) {
            xmp = XMP.completed(main, by: extended, options: options)
        }
        if let xmp {
            // The EXIF position wins over the embedded XMP one.
            MetadataMerge.applyPosition(of: xmp, to: &result, overriding: false)
            time = CaptureTime.resolve(values, xmp: xmp, modificationTime: modificationTime,
                                       defaultTimeZone: options.defaultTimeZone)
        }
        result.takenAt = time.takenAt
        result.utcOffsetSeconds = time.utcOffsetSeconds
        result.timeSource = time.source
        result.timeTag = time.tag
        result.warnings += time.warnings
        if result.warnings.count > MetadataLimits.maxWarnings {
            result.warnings = Array(result.warnings.prefix(MetadataLimits.maxWarnings - 1))
                + ["(more warnings not shown)"]
        }
        return result
    }
}

extension FileStatus {
    /// The modification time as a date (what the walk's `FileEntry.modificationDate` gives).
    public var modificationDate: Date { Date(timeIntervalSince1970: Double(modificationNanoseconds) / 1e9) }
}
