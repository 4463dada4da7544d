import CSupport
import Glibc

/// glibc's malloc, set for a long run that reads a million files on 32 threads.
///
/// By default glibc serves a request of 128 KiB or more with its own mmap, but each time such a
/// block is freed it raises that threshold to the block's size (up to 32 MiB). An import frees
/// large buffers all the time (the sorter's runs, scratch-file buffers, report records), so the
/// threshold soon climbs and those buffers come from the arenas instead, where they fragment
/// them: peak RSS then grew with the number of files, not with what the run holds (a dry run of
/// 1,000,000 generated files 88-89 MB against 72-79 MB at 100,000). Fixing the threshold at
/// glibc's own starting value keeps large blocks in mmap, given back whole when freed: 69.6 MB
/// against 64.3 MB, at the same speed within noise.
public enum MallocTuning {
    /// glibc's default starting threshold, kept from rising.
    static let mmapThreshold: Int32 = 128 << 10

    /// Fixes the mmap threshold (`mallopt(M_MMAP_THRESHOLD)`, which also stops its dynamic
    /// rise), unless the person set `MALLOC_MMAP_THRESHOLD_` in the environment: theirs wins.
    /// True when it was set here.
    @discardableResult
    public static func fixMmapThreshold(environment: [String: String]? = nil) -> Bool {
        let own = environment.map { $0["MALLOC_MMAP_THRESHOLD_"] != nil } ?? (getenv("MALLOC_MMAP_THRESHOLD_") != nil)
        if own { return false }
        return pins_set_mmap_threshold(mmapThreshold) == 1
    }
}
