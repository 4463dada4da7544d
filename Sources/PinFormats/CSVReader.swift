import Foundation

/// A CSV reader after RFC 4180, streaming: one record at a time from a `ByteInput`, so a file
/// of any size costs one record's memory.
///
/// RFC 4180 section 2: records end with CRLF (a lone LF or CR is accepted too, as spreadsheets
/// on every system write them); a field may be enclosed in double quotes, and then holds commas,
/// line breaks and quotes written twice (`""`). Beyond the RFC, as readers in practice do: a
/// UTF-8 byte order mark before the header is dropped; a quote inside an unquoted field is kept
/// as a character; text after a closing quote is kept (`"a"b` is `ab`). Text is UTF-8; a byte
/// that is not is read as U+FFFD.
public struct CSVReader {
    public struct Record: Sendable, Equatable {
        public var fields: [String]
        /// The line the record starts on, from 1 (a quoted line break makes a record span lines).
        public var line: Int
    }

    public enum Failure: Error, CustomStringConvertible, Equatable {
        /// A quoted field still open at the end of the file.
        case unterminatedQuote(line: Int)
        case fieldTooLong(line: Int)
        case tooManyFields(line: Int)

        public var description: String {
            switch self {
            case let .unterminatedQuote(line): return "line \(line): a quoted field is not closed before the end of the file"
            case let .fieldTooLong(line): return "line \(line): a field longer than \(CSVReader.maxFieldBytes) bytes"
            case let .tooManyFields(line): return "line \(line): more than \(CSVReader.maxFields) fields in one record"
            }
        }
    }

    /// Bounds against a file that is not a table (one endless quoted field, a binary file read as
    /// text): a record is held whole in memory, so its size is capped.
    public static var maxFieldBytes: Int { 1 << 20 }
    public static var maxFields: Int { 10_000 }
    static let chunkBytes = 64 * 1024
    private var readError: Error?

    private let source: ByteInput
    private var chunk: [UInt8] = []
    private var index = 0
    private var atEnd = false
    private var line = 1
    private var started = false
    public let delimiter: UInt8

    public init(_ source: ByteInput, delimiter: UInt8 = UInt8(ascii: ",")) {
        self.source = source
        self.delimiter = delimiter
    }

    private mutating func next() throws -> UInt8? {
        while index >= chunk.count {
            if atEnd { return nil }
            chunk = [UInt8](unsafeUninitializedCapacity: Self.chunkBytes) { buffer, count in
                count = 0
                do {
                    count = try source.read(into: UnsafeMutableRawBufferPointer(buffer))
                } catch {
                    readError = error
                }
            }
            if let readError { throw readError }
            index = 0
            if chunk.isEmpty {
                atEnd = true
                return nil
            }
        }
        defer { index += 1 }
        return chunk[index]
    }

    private mutating func peek() throws -> UInt8? {
        guard let byte = try next() else { return nil }
        index -= 1
        return byte
    }

    /// The next record, or nil at the end. A blank line is a record of one empty field, as the
    /// RFC reads it; callers skip those.
    public mutating func nextRecord() throws -> Record? {
        if !started {
            started = true
            // UTF-8 BOM.
            if try peek() == 0xEF {
                _ = try next()
                if try peek() == 0xBB {
                    _ = try next()
                    if try peek() == 0xBF { _ = try next() } else { chunk.insert(contentsOf: [0xEF, 0xBB], at: index); }
                } else {
                    chunk.insert(0xEF, at: index)
                }
            }
        }
        guard try peek() != nil else { return nil }
        let startLine = line
        var fields: [String] = []
        var field: [UInt8] = []
        var quoted = false
        var inQuotes = false
        func finishField() throws {
            guard fields.count < Self.maxFields else { throw Failure.tooManyFields(line: startLine) }
            fields.append(String(decoding: field, as: UTF8.self))
            field.removeAll(keepingCapacity: true)
            quoted = false
        }
        while true {
            guard let byte = try next() else {
                if inQuotes { throw Failure.unterminatedQuote(line: startLine) }
                try finishField()
                return Record(fields: fields, line: startLine)
            }
            if inQuotes {
                if byte == UInt8(ascii: "\"") {
                    if try peek() == UInt8(ascii: "\"") {
                        _ = try next()
                        field.append(byte)
                    } else {
                        inQuotes = false
                    }
                    continue
                }
                if byte == 0x0A { line += 1 }
                if byte == 0x0D {
                    if try peek() != 0x0A { line += 1 }
                }
                guard field.count < Self.maxFieldBytes else { throw Failure.fieldTooLong(line: startLine) }
                field.append(byte)
                continue
            }
            switch byte {
            case delimiter:
                try finishField()
            case 0x0D, 0x0A:
                if byte == 0x0D, try peek() == 0x0A { _ = try next() }
                line += 1
                try finishField()
                return Record(fields: fields, line: startLine)
            case UInt8(ascii: "\"") where field.isEmpty && !quoted:
                inQuotes = true
                quoted = true
            default:
                guard field.count < Self.maxFieldBytes else { throw Failure.fieldTooLong(line: startLine) }
                field.append(byte)
            }
        }
    }
}
