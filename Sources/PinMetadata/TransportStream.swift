import Foundation
import PinCore

/// Resource limits of the MPEG-TS reader; each stops one way a crafted or foreign stream could
/// make it read or allocate without bound. Camcorders write the MDPM in the first frame.
extension MetadataLimits {
    /// Furthest byte of a transport stream read while looking for the tables and the first
    /// frames. Stops a broadcast recording without H.264 metadata (or a stream whose video
    /// starts late) from being read to its end; an AVCHD camcorder's first video frame and its
    /// SEI lie within the first few hundred KiB.
    static let maxTransportStreamScan = 4 * 1024 * 1024
    /// Video PES packets (frames) examined for an MDPM block. ExifTool looks at the first SEI
    /// and one more frame (Panasonic puts it in the second); three leaves a margin.
    static let maxTransportStreamFrames = 3
    /// Bytes kept from the start of one video PES packet. The SEI comes before the slice data
    /// of its access unit, so the head of the frame is enough; stops a 1 MiB I-frame from being
    /// copied.
    static let maxTransportStreamFrameHead = 64 * 1024
}

/// AVCHD .MTS/.M2TS camcorder video and plain MPEG-TS (docs/formats.md section 9.11). The
/// capture time and GPS sit in the MDPM block ("Modified DV Pack Metadata") of an H.264 SEI
/// user-data-unregistered message in the video stream.
///
/// Walk: 188-byte packets (192 in .M2TS: a 4-byte TP_extra_header first), PAT → PMT → the
/// first H.264 stream (stream_type 0x1B); the head of each video PES packet is split into
/// Annex-B NAL units, SEI units (type 6) are unescaped and every message is checked (ExifTool
/// checks only the first per NAL; an encoder's info message in front would hide the MDPM).
/// Stops at the first MDPM, after `maxTransportStreamFrames` frames, at
/// `maxTransportStreamScan` bytes, or as soon as the PMT shows no H.264 stream.
///
/// Decisions: a lost packet sync or damaged tables end the scan with a warning (the file is
/// still a video: its time falls back to the modification time), never an error, as a
/// camcorder file cut short is still worth its pin.
enum TransportStream {
    static let container = "MPEG-TS"
    static let syncByte: UInt8 = 0x47
    /// 17ee8c60-f84d-11d9-8cd6-0800200c9a66 followed by "MDPM".
    static let mdpmSignature: [UInt8] = [0x17, 0xEE, 0x8C, 0x60, 0xF8, 0x4D, 0x11, 0xD9,
                                         0x8C, 0xD6, 0x08, 0x00, 0x20, 0x0C, 0x9A, 0x66] + Array("MDPM".utf8)

    /// (packet size, offset of the sync byte in a packet) when the first bytes hold two packet
    /// syncs: 192/4 for .M2TS, 188/0 for .ts.
    static func packetLayout(_ b: [UInt8]) -> (size: Int, sync: Int)? {
        if b.count > 4 + 192, b[4] == syncByte, b[4 + 192] == syncByte { return (192, 4) }
        if b.count > 188, b[0] == syncByte, b[188] == syncByte { return (188, 0) }
        return nil
    }

    /// The MDPM records found: tag → its 4 data bytes, in the order written.
    struct MDPM: Sendable, Hashable {
        var records: [UInt8: [UInt8]] = [:]
        /// Absolute file offset of the TS packet where the SEI's frame began (for messages).
        var offset = 0
    }

    static func findMDPM<S: ByteSource>(in source: inout S, warnings: inout [String]) throws -> MDPM? {
        let size = source.size
        let head = try source.reader(at: 0, count: min(400, size), context: container)
        guard let layout = packetLayout(head.allBytes) else {
            throw MetadataError.malformed(container: container, offset: 0, reason: "no packet sync")
        }
        var pmtPID: Int?
        var videoPID: Int?
        var frame = FrameCollector()
        let end = min(size, MetadataLimits.maxTransportStreamScan)
        var offset = 0
        while offset + layout.size <= end {
            let p = try source.reader(at: offset, count: layout.size, context: container).allBytes
            guard p[layout.sync] == syncByte else {
                warnings.append("MPEG-TS packet sync lost at byte \(offset + layout.sync): the rest of the stream is not read")
                return frame.finish(warnings: &warnings)
            }
            defer { offset += layout.size }
            guard let (pid, unitStart, data) = payload(of: p, sync: layout.sync) else { continue }
            if pid == 0, unitStart, pmtPID == nil {
                pmtPID = programMapPID(section(data))
            } else if let pmt = pmtPID, pid == pmt, unitStart, videoPID == nil {
                guard let table = section(data), table.first == 0x02 else { continue }
                guard let video = h264PID(table) else { return nil }  // no H.264: no MDPM
                videoPID = video
            } else if let video = videoPID, pid == video {
                switch frame.add(data, unitStart: unitStart, at: offset, warnings: &warnings) {
                case .more: continue
                case .found(let mdpm): return mdpm
                case .gaveUp: return nil
                }
            }
        }
        if pmtPID == nil || videoPID == nil, end < size {
            warnings.append("MPEG-TS: no H.264 stream found in the first \(end) bytes")
        }
        return frame.finish(warnings: &warnings)
    }

    /// A packet's PID, payload-unit-start flag and payload (after any adaptation field); nil
    /// when it carries no payload.
    static func payload(of p: [UInt8], sync s: Int) -> (pid: Int, unitStart: Bool, data: ArraySlice<UInt8>)? {
        let pid = Int(p[s + 1] & 0x1F) << 8 | Int(p[s + 2])
        let unitStart = p[s + 1] & 0x40 != 0
        let adaptation = (p[s + 3] >> 4) & 0x3
        var payload = s + 4
        if adaptation & 0x2 != 0 { payload += 1 + Int(p[s + 4]) }
        let packetEnd = s + 188
        guard adaptation & 0x1 != 0, payload < packetEnd else { return nil }
        return (pid, unitStart, p[payload..<packetEnd])
    }

    /// The head of each video frame (PES payload), gathered packet by packet, searched for the
    /// MDPM SEI when the next frame starts.
    struct FrameCollector {
        var frame: [UInt8] = []
        var frameOffset = 0
        var frames = 0
        var inFrame = false

        enum Outcome { case more, found(MDPM), gaveUp }

        /// The frame so far, searched; nil when it has no MDPM. Starts afresh.
        mutating func finish(warnings: inout [String]) -> MDPM? {
            defer { frame.removeAll(keepingCapacity: true); inFrame = false }
            guard inFrame, !frame.isEmpty else { return nil }
            frames += 1
            guard let records = records(inFrame: frame, warnings: &warnings) else { return nil }
            return MDPM(records: records, offset: frameOffset)
        }

        /// One video packet's payload: a new frame (PES header first) ends the last one.
        mutating func add(_ data: ArraySlice<UInt8>, unitStart: Bool, at offset: Int, warnings: inout [String]) -> Outcome {
            guard unitStart else {
                if inFrame, frame.count < MetadataLimits.maxTransportStreamFrameHead {
                    frame.append(contentsOf: data.prefix(MetadataLimits.maxTransportStreamFrameHead - frame.count))
                }
                return .more
            }
            if let found = finish(warnings: &warnings) { return .found(found) }
            if frames >= MetadataLimits.maxTransportStreamFrames { return .gaveUp }
            // PES header: 00 00 01, stream id, length (2), flags (2), header length.
            let b = Array(data)
            guard b.count >= 9, b[0] == 0, b[1] == 0, b[2] == 1, 9 + Int(b[8]) <= b.count else {
                warnings.append("MPEG-TS video packet at byte \(offset) has no PES header: skipped")
                return .more
            }
            frameOffset = offset
            inFrame = true
            frame.append(contentsOf: b[(9 + Int(b[8]))...])
            return .more
        }
    }

    /// A PSI section from a payload that starts one (pointer field first), bounded by its
    /// section_length and the packet; nil when malformed. Tables longer than a packet are
    /// not reassembled (PAT and PMT of cameras fit in one).
    static func section(_ data: ArraySlice<UInt8>) -> [UInt8]? {
        let b = Array(data)
        guard let pointer = b.first.map(Int.init), 1 + pointer + 3 <= b.count else { return nil }
        let start = 1 + pointer
        let length = Int(b[start + 1] & 0x0F) << 8 | Int(b[start + 2])
        // Header (3) + length, minus the CRC (4), must fit in this packet.
        guard length >= 9, start + 3 + length <= b.count else { return nil }
        return Array(b[start..<(start + 3 + length - 4)])
    }

    /// The PMT PID of the first program in a PAT section.
    static func programMapPID(_ table: [UInt8]?) -> Int? {
        guard let table, table.first == 0x00 else { return nil }
        var i = 8
        while i + 4 <= table.count {
            let program = Int(table[i]) << 8 | Int(table[i + 1])
            let pid = Int(table[i + 2] & 0x1F) << 8 | Int(table[i + 3])
            if program != 0 { return pid }
            i += 4
        }
        return nil
    }

    /// The elementary PID of the first H.264 stream (stream_type 0x1B) in a PMT section.
    static func h264PID(_ table: [UInt8]) -> Int? {
        guard table.count >= 12 else { return nil }
        let programInfo = Int(table[10] & 0x0F) << 8 | Int(table[11])
        var i = 12 + programInfo
        while i + 5 <= table.count {
            let type = table[i]
            let pid = Int(table[i + 1] & 0x1F) << 8 | Int(table[i + 2])
            let info = Int(table[i + 3] & 0x0F) << 8 | Int(table[i + 4])
            if type == 0x1B { return pid }
            i += 5 + info
        }
        return nil
    }

    /// The MDPM records of the first SEI user-data message carrying one in the head of a
    /// frame (Annex-B byte stream), or nil.
    static func records(inFrame bytes: [UInt8], warnings: inout [String]) -> [UInt8: [UInt8]]? {
        // NAL unit starts: the byte after each 00 00 01.
        var starts: [Int] = []
        var i = 0
        while i + 3 <= bytes.count {
            if bytes[i] == 0, bytes[i + 1] == 0, bytes[i + 2] == 1 {
                starts.append(i + 3)
                i += 3
            } else {
                i += 1
            }
        }
        for (n, start) in starts.enumerated() where start < bytes.count && bytes[start] & 0x1F == 6 {
            let end = n + 1 < starts.count ? starts[n + 1] - 3 : bytes.count
            guard start + 1 < end else { continue }
            let rbsp = unescape(bytes[(start + 1)..<end])
            if let found = mdpmRecords(sei: rbsp, warnings: &warnings) { return found }
        }
        return nil
    }

    /// Emulation prevention removed: 00 00 03 → 00 00.
    static func unescape(_ b: ArraySlice<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(b.count)
        var zeros = 0
        for x in b {
            if zeros >= 2, x == 3 {
                zeros = 0
                continue
            }
            out.append(x)
            zeros = x == 0 ? zeros + 1 : 0
        }
        return out
    }

    /// Walks the SEI messages of one SEI RBSP; the records of the first MDPM message.
    static func mdpmRecords(sei b: [UInt8], warnings: inout [String]) -> [UInt8: [UInt8]]? {
        var i = 0
        while i < b.count, b[i] != 0x80 {  // 0x80: rbsp trailing bits
            var type = 0, size = 0
            while i < b.count, b[i] == 0xFF { type += 255; i += 1 }
            guard i < b.count else { return nil }
            type += Int(b[i]); i += 1
            while i < b.count, b[i] == 0xFF { size += 255; i += 1 }
            guard i < b.count else { return nil }
            size += Int(b[i]); i += 1
            guard size <= b.count - i else { return nil }
            if type == 5, size > mdpmSignature.count, b[i..<(i + mdpmSignature.count)].elementsEqual(mdpmSignature) {
                return parseMDPM(b[(i + mdpmSignature.count)..<(i + size)], warnings: &warnings)
            }
            i += size
        }
        return nil
    }

    /// Count, then 5-byte records (tag, 4 data bytes) in ascending tag order, as ExifTool
    /// requires (it stops at the first out-of-order tag, and so do we).
    static func parseMDPM(_ b: ArraySlice<UInt8>, warnings: inout [String]) -> [UInt8: [UInt8]] {
        var records: [UInt8: [UInt8]] = [:]
        guard let count = b.first else { return records }
        var i = b.startIndex + 1
        var last = -1
        for _ in 0..<Int(count) {
            guard i + 5 <= b.endIndex else { break }
            let tag = b[i]
            guard Int(tag) > last else {
                warnings.append("MDPM entries out of sequence: the rest ignored")
                break
            }
            last = Int(tag)
            records[tag] = Array(b[(i + 1)..<(i + 5)])
            i += 5
        }
        return records
    }

    // MARK: Interpreting

    /// The MDPM records as Exif values: date 0x18+0x19 (zone byte, then BCD), GPS refs and
    /// u16/u16 rationals 0xb1–0xb8, altitude 0xb9/0xba, GPS time 0xbb–0xbd and date 0xca–0xcc.
    static func exifValues(_ mdpm: MDPM, warnings: inout [String]) -> ExifValues {
        let r = mdpm.records
        var values = ExifValues(hasGPSDirectory: false)
        if let a = r[0x18], let b = r[0x19] {
            let digits = (a[1...] + b).map { bcd($0) }
            if digits.allSatisfy({ $0 != nil }) {
                let d = digits.map { $0! }
                func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
                values.dateTimeOriginal = "\(d[0] * 100 + d[1]):\(two(d[2])):\(two(d[3])) \(two(d[4])):\(two(d[5])):\(two(d[6]))"
            } else {
                warnings.append("MDPM date is not BCD digits: ignored")
            }
            let zone = a[0]
            if zone & 0x80 == 0 {
                // 0x20 sign, (zone >> 1) & 0x0F hours, 0x01 half hour; 0x40 says DST was on
                // and is already part of the offset (ExifTool shows it, adds nothing).
                let hours = Int((zone >> 1) & 0x0F)
                values.offsetTimeOriginal = (zone & 0x20 != 0 ? "-" : "+") + (hours < 10 ? "0\(hours)" : "\(hours)")
                    + (zone & 0x01 != 0 ? ":30" : ":00")
            }
        }
        func rational(_ tag: UInt8) -> ExifRational? {
            r[tag].map { ExifRational(Int64($0[0]) << 8 | Int64($0[1]), Int64($0[2]) << 8 | Int64($0[3])) }
        }
        func text(_ tag: UInt8) -> String? {
            r[tag].map { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        }
        func three(_ first: UInt8) -> [ExifRational]? {
            let parts = (first...(first + 2)).compactMap(rational)
            return parts.count == 3 ? parts : nil
        }
        values.latitudeRef = text(0xB1)
        values.latitude = three(0xB2)
        values.longitudeRef = text(0xB5)
        values.longitude = three(0xB6)
        values.altitudeRef = r[0xB9].map { $0.contains { $0 != 0 } ? 1 : 0 }
        values.altitude = rational(0xBA)
        values.gpsTimeStamp = three(0xBB)
        if let year = r[0xCA], let month = r[0xCB], let day = r[0xCC] {
            // GPSDateStamp parts are u16/u16 rationals too (year, month, day).
            func whole(_ v: [UInt8]) -> Int? {
                let n = Int(v[0]) << 8 | Int(v[1]), d = Int(v[2]) << 8 | Int(v[3])
                return d == 0 ? nil : n / d
            }
            if let y = whole(year), let m = whole(month), let d = whole(day) {
                values.gpsDateStamp = "\(y):\(m):\(d)"
            }
        }
        values.hasGPSDirectory = values.latitude != nil || values.longitude != nil
            || values.latitudeRef != nil || values.longitudeRef != nil
        return values
    }

    static func bcd(_ byte: UInt8) -> Int? {
        let high = Int(byte >> 4), low = Int(byte & 0x0F)
        return high <= 9 && low <= 9 ? high * 10 + low : nil
    }

    static func metadata<S: ByteSource>(in source: inout S, warnings: [String], modificationTime: Date?,
                                        options: MetadataOptions) throws -> PhotoMetadata {
        var warnings = warnings
        guard let mdpm = try findMDPM(in: &source, warnings: &warnings) else {
            var result = PhotoMetadata(format: .mpegts, warnings: warnings)
            if let modificationTime {
                result.takenAt = modificationTime
                result.timeSource = .fileModification
            }
            return result
        }
        let values = exifValues(mdpm, warnings: &warnings)
        var digestInput: [UInt8] = []
        for tag in mdpm.records.keys.sorted() { digestInput += [tag] + mdpm.records[tag]! }
        var result = MetadataReader.metadata(format: .mpegts, values: values,
                                             digest: .value(FNV1a64.hash(digestInput)), warnings: warnings,
                                             modificationTime: modificationTime, options: options) { _ in nil }
        if let tag = result.timeTag { result.timeTag = "MDPM \(tag)" }
        return result
    }
}
