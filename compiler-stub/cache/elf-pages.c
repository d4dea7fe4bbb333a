/* SPDX-License-Identifier: MIT */
/*
 * Whether a program's shared object can be mapped with this machine's
 * page size: its code is linked for the page size of the machine that
 * built it (codegen.c), and a binary carried from a 4 KiB machine to a
 * 64 KiB one (AArch64 kernels come in both) would fail in ld.so with a
 * message that does not say why. The same two tests as ld.so.
 */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "binary.h"

int accelc_elf_check_pages(const void *code, size_t size, char *err,
			   size_t err_size)
{
	unsigned long page = (unsigned long)sysconf(_SC_PAGESIZE);
	const unsigned char *p = code;
	Elf64_Ehdr eh;

	if (size < sizeof(eh)) {
		snprintf(err, err_size, "code is not an ELF object");
		return -EINVAL;
	}
	memcpy(&eh, p, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phoff > size ||
	    eh.e_phnum > (size - eh.e_phoff) / sizeof(Elf64_Phdr)) {
		snprintf(err, err_size, "code is not a 64-bit ELF object");
		return -EINVAL;
	}
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		memcpy(&ph, p + eh.e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_type != PT_LOAD)
			continue;
		if (ph.p_align % page || (ph.p_vaddr - ph.p_offset) % page) {
			snprintf(err, err_size,
				 "code linked for %llu-byte pages, this "
				 "machine's are %lu bytes",
				 (unsigned long long)ph.p_align, page);
			return -ENOEXEC;
		}
	}
	return 0;
}
