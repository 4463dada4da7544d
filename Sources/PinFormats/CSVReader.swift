import Foundation
import PinGrammar

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
        /// Set when the record is past a bound (`fieldTooLong`, `tooManyFields`,
        /// `recordTooLong`): its fields are then empty. The reader has read it to its end by the
        /// same grammar (quotes and all), so the next record is where it would have been: the
        /// caller names this one and goes on.
        public var failure: Failure?

        public init(fields: [String], line: Int, failure: Failure? = nil) {
            self.fields = fields
            self.line = line
            self.failure = failure
        }
    }

    public enum Failure: Error, CustomStringConvertible, Equatable {
        /// A quoted field still open at the end of the file.
        case unterminatedQuote(line: Int)
        case fieldTooLong(line: Int)
        case tooManyFields(line: Int)
        case recordTooLong(line: Int)

        public var description: String { "line \(line): \(reason)" }

        public var line: Int {
            switch self {
            case let .unterminatedQuote(line), let .fieldTooLong(line), let .tooManyFields(line), let .recordTooLong(line): return line
            }
        }

        /// What is wrong, without the line: for a caller that names the line itself.
        public var reason: String {
            switch self {
            case .unterminatedQuote: return "a quoted field is not closed before the end of the file"
            case .fieldTooLong: return "a field longer than \(CSVReader.maxFieldBytes) bytes"
            case .tooManyFields: return "more than \(CSVReader.maxFields) fields in one record"
            case .recordTooLong: return "a record longer than \(CSVReader.maxRecordBytes) bytes"
            }
        }
    }

    /// Bounds against a file that is not a table (one endless quoted field, a binary file read as
    /// text): a record is held whole in memory, so its size is capped. A record past a bound is
    /// read on to its end without keeping its bytes, and returned empty with its `failure`.
    static var maxFieldBytes: Int { 1 << 20 }
    static var maxFields: Int { 10_000 }
    static var maxRecordBytes: Int { 4 << 20 }
    static let chunkBytes = 64 * 1024
    /// `chunkBytes`, or the tests' `ReadWindow.bytes`.
    private let readBytes = ReadWindow.bytes.map { max(1, $0) } ?? CSVReader.chunkBytes
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
            chunk = [UInt8](unsafeUninitializedCapacity: readBytes) { buffer, count in
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
            try skipByteOrderMark()
        }
        guard try peek() != nil else { return nil }
        var record = RecordBuilder(line: line)
        while true {
            guard let byte = try next() else {
                if record.inQuotes { throw Failure.unterminatedQuote(line: record.line) }
                try record.finishField()
                return record.done
            }
            if record.inQuotes {
                try quoted(byte, into: &record)
                continue
            }
            switch byte {
            case delimiter:
                try record.finishField()
            case 0x0D, 0x0A:
                if byte == 0x0D, try peek() == 0x0A { _ = try next() }
                line += 1
                try record.finishField()
                return record.done
            case UInt8(ascii: "\"") where record.field.isEmpty && !record.quoted:
                record.inQuotes = true
                record.quoted = true
            default:
                try record.append(byte)
            }
        }
    }

    /// A UTF-8 byte order mark at the start is not part of the first field; bytes that only
    /// begin like one are kept.
    private mutating func skipByteOrderMark() throws {
        guard try peek() == 0xEF else { return }
        _ = try next()
        guard try peek() == 0xBB else { return chunk.insert(0xEF, at: index) }
        _ = try next()
        if try peek() == 0xBF { _ = try next() } else { chunk.insert(contentsOf: [0xEF, 0xBB], at: index) }
    }

    /// A byte inside quotes: `""` is one quote, a lone `"` ends the quotes, a line break is
    /// part of the field (and counted).
    private mutating func quoted(_ byte: UInt8, into record: inout RecordBuilder) throws {
        if byte == UInt8(ascii: "\"") {
            if try peek() == UInt8(ascii: "\"") {
                _ = try next()
                try record.append(byte)
            } else {
                record.inQuotes = false
            }
            return
        }
        if byte == 0x0A { line += 1 }
        if byte == 0x0D, try peek() != 0x0A { line += 1 }
        try record.append(byte)
    }

    /// The record being read: its fields so far, the field being read and its quoting. Past a
    /// bound it keeps only the quoting (to find the record's end) and the bound it passed.
    private struct RecordBuilder {
        let line: Int
        var fields: [String] = []
        var field: [UInt8] = []
        var quoted = false
        var inQuotes = false
        var bytes = 0
        var failure: Failure?

        init(line: Int) { self.line = line }

        var done: Record { failure.map { Record(fields: [], line: line, failure: $0) } ?? Record(fields: fields, line: line) }

        mutating func append(_ byte: UInt8) throws {
            guard failure == nil else { return }
            guard field.count < CSVReader.maxFieldBytes else { return drop(.fieldTooLong(line: line)) }
            guard bytes < CSVReader.maxRecordBytes else { return drop(.recordTooLong(line: line)) }
            bytes += 1
            field.append(byte)
        }

        mutating func finishField() throws {
            quoted = false
            guard failure == nil else { return }
            guard fields.count < CSVReader.maxFields else { return drop(.tooManyFields(line: line)) }
            fields.append(String(decoding: field, as: UTF8.self))
            field.removeAll(keepingCapacity: true)
        }

        /// Past a bound: what was kept is let go; the rest of the record is read and dropped.
        private mutating func drop(_ reason: Failure) {
            failure = reason
            fields = []
            field = []
        }
    }
}

extension CSVReader {
    /// A decimal number as CSV writers write it: `48.85`, `-2.35`, `1e-3`; or with a decimal
    /// comma, `48,8566`, as spreadsheets in most of Europe write it (their CSV separates fields
    /// with `;`, so the comma is inside a field). Not `0x10`, `inf`, `nan`, nor `1.234,5` (a
    /// thousands separator is not a coordinate).
    public static func decimal(_ text: String) -> Double? {
        var bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || "+-.,eE".utf8.contains($0) }) else { return nil }
        if let comma = bytes.firstIndex(of: 0x2C) {
            guard !bytes.contains(0x2E), bytes.lastIndex(of: 0x2C) == comma else { return nil }
            bytes[comma] = 0x2E
        }
        return bytes.withUnsafeBufferPointer { DecimalNumber.parse($0, .withExponent) }
    }
}
