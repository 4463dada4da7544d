#include "CSupport.h"
#include <malloc.h>

int pins_set_mmap_threshold(int bytes) {
    return mallopt(M_MMAP_THRESHOLD, bytes);
}

int pins_malloc_trim(void) {
    return malloc_trim(0);
}

/* SQLite's memory, through glibc, with its few large blocks kept for the next request.
 *
 * SQLite keeps a statement's journal in memory in chunks of the spill size (4 MiB, see PinStore's
 * Connection.statementJournalSpillBytes): the first page a statement journals allocates one, and
 * the statement's end frees it. An import's photo upsert is such a statement, so a 100,000-file
 * import allocated and freed 117,282 blocks of 4 MiB, and because MallocTuning fixes glibc's mmap
 * threshold at 128 KiB, each was a fresh mmap, page faults on every page it touched, and a munmap
 * with its TLB flush. Here the freed large blocks (1 to 16 MiB) are kept, at most two, and the
 * next large request of a size one of them holds takes it: the same pages again. Two blocks of
 * at most 16 MiB is all that stays; smaller requests are glibc's malloc as before. */
#include <stdatomic.h>
#include <stdlib.h>

enum { pins_kept_min = 1 << 20, pins_kept_max = 16 << 20, pins_kept_slots = 2 };
static _Atomic(void *) pins_kept[pins_kept_slots];

void *pins_sqlite_malloc(int bytes) {
    size_t want = bytes > 0 ? (size_t)bytes : 1;
    if (want >= pins_kept_min && want <= pins_kept_max) {
        for (int i = 0; i < pins_kept_slots; i++) {
            void *block = atomic_exchange(&pins_kept[i], NULL);
            if (block == NULL) continue;
            if (malloc_usable_size(block) >= want) return block;
            free(block);
        }
    }
    return malloc(want);
}

void pins_sqlite_free(void *block) {
    if (block == NULL) return;
    size_t size = malloc_usable_size(block);
    if (size >= pins_kept_min && size <= pins_kept_max + 65536) {
        for (int i = 0; i < pins_kept_slots; i++) {
            void *empty = NULL;
            if (atomic_compare_exchange_strong(&pins_kept[i], &empty, block)) return;
        }
    }
    free(block);
}

void *pins_sqlite_realloc(void *block, int bytes) {
    return realloc(block, bytes > 0 ? (size_t)bytes : 1);
}

int pins_sqlite_size(void *block) {
    return block == NULL ? 0 : (int)malloc_usable_size(block);
}

int pins_sqlite_roundup(int bytes) {
    return (bytes + 7) & ~7;
}

int pins_sqlite_init(void *unused) {
    (void)unused;
    return 0;
}

void pins_sqlite_shutdown(void *unused) {
    (void)unused;
}
