/* SPDX-License-Identifier: MIT */
/*
 * The AArch64 context switch of fibers (fiber.c). Saves what AAPCS64 has
 * the callee keep (x19-x28, the frame pointer x29, the link register x30,
 * the low halves d8-d15 of v8-v15) and FPCR (rounding, flush to zero) in
 * a 176-byte frame on the current stack, stores the stack pointer to
 * *save (x0) and resumes the stack in x1, returning through its x30. A
 * new stack "returns" into accelc_fiber_start, which calls
 * accelc_fiber_main with the group from x19.
 */
#ifndef ACCELC_FIBER_AARCH64_H
#define ACCELC_FIBER_AARCH64_H

/* the frame, in 8-byte slots: x19..x30, d8..d15, FPCR, padding */
#define FRAME_SLOTS 22
#define SLOT_X19 0
#define SLOT_X29 10
#define SLOT_X30 11
#define SLOT_FPCR 20

__asm__(".text\n"
	".p2align 4\n"
	".hidden accelc_fiber_switch\n"
	".type accelc_fiber_switch,%function\n"
	"accelc_fiber_switch:\n"
	"	sub sp, sp, #176\n"
	"	stp x19, x20, [sp, #0]\n"
	"	stp x21, x22, [sp, #16]\n"
	"	stp x23, x24, [sp, #32]\n"
	"	stp x25, x26, [sp, #48]\n"
	"	stp x27, x28, [sp, #64]\n"
	"	stp x29, x30, [sp, #80]\n"
	"	stp d8, d9, [sp, #96]\n"
	"	stp d10, d11, [sp, #112]\n"
	"	stp d12, d13, [sp, #128]\n"
	"	stp d14, d15, [sp, #144]\n"
	"	mrs x9, fpcr\n"
	"	str x9, [sp, #160]\n"
	"	mov x9, sp\n"
	"	str x9, [x0]\n"
	"	mov sp, x1\n"
	"	ldr x9, [sp, #160]\n"
	"	msr fpcr, x9\n"
	"	ldp x19, x20, [sp, #0]\n"
	"	ldp x21, x22, [sp, #16]\n"
	"	ldp x23, x24, [sp, #32]\n"
	"	ldp x25, x26, [sp, #48]\n"
	"	ldp x27, x28, [sp, #64]\n"
	"	ldp x29, x30, [sp, #80]\n"
	"	ldp d8, d9, [sp, #96]\n"
	"	ldp d10, d11, [sp, #112]\n"
	"	ldp d12, d13, [sp, #128]\n"
	"	ldp d14, d15, [sp, #144]\n"
	"	add sp, sp, #176\n"
	"	ret\n"
	".size accelc_fiber_switch, .-accelc_fiber_switch\n"
	".p2align 4\n"
	".type accelc_fiber_start,%function\n"
	"accelc_fiber_start:\n"
	"	mov x0, x19\n"
	"	bl accelc_fiber_main\n"
	"	brk #0\n"
	".size accelc_fiber_start, .-accelc_fiber_start\n");

static void *fiber_initial_frame(uint8_t *top, struct fiber_group *g)
{
	extern char accelc_fiber_start[] HIDDEN;
	uint64_t *sp = (uint64_t *)top - FRAME_SLOTS;
	uint64_t fpcr;

	__asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
	/* after the switch's add, sp = top: 16-aligned, as AAPCS64 wants */
	for (unsigned i = 0; i < FRAME_SLOTS; i++)
		sp[i] = 0;
	sp[SLOT_X19] = (uint64_t)g;
	sp[SLOT_X29] = 0; /* the end of the frame chain */
	sp[SLOT_X30] = (uint64_t)accelc_fiber_start;
	sp[SLOT_FPCR] = fpcr;
	return sp;
}

#endif /* ACCELC_FIBER_AARCH64_H */
