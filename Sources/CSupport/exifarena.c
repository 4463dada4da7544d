#include "CSupport.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* A per-thread bump allocator for libexif (see CSupport.h). Every block carries its size in a
 * 16-byte header, so that realloc can copy it and free can tell arena blocks from heap ones. */

enum { ARENA_BYTES = 64 * 1024, HEADER = 16 };

typedef struct {
    unsigned char *base;
    size_t used;
    /* Offset of the newest block's header: it may grow in place. */
    size_t last;
} Arena;

static __thread Arena arena;
static pthread_key_t arena_key;
static pthread_once_t arena_once = PTHREAD_ONCE_INIT;

static void arena_release(void *base) { free(base); }
static void arena_make_key(void) { (void)pthread_key_create(&arena_key, arena_release); }

static int in_arena(const unsigned char *block) {
    return arena.base != NULL && block >= arena.base && block < arena.base + ARENA_BYTES;
}

static size_t rounded(size_t size) { return (size + 15) & ~(size_t)15; }

void pins_exif_arena_reset(void) {
    if (arena.base == NULL) {
        (void)pthread_once(&arena_once, arena_make_key);
        arena.base = malloc(ARENA_BYTES);
        /* Freed when the thread ends; without a key the arena is simply not used. */
        if (arena.base != NULL && pthread_setspecific(arena_key, arena.base) != 0) {
            free(arena.base);
            arena.base = NULL;
        }
    }
    arena.used = 0;
    arena.last = 0;
}

void *pins_exif_alloc(uint32_t size) {
    size_t need = HEADER + rounded(size);
    unsigned char *block;
    if (arena.base != NULL && need <= ARENA_BYTES - arena.used) {
        block = arena.base + arena.used;
        arena.last = arena.used;
        arena.used += need;
        memset(block + HEADER, 0, size);
    } else {
        block = calloc(1, HEADER + (size_t)size);
        if (block == NULL) return NULL;
    }
    memcpy(block, &(size_t){size}, sizeof(size_t));
    return block + HEADER;
}

void *pins_exif_realloc(void *pointer, uint32_t size) {
    if (pointer == NULL) return pins_exif_alloc(size);
    unsigned char *block = (unsigned char *)pointer - HEADER;
    size_t old;
    memcpy(&old, block, sizeof(size_t));
    if (size == 0) {
        /* As glibc's realloc(p, 0): the block is freed and NULL returned. */
        pins_exif_free(pointer);
        return NULL;
    }
    if (!in_arena(block)) {
        unsigned char *grown = realloc(block, HEADER + (size_t)size);
        if (grown == NULL) return NULL;
        memcpy(grown, &(size_t){size}, sizeof(size_t));
        return grown + HEADER;
    }
    size_t offset = (size_t)(block - arena.base);
    if (offset == arena.last && HEADER + rounded(size) <= ARENA_BYTES - offset) {
        arena.used = offset + HEADER + rounded(size);
        memcpy(block, &(size_t){size}, sizeof(size_t));
        return pointer;
    }
    void *moved = pins_exif_alloc(size);
    if (moved == NULL) return NULL;
    memcpy(moved, pointer, old < size ? old : size);
    return moved;
}

void pins_exif_free(void *pointer) {
    if (pointer == NULL) return;
    unsigned char *block = (unsigned char *)pointer - HEADER;
    /* Arena blocks go all at once, at the next reset. */
    if (!in_arena(block)) free(block);
}
