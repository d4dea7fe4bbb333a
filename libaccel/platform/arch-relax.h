/* SPDX-License-Identifier: MIT */
/*
 * The spin-wait hint of each architecture, for loops that poll a value
 * another thread will change: it lets a sibling hardware thread run and
 * saves power; nothing where the architecture has none.
 */
#ifndef LIBACCEL_ARCH_RELAX_H
#define LIBACCEL_ARCH_RELAX_H

static inline void accel_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield" ::: "memory");
#endif
}

#endif /* LIBACCEL_ARCH_RELAX_H */
