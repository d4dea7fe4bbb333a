/* SPDX-License-Identifier: MIT */
/*
 * The codegen passes: each step of the table in passes.c that works on
 * the bitcode clang made, as one small function over struct
 * accelc_pass_ctx (pipeline.h). run_llvm() (compile.c) runs them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/BitReader.h>
#include <llvm-c/Target.h>

#include "job.h"
#include "pipeline.h"

static char *mem_to_str(LLVMMemoryBufferRef mb)
{
	size_t n = LLVMGetBufferSize(mb);
	char *s = malloc(n + 1);

	if (s) {
		memcpy(s, LLVMGetBufferStart(mb), n);
		s[n] = '\0';
	}
	return s;
}

/*
 * Bytes of the program-scope variables in the global address space
 * (CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE), before the builtins add
 * their own. SPIR numbering: 1 is __global.
 */
static uint64_t global_bytes(LLVMModuleRef mod, LLVMTargetDataRef td)
{
	uint64_t n = 0;

	for (LLVMValueRef g = LLVMGetFirstGlobal(mod); g;
	     g = LLVMGetNextGlobal(g))
		if (!LLVMIsDeclaration(g) &&
		    LLVMGetPointerAddressSpace(LLVMTypeOf(g)) == 1)
			n += LLVMABISizeOfType(td, LLVMGlobalGetValueType(g));
	return n;
}

/* --- the codegen passes (passes.c has them in order) --- */

int accelc_pass_parse(struct accelc_pass_ctx *c)
{
	struct job *j = c->j;
	char *err = NULL;

	if (LLVMCreateMemoryBufferWithContentsOfFile(j->bc, &c->mb, &err)) {
		strbuf_printf(j->log, "error: %s\n", err);
		LLVMDisposeMessage(err);
		return -EIO;
	}
	if (LLVMParseBitcodeInContext2(c->st.ctx, c->mb, &c->st.mod)) {
		strbuf_printf(j->log, "error: cannot read clang's bitcode\n");
		return -EIO;
	}
	c->st.td = LLVMGetModuleDataLayout(c->st.mod);
	return 0;
}

int accelc_pass_global_size(struct accelc_pass_ctx *c)
{
	c->j->global_size = global_bytes(c->st.mod, c->st.td);
	return 0;
}

int accelc_pass_read_kernels(struct accelc_pass_ctx *c)
{
	return accelc_read_kernels(&c->st);
}

int accelc_pass_check_recursion(struct accelc_pass_ctx *c)
{
	return accelc_check_recursion(c->st.mod, c->j->log);
}

int accelc_pass_link_builtins(struct accelc_pass_ctx *c)
{
	/* each kernel's sub-group size, for the lowering of
	 * __accel_sub_group_width() in its wrapper (wg-builtins.c) */
	for (uint32_t i = 0; i < c->st.n_kernels; i++) {
		struct accelc_kernel_info *k = &c->st.kernels[i].info;

		k->sub_group_size =
			accelc_kernel_sub_group_size(k, c->j->features);
	}
	return accelc_link_builtins(c->st.mod, false, c->j->log);
}

int accelc_pass_safe_division(struct accelc_pass_ctx *c)
{
	return accelc_safe_division(c->st.mod);
}

int accelc_pass_find_barriers(struct accelc_pass_ctx *c)
{
	return accelc_find_barriers(&c->st);
}

bool accelc_pass_want_fibers(const struct accelc_pass_ctx *c)
{
	return c->st.needs_fibers;
}

int accelc_pass_link_fiber_rt(struct accelc_pass_ctx *c)
{
	return accelc_link_builtins(c->st.mod, true, c->j->log);
}

int accelc_pass_target_machine(struct accelc_pass_ctx *c)
{
	struct job *j = c->j;

	return accelc_create_tm(j->cpu, j->features, c->st.opt, &c->tm,
				j->log);
}

int accelc_pass_optimise(struct accelc_pass_ctx *c)
{
	struct job *j = c->j;

	return accelc_optimize(c->st.mod, c->tm, j->cpu, j->features,
			       c->st.opt, j->bo.fast_math, j->split_vectors,
			       j->log);
}

int accelc_pass_streaming_finish(struct accelc_pass_ctx *c)
{
	accelc_streaming_finish(&c->st);
	return 0;
}

bool accelc_pass_want_ir(const struct accelc_pass_ctx *c)
{
	return c->j->o.flags & ACCELC_FLAG_KEEP_IR;
}

int accelc_pass_keep_ir(struct accelc_pass_ctx *c)
{
	c->j->res->ir = LLVMPrintModuleToString(c->st.mod);
	return c->j->res->ir ? 0 : -ENOMEM;
}

int accelc_pass_stack_prepare(struct accelc_pass_ctx *c)
{
	accelc_stack_prepare(c->st.mod, &c->ss);
	return 0;
}

bool accelc_pass_want_asm(const struct accelc_pass_ctx *c)
{
	return c->j->o.flags & ACCELC_FLAG_KEEP_ASM;
}

int accelc_pass_emit_asm(struct accelc_pass_ctx *c)
{
	LLVMMemoryBufferRef out = NULL;
	int r;

	r = accelc_emit(c->st.mod, c->tm, LLVMAssemblyFile, &out, c->j->log);
	if (r)
		return r;
	c->j->res->asm_text = mem_to_str(out);
	LLVMDisposeMemoryBuffer(out);
	return c->j->res->asm_text ? 0 : -ENOMEM;
}

int accelc_pass_emit_object(struct accelc_pass_ctx *c)
{
	LLVMMemoryBufferRef out = NULL;
	int r;

	r = accelc_emit(c->st.mod, c->tm, LLVMObjectFile, &out, c->j->log);
	if (r)
		return r;
	r = accelc_write_file(c->j->obj, LLVMGetBufferStart(out),
			      LLVMGetBufferSize(out));
	LLVMDisposeMemoryBuffer(out);
	return r;
}

int accelc_pass_stack_sizes(struct accelc_pass_ctx *c)
{
	return job_stack_sizes(c->j, &c->st, &c->ss, c->tm);
}
