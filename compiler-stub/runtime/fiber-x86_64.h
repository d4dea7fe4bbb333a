/* SPDX-License-Identifier: MIT */
/*
 * The x86-64 context switch of fibers (fiber.c). Saves the callee-saved
 * registers, MXCSR and the x87 control word on the current stack, stores
 * the stack pointer to *save (rdi) and resumes the stack in rsi. A new
 * stack starts in accelc_fiber_start, which calls accelc_fiber_main with
 * the group from r12.
 */
#ifndef ACCELC_FIBER_X86_64_H
#define ACCELC_FIBER_X86_64_H

__asm__(".text\n"
	".p2align 4\n"
	".hidden accelc_fiber_switch\n"
	".type accelc_fiber_switch,@function\n"
	"accelc_fiber_switch:\n"
	"	pushq %rbp\n"
	"	pushq %rbx\n"
	"	pushq %r12\n"
	"	pushq %r13\n"
	"	pushq %r14\n"
	"	pushq %r15\n"
	"	subq $8, %rsp\n"
	"	stmxcsr (%rsp)\n"
	"	fnstcw 4(%rsp)\n"
	"	movq %rsp, (%rdi)\n"
	"	movq %rsi, %rsp\n"
	"	ldmxcsr (%rsp)\n"
	"	fldcw 4(%rsp)\n"
	"	addq $8, %rsp\n"
	"	popq %r15\n"
	"	popq %r14\n"
	"	popq %r13\n"
	"	popq %r12\n"
	"	popq %rbx\n"
	"	popq %rbp\n"
	"	ret\n"
	".size accelc_fiber_switch, .-accelc_fiber_switch\n"
	".p2align 4\n"
	".type accelc_fiber_start,@function\n"
	"accelc_fiber_start:\n"
	"	movq %r12, %rdi\n"
	"	call accelc_fiber_main\n"
	"	ud2\n"
	".size accelc_fiber_start, .-accelc_fiber_start\n");

static void *fiber_initial_frame(uint8_t *top, struct fiber_group *g)
{
	extern char accelc_fiber_start[] HIDDEN;
	uint64_t *sp = (uint64_t *)top;
	uint32_t csr[2];

	__asm__ volatile("stmxcsr %0\n\tfnstcw %1"
			 : "=m"(csr[0]), "=m"(csr[1]));
	/* after the ret, rsp = top: 16-aligned before accelc_fiber_start's
	 * call, as the ABI wants */
	*--sp = (uint64_t)accelc_fiber_start;   /* ret address */
	*--sp = 0;                              /* rbp */
	*--sp = 0;                              /* rbx */
	*--sp = (uint64_t)g;                    /* r12 */
	*--sp = 0;                              /* r13 */
	*--sp = 0;                              /* r14 */
	*--sp = 0;                              /* r15 */
	*--sp = (uint64_t)csr[0] | (uint64_t)csr[1] << 32;
	return sp;
}

#endif /* ACCELC_FIBER_X86_64_H */
