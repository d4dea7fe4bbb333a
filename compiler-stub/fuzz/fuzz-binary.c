/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the program binary parser (cache/binary.c). The
 * input's checksum is fixed up first, so that mutations reach the
 * structure behind it. Whatever parses must serialise back to the same bytes.
 */
#include <stdlib.h>
#include <string.h>

#include "binary.h"
#include "sha256.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct accelc_binary b;
	uint8_t *in = malloc(size ? size : 1);
	char err[160];

	if (!in)
		return 0;
	memcpy(in, data, size);
	if (size >= ACCELC_BINARY_BODY_OFFSET &&
	    accelc_sha256(in + ACCELC_BINARY_BODY_OFFSET,
			  size - ACCELC_BINARY_BODY_OFFSET,
			  in + ACCELC_BINARY_SUM_OFFSET))
		abort();
	if (accelc_binary_parse(in, size, &b, err, sizeof(err)) == 0) {
		const struct accelc_kernel_info **k =
			calloc(b.n_kernels ? b.n_kernels : 1, sizeof(*k));
		struct accelc_binary_in w = {
			.cpu = b.cpu, .features = b.features,
			.options = b.options, .kind = b.kind,
			.global_size = b.global_size, .kernels = k,
			.n_kernels = b.n_kernels, .code = b.code,
			.code_size = b.code_size,
		};
		size_t out_size;
		void *out;

		if (!k)
			abort();
		for (uint32_t i = 0; i < b.n_kernels; i++)
			k[i] = &b.kernels[i];
		if (accelc_binary_write(&w, &out, &out_size) ||
		    out_size != size || memcmp(out, in, size))
			abort();
		free(out);
		free(k);
		accelc_binary_check_cpu(b.features, "+sse2,+avx,-avx512f", err,
					sizeof(err));
		accelc_binary_clear(&b);
	} else if (!err[0]) {
		abort(); /* every refusal says why */
	}
	free(in);
	return 0;
}
