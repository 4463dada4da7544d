import Foundation
import PinCore

/// A data file that cannot be found, read or trusted: what and where, and what to do about it.
struct DataFileError: ExitStatusError {
    let description: String
    var exitStatus: Int32 { ExitCode.failure }
    init(_ description: String) { self.description = description }
}

/// The one loader of pins' data files (Resources/ in the checkout, share/pins when installed):
/// where they are, and each file read (the binary ones into a private copy, `MappedFile`, whose
/// tables are then read where they lie) and checked as the code that uses it needs it.
/// The CLI (through PinApp), the server, the benchmark and the tests all load through it;
/// no other module names a data file in a read (LayerRulesTests checks it).
///
/// | file | what | made by |
/// | --- | --- | --- |
/// | Countries.bin | the country index (read in place) | scripts/build-countries |
/// | Countries.json | names and continents | scripts/build-countries |
/// | Countries.geojson | the outlines, for exports | scripts/build-countries |
/// | Places.bin | the gazetteer (read in place) | scripts/build-places |
/// | Regions.bin | admin-1 outlines (read in place) | scripts/build-regions |
/// | TimeZones.bin | zone outlines | scripts/build-timezones |
/// | WorldMap.json | the page's base map | scripts/build-basemap |
/// | Water.bin | coasts, lakes, rivers at city zoom | scripts/build-water |
public struct DataFiles: Sendable {
    /// The files without which pins cannot resolve a country: a folder without them is not the
    /// data folder.
    public static let required = ["Countries.bin", "Countries.json"]

    public let directory: String

    /// The data in `directory` (the benchmark, the tests: Resources/ of the checkout).
    public init(directory: String) {
        self.directory = directory
    }

    /// The installed data: first `<bin>/../share/pins`, next to the binary wherever it was put
    /// (scripts/install, the package); then `$PINS_DATA_DIR`. Never a path of the machine that
    /// built it: a development build (`swift run`, the tests) sets PINS_DATA_DIR to the
    /// checkout's Resources/.
    public static func installed(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> DataFiles {
        var looked: [String] = []
        var candidates: [String] = []
        if let bin = executableDirectory() {
            let share = PathParts.folder(of: bin) + "/share/pins"
            candidates.append(share)
            looked.append(share)
        } else {
            looked.append("<bin>/../share/pins (the binary's own path is unknown)")
        }
        if let dir = environment["PINS_DATA_DIR"], !dir.isEmpty {
            candidates.append(dir)
            looked.append("PINS_DATA_DIR=\(dir)")
        } else {
            looked.append("PINS_DATA_DIR (not set)")
        }
        for dir in candidates where required.allSatisfy({ FileManager.default.isReadableFile(atPath: dir + "/" + $0) }) {
            return DataFiles(directory: dir)
        }
        throw DataFileError("cannot find the country data (\(required.joined(separator: ", "))); looked in: "
            + looked.joined(separator: "; ") + ". Reinstall pins with its share/pins folder, or set PINS_DATA_DIR.")
    }

    /// The folder holding the running binary, symbolic links resolved: /proc/self/exe, else
    /// argv[0] (a chroot or container without /proc), searched in PATH when it has no slash.
    public static func executableDirectory() -> String? {
        var candidates = ["/proc/self/exe"]
        let argv0 = CommandLine.arguments.first ?? ""
        if argv0.contains("/") {
            candidates.append(argv0)
        } else if !argv0.isEmpty {
            let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
            for dir in path.split(separator: ":") where !dir.isEmpty {
                candidates.append(dir + "/" + argv0)
            }
        }
        for candidate in candidates {
            guard let resolved = realpath(candidate, nil) else { continue }
            defer { free(resolved) }
            let path = String(cString: resolved)
            guard FileManager.default.isExecutableFile(atPath: path) else { continue }
            return PathParts.folder(of: path)
        }
        return nil
    }

    public func path(_ name: String) -> String { directory + "/" + name }

    /// The whole file in memory of its own, read-only (`MappedFile`: never a mapping of the
    /// file, which an upgrade rewriting it would take away from under the process).
    public func map(_ name: String) throws -> MappedFile {
        try MappedFile(path: path(name))
    }

    /// The whole file, read straight into the array (no Data first and a copy after).
    public func read(_ name: String) throws -> [UInt8] {
        let path = path(name)
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw DataFileError("cannot read \(path)") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw DataFileError("cannot read \(path)") }
        var failure: Int32 = 0
        let bytes = [UInt8](unsafeUninitializedCapacity: max(0, Int(info.st_size))) { buffer, count in
            count = 0
            while count < buffer.count {
                let n = Glibc.read(fd, buffer.baseAddress! + count, buffer.count - count)
                if n < 0, errno == EINTR { continue }
                if n < 0 { failure = errno }
                if n <= 0 { break }
                count += n
            }
        }
        guard failure == 0 else { throw DataFileError("cannot read \(path)") }
        return bytes
    }
}

/// A whole file read into memory of the process's own, read-only, freed with the object: the
/// loaders keep it as the owner of the bytes they read where they lie (Countries.bin,
/// Places.bin, Regions.bin). The name is older than the design: it is a copy, not a mapping.
///
/// Not a mapping of the file (issue 40, item 9), because of what an upgrade may do to a data
/// file under a running process. Replaced by a rename (a new file, as `install` and `mv` do),
/// the old file lives on while open or mapped, and a mapping would have been safe. Rewritten in
/// place (`cp` truncates it first, `rsync --inplace` too when it shrinks), a mapping loses its
/// pages past the new end: a running import died of SIGBUS at its next lookup (even pages
/// already copied on write are dropped by a truncation), and a mapping would see new bytes
/// mixed with old. A copy in anonymous memory cannot change under the process: it costs one
/// read of the file at each start (the three files, 33.5 MB from the page cache, about 7.5 ms
/// of CPU, most of it the kernel zeroing and copying pages) and the file's size in private
/// memory instead of shared page cache. DataRewriteTests truncates the files under a running
/// `pins locate --json`, which must still answer. A file that shrinks while it is being read
/// is an error, never half a file.
public final class MappedFile: @unchecked Sendable {
    // Immutable after init; the pages are read-only.
    public let bytes: UnsafeRawBufferPointer
    /// The bytes mapped: the file's size to whole pages, or to a whole 2 MiB (`allocate`).
    private let mapped: Int

    public init(path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw DataFileError("cannot read \(path)") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_size > 0 else { throw DataFileError("cannot read \(path) (empty)") }
        let size = Int(info.st_size)
        guard let (base, mapped) = Self.allocate(size) else {
            throw DataFileError("cannot read \(path): \(String(cString: strerror(errno)))")
        }
        var done = 0
        while done < size {
            let n = pread(fd, base + done, size - done, off_t(done))
            if n < 0, errno == EINTR { continue }
            guard n > 0 else {
                let reason = n < 0 ? String(cString: strerror(errno)) : "it shrank while being read (being rewritten?)"
                munmap(base, mapped)
                throw DataFileError("cannot read \(path): \(reason)")
            }
            done += n
        }
        mprotect(base, mapped, PROT_READ)
        bytes = UnsafeRawBufferPointer(start: base, count: size)
        self.mapped = mapped
    }

    /// Anonymous memory for `size` bytes starting at a 2 MiB boundary and marked for transparent
    /// huge pages (Debian's default is "madvise"): filling 19 MB of 4 KiB pages took a fault
    /// each, about 4,600 for Countries.bin and 2,000 for Places.bin, the largest share of
    /// `pins locate --json`'s start-up; whole 2 MiB pages take one each. The tail past the last
    /// whole 2 MiB keeps small pages (no more memory than the file), unless it fills half of
    /// one or more: then it gets a whole one too, at most 1 MiB more memory for one fault
    /// instead of 256 to 512 (Countries.bin's 1.9 MB tail: 0.2 MB more; Places.bin's 1.9 MB:
    /// 0.2 MB; Regions.bin's 0.3 MB tail keeps small pages). Where the kernel gives no huge
    /// page, small pages as before. Returns the memory and the bytes mapped.
    private static func allocate(_ size: Int) -> (UnsafeMutableRawPointer, Int)? {
        let huge = 2 << 20, page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let pages = (size + page - 1) / page * page
        let length = pages % huge >= huge / 2 ? pages - pages % huge + huge : pages
        guard let raw = mmap(nil, length + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
              raw != MAP_FAILED else { return nil }
        let head = (huge - Int(bitPattern: raw) % huge) % huge
        if head > 0 { munmap(raw, head) }
        let base = raw + head
        munmap(base + length, huge - head)
        if length >= huge { _ = madvise(base, length / huge * huge, MADV_HUGEPAGE) }
        return (base, length)
    }

    deinit { munmap(UnsafeMutableRawPointer(mutating: bytes.baseAddress), mapped) }
}
