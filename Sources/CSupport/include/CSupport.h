#ifndef PINS_CSUPPORT_H
#define PINS_CSUPPORT_H

/// Puts the calling process in the idle I/O scheduling class (ioprio_set has no glibc wrapper
/// and Swift cannot call the variadic syscall()). Returns 0 or -1 with errno set.
int pins_set_idle_io_priority(void);

/// Fills `buffer` with `count` bytes from the kernel's random source (getrandom(2), which waits
/// until the pool is initialised and never reads a file). Returns 0, or -1 with errno set when no
/// randomness can be had (ENOSYS on a kernel without it, EPERM under a seccomp filter).
int pins_fill_random(unsigned char *buffer, unsigned long count);

#endif
