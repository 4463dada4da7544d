/* The machine's limit for a header read: open every regular file below a folder, read its
 * first 64 KiB with one pread, close it. scripts/bench compiles and runs it beside pins.
 *
 *     headread DIR [THREADS]
 *
 * With one thread (the default) the walk and the reads interleave, as nftw gives them. With
 * THREADS > 1 the walk lists the paths first, then THREADS threads take files from a shared
 * counter: THREADS reads in flight, the best a reader can do on a cold disk or a share. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char buffer[65536];
static long files = 0;
static atomic_long bytes = 0;

static char **paths = NULL;
static long count = 0, capacity = 0;
static atomic_long next = 0;

static void read_one(const char *path, char *into) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    ssize_t n = pread(fd, into, 65536, 0);
    if (n > 0) atomic_fetch_add(&bytes, n);
    close(fd);
}

static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw) {
    (void)st; (void)ftw;
    if (type != FTW_F) return 0;
    read_one(path, buffer);
    files++;
    return 0;
}

static int list(const char *path, const struct stat *st, int type, struct FTW *ftw) {
    (void)st; (void)ftw;
    if (type != FTW_F) return 0;
    if (count == capacity) {
        capacity = capacity ? capacity * 2 : 4096;
        paths = realloc(paths, capacity * sizeof *paths);
        if (!paths) { perror("realloc"); exit(1); }
    }
    paths[count++] = strdup(path);
    return 0;
}

static void *worker(void *unused) {
    (void)unused;
    char *own = malloc(65536);
    for (;;) {
        long i = atomic_fetch_add(&next, 1);
        if (i >= count) break;
        read_one(paths[i], own);
    }
    free(own);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 2 && argc != 3) { fprintf(stderr, "usage: headread DIR [THREADS]\n"); return 64; }
    int threads = argc == 3 ? atoi(argv[2]) : 1;
    if (threads < 1 || threads > 1024) { fprintf(stderr, "headread: THREADS is 1 to 1024\n"); return 64; }
    if (threads == 1) {
        if (nftw(argv[1], visit, 64, FTW_PHYS) != 0) { perror(argv[1]); return 1; }
    } else {
        if (nftw(argv[1], list, 64, FTW_PHYS) != 0) { perror(argv[1]); return 1; }
        pthread_t *ids = calloc(threads, sizeof *ids);
        for (int t = 0; t < threads; t++) pthread_create(&ids[t], NULL, worker, NULL);
        for (int t = 0; t < threads; t++) pthread_join(ids[t], NULL);
        files = count;
    }
    printf("%ld files, %ld bytes\n", files, (long)atomic_load(&bytes));
    return 0;
}
