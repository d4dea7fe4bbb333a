/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>

#include <openssl/evp.h>

#include "sha256.h"

void accelc_sha256_init(struct accelc_sha256 *h)
{
	EVP_MD_CTX *md = EVP_MD_CTX_new();

	h->md = md;
	h->err = 0;
	if (!md)
		h->err = -ENOMEM;
	else if (!EVP_DigestInit_ex(md, EVP_sha256(), NULL))
		h->err = -EIO;
}

void accelc_sha256_update(struct accelc_sha256 *h, const void *data,
			  size_t len)
{
	if (!h->err && len && !EVP_DigestUpdate(h->md, data, len))
		h->err = -EIO;
}

void accelc_sha256_str(struct accelc_sha256 *h, const char *s)
{
	accelc_sha256_update(h, s ? s : "", (s ? strlen(s) : 0) + 1);
}

int accelc_sha256_final(struct accelc_sha256 *h,
			uint8_t out[ACCELC_SHA256_SIZE])
{
	unsigned int n = 0;
	int r = h->err;

	if (!r && (!EVP_DigestFinal_ex(h->md, out, &n) ||
		   n != ACCELC_SHA256_SIZE))
		r = -EIO;
	EVP_MD_CTX_free(h->md);
	h->md = NULL;
	return r;
}

int accelc_sha256(const void *data, size_t len,
		  uint8_t out[ACCELC_SHA256_SIZE])
{
	struct accelc_sha256 h;

	accelc_sha256_init(&h);
	accelc_sha256_update(&h, data, len);
	return accelc_sha256_final(&h, out);
}
