#ifndef PINS_CSUPPORT_H
#define PINS_CSUPPORT_H

#include <stdint.h>

/// Puts the calling process in the idle I/O scheduling class (ioprio_set has no glibc wrapper
/// and Swift cannot call the variadic syscall()). Returns 0 or -1 with errno set.
int pins_set_idle_io_priority(void);

/// Fills `buffer` with `count` bytes from the kernel's random source (getrandom(2), which waits
/// until the pool is initialised and never reads a file). Returns 0, or -1 with errno set when no
/// randomness can be had (ENOSYS on a kernel without it, EPERM under a seccomp filter).
int pins_fill_random(unsigned char *buffer, unsigned long count);

/// A bump allocator for libexif, one per thread (libexif's allocation callbacks take no context):
/// a 64 KiB block, taken once per thread and freed when the thread ends, from which
/// `pins_exif_alloc` hands out zeroed memory (as libexif's default calloc) and into which
/// `pins_exif_free` gives nothing back; a request that does not fit goes to the heap. An ExifData
/// makes some 25 allocations per photo, each a malloc and a free otherwise.
/// `pins_exif_arena_reset` starts the arena over: call it only when no block of it is in use on
/// this thread (before creating an ExifData, after the previous one was freed).
void pins_exif_arena_reset(void);
void *pins_exif_alloc(uint32_t size);
void *pins_exif_realloc(void *pointer, uint32_t size);
void pins_exif_free(void *pointer);

/// A scratch file in `folder` that has no name: O_TMPFILE, else a new file unlinked at once (a
/// file system without O_TMPFILE). Either way nothing is left behind when the process ends,
/// killed or not. Returns the descriptor (read-write, close-on-exec), or -1 with errno set.
int pins_open_scratch(const char *folder);

/// A scratch file in memory (memfd_create): for a system with no temporary folder at all.
/// Returns the descriptor, or -1 with errno set.
int pins_open_memory_scratch(void);

/// mallopt(M_MMAP_THRESHOLD, bytes): blocks of at least `bytes` come from their own mmap, and
/// the threshold no longer rises as glibc's default does. Returns 1 on success, 0 on error.
int pins_set_mmap_threshold(int bytes);

/// malloc_trim(0): gives the free memory at the top of every arena back to the system.
int pins_malloc_trim(void);

/// SQLite's memory methods (sqlite3_mem_methods, handed to SQLite by PinStore's
/// Connection.memoryMethods): glibc's malloc, keeping at most two freed blocks of 1 to 16 MiB for
/// the next large request (see malloc.c: the statement journal's 4 MiB chunk, allocated and freed
/// at every photo upsert).
void *pins_sqlite_malloc(int bytes);
void pins_sqlite_free(void *block);
void *pins_sqlite_realloc(void *block, int bytes);
int pins_sqlite_size(void *block);
int pins_sqlite_roundup(int bytes);
int pins_sqlite_init(void *unused);
void pins_sqlite_shutdown(void *unused);

/// Starts bringing the cache line that holds `address` towards the core, without waiting for it
/// (a hint: nothing is read, and an address in no mapping is harmless). The place lookups ask
/// for the records they will name next, so that their cache misses overlap instead of queueing.
static inline void pins_prefetch(const void *address) { __builtin_prefetch(address); }

#endif
