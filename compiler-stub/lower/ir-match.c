/* SPDX-License-Identifier: MIT */
/* Instruction shapes the lowering and code generation passes look for. */
#include <string.h>

#include "accelc-private.h"

bool accelc_calls(LLVMValueRef i, const char *prefix)
{
	LLVMValueRef f;
	size_t len, n = strlen(prefix);
	const char *name;

	if (!LLVMIsACallInst(i))
		return false;
	f = LLVMGetCalledValue(i);
	if (!f || !LLVMIsAFunction(f))
		return false; /* an indirect call, or inline assembly */
	name = LLVMGetValueName2(f, &len);
	return len >= n && !strncmp(name, prefix, n);
}

bool accelc_int_division(LLVMValueRef i)
{
	switch (LLVMGetInstructionOpcode(i)) {
	case LLVMUDiv: case LLVMSDiv: case LLVMURem: case LLVMSRem:
		return true;
	default:
		return false;
	}
}
