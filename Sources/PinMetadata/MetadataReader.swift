import Foundation
import PinCore

/// Options the CLI passes to the readers.
public struct MetadataOptions: Sendable {
    /// Zone for capture times that carry none and cannot be inferred (`--timezone`; section 7
    /// step 5).
    public var defaultTimeZone: TimeZone

    public init(defaultTimeZone: TimeZone = .current) {
        self.defaultTimeZone = defaultTimeZone
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
    public static func sniff(_ firstBytes: UnsafeRawBufferPointer) -> FileKind {
        FileKind.sniff(firstBytes)
    }

    /// Same on an array.
    public static func sniff(_ firstBytes: [UInt8]) -> FileKind {
        FileKind.sniff(firstBytes)
    }

    /// Opens and reads one file, only the bytes needed: one 64 KiB pread first, more only when a
    /// segment reaches past it; the descriptor is always closed.
    /// - Returns: nil when the content is not media (the pipeline counts it as a plain file).
    /// - Throws: `MetadataError` for media whose metadata cannot be read (unreadable).
    /// - Parameter modificationTime: the file's mtime, the last-resort capture time
    ///   (`timeSource = .fileModification`).
    public static func read(path: RawPath, modificationTime: Date, options: MetadataOptions) throws -> PhotoMetadata? {
        try withOpenFile(path) { fd, size in
            var source = try FileSource(fd: fd, size: size)
            return try read(source: &source, modificationTime: modificationTime, options: options)
        }
    }

    /// Same on bytes already in memory (tests, sidecars). Without `modificationTime` a file with
    /// no capture time gets `takenAt = nil`, `timeSource = .none`.
    public static func read(bytes: [UInt8], modificationTime: Date?, options: MetadataOptions) throws -> PhotoMetadata? {
        var source = MemorySource(bytes)
        return try read(source: &source, modificationTime: modificationTime, options: options)
    }

    // MARK: Internals

    static func read<S: ByteSource>(source: inout S, modificationTime: Date?,
                                    options: MetadataOptions) throws -> PhotoMetadata? {
        let head = try source.reader(at: 0, count: min(FileKind.sniffLength, source.size), context: "file")
        let kind = FileKind.sniff(head.allBytes)
        var warnings: [String] = []
        let block: ExifBlock?
        switch kind {
        case .notMedia:
            return nil
        case .jpeg:
            block = try JPEG.findExif(in: &source, warnings: &warnings)
        case .heif, .png, .webp, .tiff, .quicktime:
            throw MetadataError.unsupported(kind)
        }
        return metadata(format: kind.rawValue, exif: block, warnings: warnings,
                        modificationTime: modificationTime, options: options)
    }

    /// Builds the result from an Exif block (shared by every container that carries Exif).
    static func metadata(format: String, exif block: ExifBlock?, warnings: [String],
                         modificationTime: Date?, options: MetadataOptions) -> PhotoMetadata {
        var result = PhotoMetadata(format: format, warnings: warnings)
        let values = block.map { ExifDecoder.decode(tiff: $0.tiff) } ?? ExifValues(hasGPSDirectory: false)
        if let block { result.metadataDigest = FNV1a64.hexDigest(block.tiff) }
        result.warnings += values.warnings

        let position = GPSConversion.position(from: values)
        result.coordinate = position.coordinate
        result.altitude = position.altitude
        result.locationIssue = position.issue
        if position.coordinate != nil { result.positionSource = "exif" }
        result.warnings += position.warnings

        let time = CaptureTime.resolve(values, modificationTime: modificationTime,
                                       defaultTimeZone: options.defaultTimeZone)
        result.takenAt = time.takenAt
        result.utcOffsetSeconds = time.utcOffsetSeconds
        result.timeSource = time.source
        result.warnings += time.warnings
        if result.warnings.count > MetadataLimits.maxWarnings {
            result.warnings = Array(result.warnings.prefix(MetadataLimits.maxWarnings - 1))
                + ["(more warnings not shown)"]
        }
        return result
    }
}
