/* The machine's limit for a header read: open every regular file below a folder, read its
 * first 64 KiB with one pread, close it. scripts/bench compiles and runs it beside pins. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <unistd.h>

static char buffer[65536];
static long files = 0, bytes = 0;

static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw) {
    (void)st; (void)ftw;
    if (type != FTW_F) return 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = pread(fd, buffer, sizeof buffer, 0);
    if (n > 0) bytes += n;
    close(fd);
    files++;
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: headread DIR\n"); return 64; }
    if (nftw(argv[1], visit, 64, FTW_PHYS) != 0) { perror(argv[1]); return 1; }
    printf("%ld files, %ld bytes\n", files, bytes);
    return 0;
}
