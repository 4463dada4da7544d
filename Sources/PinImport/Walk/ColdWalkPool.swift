import Foundation
import PinCore
import PinMetadata
import Synchronization

/// Whether this process met a cold cache: the walk times its stats (a warm one takes a
/// microsecond or two), and once one waited for the disk the walk gets helper threads
/// (`ColdWalkPool`) and the readers give way to it (`ReadStage.coldNice`).
enum ColdCache {
    /// A stat slower than this waited for the disk (a warm one takes a microsecond or two).
    /// Tests set it to -1 to take the cold path everywhere.
    nonisolated(unsafe) static var slowNanoseconds: Int64 = 200_000

    static func now() -> Int64 {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Int64(t.tv_sec) * 1_000_000_000 + Int64(t.tv_nsec)
    }

    /// Set once a walk of this process met a cold cache (a stat that waited for the disk): the
    /// read pool's threads then give way to the walk (`ReadStage.coldNice`).
    static let met = Atomic<Bool>(false)

    /// A stat took longer than `slowNanoseconds`, on the walking thread. On a busy machine a
    /// warm stat is slow too when the thread is preempted in it (at a load average of 20, a
    /// warm dry run met a dozen such stats): the cache counts as cold only once the thread has
    /// read at least `coldBlocks` from a disk (`ru_inblock`, 512-byte units: 1 MiB, a hundred
    /// folders or so of a cold walk, more than the few blocks a warm run's walk may find
    /// evicted; one getrusage per slow stat, until then).
    static let coldBlocks = 2048

    static func noteSlowStat() {
        guard !met.load(ordering: .relaxed) else { return }
        var usage = rusage()
        // RUSAGE_THREAD (1): the calling thread's own counts; Glibc's module does not export it.
        if slowNanoseconds < 0 || getrusage(__rusage_who_t(1), &usage) == 0 && usage.ru_inblock >= coldBlocks {
            met.store(true, ordering: .relaxed)
        }
    }
}

/// The walk's helper threads on a cold cache, two pools of `ReadFeed` threads started at the
/// first cold folder (a warm walk, a nightly run, never starts them): a folder whose stats
/// wait for the disk has the rest statted by `threads` threads at once (each fstatat a
/// blocking inode read), the way the read pool keeps many reads in flight; and the later
/// subfolders of a folder are read ahead by `folderThreads` threads while the walk goes down
/// the first.
final class ColdWalkPool {
    struct Job: Sendable {
        let folder: Int32
        let name: [UInt8]
    }

    struct Outcome: Sendable {
        var st: stat
        var error: Int32
    }

    static let threads = 16

    private var feed: ReadFeed<Job, Outcome>?

    /// The stats of `jobs` (symlinks not followed), in order.
    func stat(_ jobs: [Job]) -> [Outcome] {
        if feed == nil {
            feed = ReadFeed(threads: Self.threads, window: Self.threads * 8, batch: 1, name: "cold stats") { job in
                var st = Glibc.stat()
                let failed = (job.name + [0]).withUnsafeBufferPointer {
                    fstatat(job.folder, UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), &st, AT_SYMLINK_NOFOLLOW) != 0
                }
                return Outcome(st: st, error: failed ? errno : 0)
            }
        }
        var outcomes: [Outcome] = []
        outcomes.reserveCapacity(jobs.count)
        for job in jobs { feed!.submit(job) }
        feed!.drain(keeping: 0) { _, outcome in outcomes.append(outcome) }
        return outcomes
    }

    /// Threads that read folders ahead of the walk.
    static let folderThreads = 8

    private var folderFeed: ReadFeed<FolderJob, Void>?

    struct FolderJob: Sendable {
        let root: Int32
        let path: [UInt8]
        let flags: Int32
    }

    /// Reads `folders` (relative to `rootFD`) ahead of the walk, on threads of their own: each
    /// opened and its names read (getdents), then closed, so that their inodes and blocks are
    /// in memory when the walk gets there instead of one cold read after the other on the
    /// walking thread. Nothing waits for them; those not read when the walk ends are dropped.
    func readAhead(rootFD: Int32, folders: ArraySlice<[UInt8]>, followSymlinks: Bool) {
        if folderFeed == nil {
            // The walk never waits for these; their (empty) results are taken at each call, and
            // at most a window of them wait.
            folderFeed = ReadFeed(threads: Self.folderThreads, window: 1 << 14, batch: 1, name: "folder read-ahead") { job in
                let fd = (job.path + [0]).withUnsafeBufferPointer {
                    openat(job.root, UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), job.flags)
                }
                guard fd >= 0 else { return }
                guard let dir = fdopendir(fd) else {
                    close(fd)
                    return
                }
                while readdir(dir) != nil {}
                closedir(dir)
            }
        }
        let flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | (followSymlinks ? 0 : O_NOFOLLOW)
        for path in folders { folderFeed!.submit(FolderJob(root: rootFD, path: path, flags: flags)) }
        folderFeed!.takeReady { _, _ in }
    }

    /// Ends the threads, if any were started (folders not yet read ahead are dropped).
    func finish() {
        feed?.finish { _, _ in }
        feed = nil
        folderFeed?.abandon()
        folderFeed = nil
    }
}
