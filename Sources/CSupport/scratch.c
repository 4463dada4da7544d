#define _GNU_SOURCE
#include "CSupport.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int pins_open_scratch(const char *folder) {
    int fd = open(folder, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0) return fd;
    // Only a file system (or kernel) without O_TMPFILE falls back; a missing or unwritable
    // folder is reported as it is.
    if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) return -1;
    size_t length = strlen(folder);
    char *name = malloc(length + sizeof("/pins-scratch-XXXXXX"));
    if (!name) return -1;
    memcpy(name, folder, length);
    strcpy(name + length, "/pins-scratch-XXXXXX");
    fd = mkostemp(name, O_CLOEXEC);
    if (fd >= 0 && unlink(name) != 0) {
        int saved = errno;
        close(fd);
        fd = -1;
        errno = saved;
    }
    free(name);
    return fd;
}

int pins_open_memory_scratch(void) {
    return memfd_create("pins-scratch", MFD_CLOEXEC);
}
