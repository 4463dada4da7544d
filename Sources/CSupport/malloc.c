#include "CSupport.h"
#include <malloc.h>

int pins_set_mmap_threshold(int bytes) {
    return mallopt(M_MMAP_THRESHOLD, bytes);
}

int pins_malloc_trim(void) {
    return malloc_trim(0);
}
