/* SPDX-License-Identifier: MIT */
/* The clGet*Info result convention, in one place. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "icd.h"

cl_int icd_info(size_t size, void *value, size_t *size_ret, const void *src,
		size_t n)
{
	if (value) {
		if (size < n)
			return CL_INVALID_VALUE;
		if (n)
			memcpy(value, src, n);
	}
	if (size_ret)
		*size_ret = n;
	return CL_SUCCESS;
}

cl_int icd_info_string(size_t size, void *value, size_t *size_ret,
		       const char *s)
{
	return icd_info(size, value, size_ret, s ? s : "",
			s ? strlen(s) + 1 : 1);
}

cl_int icd_info_uint(size_t size, void *value, size_t *size_ret, cl_uint v)
{
	return icd_info(size, value, size_ret, &v, sizeof(v));
}

cl_int icd_info_ulong(size_t size, void *value, size_t *size_ret, cl_ulong v)
{
	return icd_info(size, value, size_ret, &v, sizeof(v));
}

cl_int icd_info_size(size_t size, void *value, size_t *size_ret, size_t v)
{
	return icd_info(size, value, size_ret, &v, sizeof(v));
}

cl_int icd_info_bool(size_t size, void *value, size_t *size_ret, bool v)
{
	cl_bool b = v ? CL_TRUE : CL_FALSE;

	return icd_info(size, value, size_ret, &b, sizeof(b));
}

cl_int icd_info_ptr(size_t size, void *value, size_t *size_ret,
		    const void *v)
{
	return icd_info(size, value, size_ret, &v, sizeof(v));
}

cl_int icd_info_name_versions(size_t size, void *value, size_t *size_ret,
			      const char *list, char sep,
			      cl_version (*version_of)(const char *name))
{
	cl_name_version *nv = NULL;
	size_t n = 0, cap = 0;
	const char *p = list, *end;
	cl_int r;

	while (*p) {
		size_t len;

		while (*p == sep)
			p++;
		if (!*p)
			break;
		end = strchr(p, sep);
		len = end ? (size_t)(end - p) : strlen(p);
		if (n == cap) {
			cl_name_version *tmp;

			cap = cap ? cap * 2 : 16;
			tmp = realloc(nv, cap * sizeof(*nv));
			if (!tmp) {
				free(nv);
				return CL_OUT_OF_HOST_MEMORY;
			}
			nv = tmp;
		}
		memset(&nv[n], 0, sizeof(nv[n]));
		memcpy(nv[n].name, p,
		       ICD_MIN(len, (size_t)CL_NAME_VERSION_MAX_NAME_SIZE - 1));
		nv[n].version = version_of(nv[n].name);
		n++;
		p += len;
	}
	r = icd_info(size, value, size_ret, nv, n * sizeof(*nv));
	free(nv);
	return r;
}

void icd_strcat(char **s, const char *fmt, ...)
{
	size_t old = *s ? strlen(*s) : 0;
	va_list ap;
	char *add, *tmp;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&add, fmt, ap);
	va_end(ap);
	if (n < 0) {
		free(*s);
		*s = NULL;
		return;
	}
	tmp = realloc(*s, old + (size_t)n + 1);
	if (!tmp) {
		free(add);
		free(*s);
		*s = NULL;
		return;
	}
	memcpy(tmp + old, add, (size_t)n + 1);
	free(add);
	*s = tmp;
}
