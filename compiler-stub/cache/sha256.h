/* SPDX-License-Identifier: MIT */
/* SHA-256 for cache keys and entry checksums, through OpenSSL's libcrypto
 * (a Debian library, not hand-written). */
#ifndef ACCELC_SHA256_H
#define ACCELC_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define ACCELC_SHA256_SIZE 32

struct accelc_sha256 {
	void *md; /* EVP_MD_CTX */
	int err;  /* first failure, sticky */
};

/* Start a digest. Errors are kept and reported by _final. */
void accelc_sha256_init(struct accelc_sha256 *h);
void accelc_sha256_update(struct accelc_sha256 *h, const void *data,
			  size_t len);
/* A string with its terminating NUL, so that fields cannot run together. */
void accelc_sha256_str(struct accelc_sha256 *h, const char *s);
/* @return 0 or -ENOMEM/-EIO; frees the context either way */
int accelc_sha256_final(struct accelc_sha256 *h,
			uint8_t out[ACCELC_SHA256_SIZE]);
/* One buffer at once. @return as _final */
int accelc_sha256(const void *data, size_t len,
		  uint8_t out[ACCELC_SHA256_SIZE]);

#endif /* ACCELC_SHA256_H */
