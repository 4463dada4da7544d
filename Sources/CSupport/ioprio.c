#include "CSupport.h"
#include <sys/syscall.h>
#include <unistd.h>

// From linux/ioprio.h: class in the top 3 bits of a 16-bit value.
#define PINS_IOPRIO_CLASS_SHIFT 13
#define PINS_IOPRIO_CLASS_IDLE 3
#define PINS_IOPRIO_WHO_PROCESS 1

int pins_set_idle_io_priority(void) {
    return (int)syscall(SYS_ioprio_set, PINS_IOPRIO_WHO_PROCESS, 0,
                        PINS_IOPRIO_CLASS_IDLE << PINS_IOPRIO_CLASS_SHIFT);
}
