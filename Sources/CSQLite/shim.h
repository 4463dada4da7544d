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

/* SQLITE_CONFIG_MALLOC (sqlite3_config is variadic): SQLite copies the methods. PinStore hands it
   CSupport's pins_sqlite_* (Connection.memoryMethods). Process-wide, and only before SQLite
   initializes. */
static inline int pins_sqlite_memory_methods(const sqlite3_mem_methods *methods) {
    return sqlite3_config(SQLITE_CONFIG_MALLOC, methods);
}

/* SQLITE_CONFIG_MEMSTATUS off (sqlite3_config is variadic): SQLite then counts no memory, and so
   takes no process-wide mutex at each of its allocations. pins reads no such count (no
   sqlite3_status, no heap limit); with the count on, pins serve's worker threads, each opening
   a connection per request, waited on that one mutex. Process-wide, before SQLite initializes. */
static inline int pins_sqlite_no_memory_status(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

/* FALLOC_FL_KEEP_SIZE: allocate the blocks of [offset, offset + length), change no byte and not
   the file's size. */
static inline int pins_allocate_blocks(int fd, off_t offset, off_t length) {
    return fallocate(fd, 0x01, offset, length);
}
