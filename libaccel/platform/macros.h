/* SPDX-License-Identifier: MIT */
/*
 * Small internal helpers: export marker, attributes, the cleanup vocabulary.
 */
#ifndef LIBACCEL_MACROS_H
#define LIBACCEL_MACROS_H

#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>

#define ACCEL_EXPORT __attribute__((visibility("default")))

#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define _unused_ __attribute__((unused))

/*
 * Thread-local data of the library: initial-exec, so it lives in the
 * static TLS block even when libaccel arrives by dlopen() (the OpenCL ICD
 * loader): no __tls_get_addr() call on the launch path, and no dynamic
 * TLS slot, which LeakSanitizer's exit-time scan of other threads trips
 * over. A few pointers only, well inside glibc's static TLS surplus.
 */
#define ACCEL_TLS _Thread_local __attribute__((tls_model("initial-exec")))
#define _likely_(x) __builtin_expect(!!(x), 1)
#define _unlikely_(x) __builtin_expect(!!(x), 0)

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define ALIGN_UP(x, a) (((x) + ((a) - 1)) & ~((__typeof__(x))(a) - 1))
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

static inline void freep(void *p)
{
	free(*(void **)p);
}

static inline void closep(int *fd)
{
	if (*fd >= 0)
		close(*fd);
}

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _cleanup_free_ _cleanup_(freep)
#define _cleanup_close_ _cleanup_(closep)

/* Hand a cleanup-managed pointer/fd out of its scope. */
#define TAKE_PTR(p)                                                            \
	({                                                                     \
		__typeof__(p) _p = (p);                                        \
		(p) = NULL;                                                    \
		_p;                                                            \
	})
#define TAKE_FD(fd)                                                            \
	({                                                                     \
		int _fd = (fd);                                                \
		(fd) = -1;                                                     \
		_fd;                                                           \
	})

#endif /* LIBACCEL_MACROS_H */
