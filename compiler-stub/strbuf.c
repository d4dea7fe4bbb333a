/* SPDX-License-Identifier: MIT */
/* Small string and argv helpers that never fail loudly: allocation
 * failures are remembered and reported once by the caller. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accelc-private.h"

void strbuf_append(struct strbuf *sb, const char *s, size_t n)
{
	if (sb->len + n > ACCELC_LOG_MAX) {
		n = ACCELC_LOG_MAX > sb->len ? ACCELC_LOG_MAX - sb->len : 0;
		sb->truncated = true;
	}
	if (sb->len + n + 1 > sb->cap) {
		size_t cap = sb->cap ? sb->cap : 256;
		char *p;

		while (cap < sb->len + n + 1)
			cap *= 2;
		p = realloc(sb->buf, cap);
		if (!p) {
			sb->truncated = true;
			return;
		}
		sb->buf = p;
		sb->cap = cap;
	}
	memcpy(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void strbuf_printf(struct strbuf *sb, const char *fmt, ...)
{
	char tmp[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	strbuf_append(sb, tmp, (size_t)n < sizeof(tmp) ? (size_t)n :
			  sizeof(tmp) - 1);
}

void strbuf_free(struct strbuf *sb)
{
	free(sb->buf);
	memset(sb, 0, sizeof(*sb));
}

void argv_add(struct argv *a, const char *s)
{
	char *d;

	if (a->oom)
		return;
	if (a->n + 2 > a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 16;
		char **v = realloc(a->v, cap * sizeof(*v));

		if (!v) {
			a->oom = true;
			return;
		}
		a->v = v;
		a->cap = cap;
	}
	d = strdup(s);
	if (!d) {
		a->oom = true;
		return;
	}
	a->v[a->n++] = d;
	a->v[a->n] = NULL;
}

void argv_free(struct argv *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	memset(a, 0, sizeof(*a));
}
