#include "CSupport.h"
#include <errno.h>
#include <sys/random.h>

int pins_fill_random(unsigned char *buffer, unsigned long count) {
    unsigned long filled = 0;
    while (filled < count) {
        ssize_t got = getrandom(buffer + filled, count - filled, 0);
        if (got < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        filled += (unsigned long)got;
    }
    return 0;
}
