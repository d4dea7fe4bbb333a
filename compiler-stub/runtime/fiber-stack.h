/* SPDX-License-Identifier: MIT */
/*
 * How large the stacks of work-items run as fibers are: what the fiber
 * runtime (fiber.c) maps and what the compiler counts for each work-item
 * (stack-size.c). @need: the work-item function's stack need, as the
 * compiler measured it (__accelc_fiber_stack).
 */
#ifndef ACCELC_FIBER_STACK_H
#define ACCELC_FIBER_STACK_H

#include <stdint.h>

/* a guard page below each stack */
#define FIBER_GUARD 4096u
/* the smallest stack, and room for the runtime's own frames on each */
#define FIBER_STACK_MIN (128u * 1024u)
#define FIBER_STACK_SLACK 4096u

/* Bytes of each fiber's stack, a multiple of FIBER_GUARD (a page). */
static inline uint64_t accelc_fiber_stack_bytes(uint64_t need)
{
	uint64_t s;

	if (need > UINT64_MAX / 2)
		return UINT64_MAX / 2;
	s = (need + FIBER_STACK_SLACK + FIBER_GUARD - 1) / FIBER_GUARD *
	    FIBER_GUARD;
	return s < FIBER_STACK_MIN ? FIBER_STACK_MIN : s;
}

#endif /* ACCELC_FIBER_STACK_H */
