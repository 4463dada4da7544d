import Foundation

/// Memory of its own for a table a data file's reader makes at load (Places.bin's 137,764 place
/// records and what naming each reads, 6.6 MB), starting at a 2 MiB boundary and marked for
/// transparent huge pages, as PinData's `MappedFile` lays the files' copies: on 4 KiB pages the
/// table took a page fault per page (about 540 for the records) at every start. The tail past the
/// last whole 2 MiB keeps small pages, so no more memory than asked; where the kernel gives no
/// huge page, small pages; where it maps nothing, memory from the allocator. Freed with the
/// object; the bytes are not initialised.
final class TableMemory {
    let base: UnsafeMutableRawPointer
    /// The bytes mapped (0: `base` is from the allocator).
    private let mapped: Int

    init(bytes: Int) {
        let huge = 2 << 20, page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let length = max(page, (bytes + page - 1) / page * page)
        if let raw = mmap(nil, length + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), raw != MAP_FAILED {
            let head = (huge - Int(bitPattern: raw) % huge) % huge
            if head > 0 { munmap(raw, head) }
            base = raw + head
            munmap(base + length, huge - head)
            if length >= huge { _ = madvise(base, length / huge * huge, MADV_HUGEPAGE) }
            mapped = length
        } else {
            base = UnsafeMutableRawPointer.allocate(byteCount: max(1, bytes), alignment: 16)
            mapped = 0
        }
    }

    deinit {
        if mapped > 0 { munmap(base, mapped) } else { base.deallocate() }
    }
}
