#ifndef PINS_CSUPPORT_H
#define PINS_CSUPPORT_H

/// Puts the calling process in the idle I/O scheduling class (ioprio_set has no glibc wrapper
/// and Swift cannot call the variadic syscall()). Returns 0 or -1 with errno set.
int pins_set_idle_io_priority(void);

#endif
