#include <sqlite3.h>
#include <sys/types.h>

/* fallocate(2): fcntl.h declares it only under _GNU_SOURCE, which Swift's Glibc module does not
   define. Used by PinStore's SQLite `mmap` hook to allocate the WAL index's blocks before SQLite
   maps them (see SharedMemoryAllocation). */
int fallocate(int fd, int mode, off_t offset, off_t len);

/* SQLITE_CONFIG_STMTJRNL_SPILL: sqlite3_config is variadic, which Swift cannot call. Process-wide,
   and only before SQLite initializes (PinStore's Connection.statementJournalSpill). */
static inline int pins_statement_journal_spill(int bytes) {
    return sqlite3_config(SQLITE_CONFIG_STMTJRNL_SPILL, bytes);
}

/* SQLITE_CONFIG_MALLOC with CSupport's pins_sqlite_* methods (declared here too: this module
   cannot import CSupport; PinStore links both): glibc's malloc, keeping the statement journal's
   large chunks for the next statement instead of an mmap and munmap each (CSupport/malloc.c).
   Process-wide, and only before SQLite initializes (PinStore's Connection.memoryMethods). */
void *pins_sqlite_malloc(int bytes);
void pins_sqlite_free(void *block);
void *pins_sqlite_realloc(void *block, int bytes);
int pins_sqlite_size(void *block);
int pins_sqlite_roundup(int bytes);
int pins_sqlite_init(void *unused);
void pins_sqlite_shutdown(void *unused);

static inline int pins_sqlite_keep_large_blocks(void) {
    static const sqlite3_mem_methods methods = {
        pins_sqlite_malloc, pins_sqlite_free, pins_sqlite_realloc, pins_sqlite_size,
        pins_sqlite_roundup, pins_sqlite_init, pins_sqlite_shutdown, 0
    };
    return sqlite3_config(SQLITE_CONFIG_MALLOC, &methods);
}

/* FALLOC_FL_KEEP_SIZE: allocate the blocks of [offset, offset + length), change no byte and not
   the file's size. */
static inline int pins_allocate_blocks(int fd, off_t offset, off_t length) {
    return fallocate(fd, 0x01, offset, length);
}
