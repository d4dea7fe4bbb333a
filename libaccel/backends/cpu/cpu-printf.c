/* SPDX-License-Identifier: MIT */
/*
 * printf() in kernels, host side. A launch of a kernel that prints gets a
 * buffer the work-items append records to (compiler-stub/printf-lower.c
 * writes them); when the launch completes, before its fence signals, the
 * records are formatted here with the C library's snprintf, one
 * conversion (one vector element) at a time, and handed to the core's
 * printf sink (the context's handler or stdout, printf-sink.c). On an
 * in-order queue launches complete in submission order, so their output
 * comes in that order too.
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "cpu-printf.h"
#include "cpu-program.h"

int accel_printf_buffer_new(struct accel_device *dev, uint32_t kernel_flags,
			    struct accelc_printf_buffer **ret)
{
	uint64_t cap = dev->u64[ACCEL_DEVICE_U64_PRINTF_BUFFER_SIZE];
	struct accelc_printf_buffer *b;

	*ret = NULL;
	if (!(kernel_flags & CPU_KERNEL_PRINTF))
		return 0;
	/* without room every printf returns -1, as the kernel can see */
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	if (cap) {
		b->data = malloc(cap);
		if (!b->data) {
			free(b);
			return -ENOMEM;
		}
	}
	b->capacity = cap;
	b->limit = cap;
	*ret = b;
	return 0;
}

static int text_reserve(struct accel_printf_text *t, size_t n)
{
	size_t cap = t->cap ? t->cap : 256;
	char *p;

	if (t->len + n + 1 <= t->cap)
		return 0;
	while (cap < t->len + n + 1)
		cap *= 2;
	p = realloc(t->buf, cap);
	if (!p)
		return -ENOMEM;
	t->buf = p;
	t->cap = cap;
	return 0;
}

static int text_append(struct accel_printf_text *t, const char *s, size_t n)
{
	if (text_reserve(t, n) < 0)
		return -ENOMEM;
	memcpy(t->buf + t->len, s, n);
	t->len += n;
	t->buf[t->len] = '\0';
	return 0;
}

/* snprintf onto the end of @t. The C format is always our own. */
static int text_printf(struct accel_printf_text *t, const char *cfmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, cfmt);
	n = vsnprintf(NULL, 0, cfmt, ap);
	va_end(ap);
	if (n < 0 || text_reserve(t, (size_t)n) < 0)
		return -ENOMEM;
	va_start(ap, cfmt);
	vsnprintf(t->buf + t->len, (size_t)n + 1, cfmt, ap);
	va_end(ap);
	t->len += (size_t)n;
	return 0;
}

/* The next @n bytes of the payload, NULL past its end. */
static const uint8_t *take(const uint8_t *p, size_t size, size_t *pos,
			   size_t n)
{
	const uint8_t *r = p + *pos;

	if (n > size - *pos)
		return NULL;
	*pos += n;
	return r;
}

static int64_t take_i64(const uint8_t *p, size_t size, size_t *pos, bool *ok)
{
	const uint8_t *b = take(p, size, pos, 8);
	int64_t v = 0;

	if (b)
		memcpy(&v, b, 8);
	else
		*ok = false;
	return v;
}

static int32_t clamp_width(uint64_t v)
{
	return v > ACCELC_PRINTF_WIDTH_MAX ? ACCELC_PRINTF_WIDTH_MAX :
					     (int32_t)v;
}

/*
 * The C conversion for @sp without its length modifier: "%-+ #0" flags
 * (plus @extra), width (>= 0) and precision resolved, then @len and the
 * conversion.
 */
static void c_spec(const struct accelc_pf_spec *sp, unsigned extra,
		   int32_t width, int32_t prec, const char *len, char *out,
		   size_t size)
{
	unsigned all = sp->flags | extra;
	char flags[8], *f = flags;

	for (unsigned i = 0; i < 5; i++)
		if (all & (1u << i))
			*f++ = "-+ #0"[i];
	*f = '\0';
	if (prec >= 0)
		snprintf(out, size, "%%%s%d.%d%s%c", flags, (int)width,
			 (int)prec, len, sp->conv);
	else
		snprintf(out, size, "%%%s%d%s%c", flags, (int)width, len,
			 sp->conv);
}

static int64_t int_value(uint64_t raw, unsigned bytes, bool is_signed)
{
	unsigned shift = 64 - 8 * bytes;

	if (bytes >= 8)
		return (int64_t)raw;
	raw <<= shift;
	return is_signed ? (int64_t)raw >> shift : (int64_t)(raw >> shift);
}

static double float_value(const uint8_t *p, unsigned bytes)
{
	_Float16 h;
	float f;
	double d;

	switch (bytes) {
	case 2:
		memcpy(&h, p, 2);
		return (double)h;
	case 4:
		memcpy(&f, p, 4);
		return f;
	default:
		memcpy(&d, p, 8);
		return d;
	}
}

/* One number (a scalar, or one vector element) with conversion @cf. */
static int put_number(struct accel_printf_text *t,
		      const struct accelc_pf_spec *sp, const char *cf,
		      const uint8_t *p, unsigned bytes)
{
	uint64_t raw = 0;

	if (accelc_pf_is_float(sp->conv))
		return text_printf(t, cf, float_value(p, bytes));
	memcpy(&raw, p, bytes);
	if (accelc_pf_is_signed(sp->conv))
		return text_printf(t, cf, (long long)int_value(raw, bytes,
							       true));
	return text_printf(t, cf, (unsigned long long)int_value(raw, bytes,
								false));
}

/* Bytes a scalar integer conversion keeps, from its length modifier. */
static unsigned scalar_int_bytes(const struct accelc_pf_spec *sp)
{
	switch (sp->lenmod) {
	case ACCELC_PF_LEN_HH:
		return 1;
	case ACCELC_PF_LEN_H:
		return 2;
	case ACCELC_PF_LEN_L:
		return 8;
	default:
		return 4;
	}
}

static int put_conversion(struct accel_printf_text *t,
			  const struct accelc_pf_spec *sp,
			  const uint8_t *pl, size_t size, size_t *pos)
{
	int32_t width = sp->width < 0 ? 0 : clamp_width((uint64_t)sp->width);
	int32_t prec = sp->prec;
	unsigned extra = 0;
	bool ok = true;
	char cf[48];
	uint64_t n;
	int r = 0;

	if (sp->width == ACCELC_PF_STAR) {
		int64_t v = take_i64(pl, size, pos, &ok);

		/* a negative '*' width is the '-' flag and its magnitude */
		if (v < 0)
			extra = ACCELC_PF_MINUS;
		width = clamp_width(v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
	}
	if (prec == ACCELC_PF_STAR) {
		int64_t v = take_i64(pl, size, pos, &ok);

		/* a negative precision is taken as if omitted */
		prec = v < 0 ? ACCELC_PF_NONE : clamp_width((uint64_t)v);
	} else if (prec >= 0) {
		prec = clamp_width((uint64_t)prec);
	}
	if (!ok)
		return -EBADMSG;
	/* integers are printed from 64 bits, floats from doubles */
	c_spec(sp, extra, width, prec, accelc_pf_is_int(sp->conv) ? "ll" : "",
	       cf, sizeof(cf));

	if (sp->vec) {
		unsigned es = accelc_pf_elem_size(sp);
		const uint8_t *v;

		if (!es)
			return -EBADMSG;
		n = ((uint64_t)sp->vec * es + 7) & ~(uint64_t)7;
		v = take(pl, size, pos, n);
		if (!v)
			return -EBADMSG;
		/* the elements, joined by ',' (6.15.14.2.1) */
		for (unsigned i = 0; i < sp->vec && r == 0; i++) {
			if (i)
				r = text_append(t, ",", 1);
			if (r == 0)
				r = put_number(t, sp, cf, v + i * es, es);
		}
		return r;
	}
	switch (sp->conv) {
	case 's': {
		const uint8_t *s;

		n = (uint64_t)take_i64(pl, size, pos, &ok);
		if (!ok)
			return -EBADMSG;
		if (n == ACCELC_PRINTF_NULL_STR)
			return text_printf(t, cf, "(null)");
		if (n > ACCELC_PRINTF_STR_MAX ||
		    !(s = take(pl, size, pos, (n + 7) & ~(uint64_t)7)))
			return -EBADMSG;
		/* not NUL-terminated: the precision bounds the read */
		if (prec < 0 || (uint64_t)prec > n)
			prec = (int32_t)n;
		c_spec(sp, extra, width, prec, "", cf, sizeof(cf));
		return text_printf(t, cf, (const char *)s);
	}
	case 'p':
		n = (uint64_t)take_i64(pl, size, pos, &ok);
		return ok ? text_printf(t, cf, (void *)(uintptr_t)n) : -EBADMSG;
	case 'c':
		n = (uint64_t)take_i64(pl, size, pos, &ok);
		return ok ? text_printf(t, cf, (int)(unsigned char)n) :
			    -EBADMSG;
	default: {
		const uint8_t *v = take(pl, size, pos, 8);

		if (!v)
			return -EBADMSG;
		return put_number(t, sp, cf, v,
				  accelc_pf_is_float(sp->conv) ?
					  8 : scalar_int_bytes(sp));
	}
	}
}

int accel_printf_format(const char *fmt, const uint8_t *payload, size_t size,
			struct accel_printf_text *out)
{
	size_t n = strlen(fmt), i = 0, pos = 0;
	int r = 0;

	while (i < n && r == 0) {
		const char *pct = memchr(fmt + i, '%', n - i);
		size_t lit = pct ? (size_t)(pct - fmt) - i : n - i;
		struct accelc_pf_spec sp;

		r = text_append(out, fmt + i, lit);
		i += lit;
		if (r || i >= n)
			break;
		if (accelc_pf_parse(fmt + i, n - i, &sp) < 0)
			return -EBADMSG;
		i += sp.len;
		if (sp.conv == '%')
			r = text_append(out, "%", 1);
		else
			r = put_conversion(out, &sp, payload, size, &pos);
	}
	/* an empty output still gets a terminated buffer */
	return r ? r : text_append(out, "", 0);
}

/* The program's table of formats and its length. */
static const char *const *format_table(struct accel_program *prog,
				       uint32_t *n)
{
	const char *const *tab = NULL;

	*n = 0;
	/* the CPU device's programs: their dlopen()ed object */
	if (prog->backend_data)
		tab = dlsym(((struct cpu_program *)prog->backend_data)->handle,
			    ACCELC_PRINTF_TABLE);
	while (tab && tab[*n] && *n < UINT32_MAX)
		(*n)++;
	return tab;
}

void accel_printf_buffer_flush(struct accel_cmd *cmd,
			       struct accelc_printf_buffer *buf, bool output)
{
	if (buf)
		accel_printf_buffer_flush_launch(cmd->queue->dev->ctx,
						 cmd->u.launch.kernel, buf,
						 output);
}

void accel_printf_buffer_flush_launch(struct accel_context *ctx,
				      const struct accel_kernel *kernel,
				      struct accelc_printf_buffer *buf,
				      bool output)
{
	struct accel_printf_text t = { 0 };
	struct accel_printf_sink sink;
	const char *const *tab = NULL;
	uint32_t n_fmt = 0;
	uint64_t end, pos = 0;

	if (!buf)
		return;
	end = MIN(MIN(buf->used, buf->limit), buf->capacity);
	if (!output || end == 0)
		goto out;
	if (buf->used > end)
		log_warn(ctx, "printf buffer full (%llu bytes): later printf "
			 "calls returned -1\n",
			 (unsigned long long)buf->capacity);
	tab = format_table(kernel->prog, &n_fmt);
	accel_printf_begin(ctx, &sink);
	while (pos + sizeof(struct accelc_printf_record) <= end) {
		struct accelc_printf_record rec;

		memcpy(&rec, buf->data + pos, sizeof(rec));
		/* a kernel scribbling over the buffer must not crash us */
		if (rec.size < sizeof(rec) || rec.size % 8 ||
		    rec.size > end - pos || rec.format >= n_fmt) {
			log_err(ctx, "printf buffer corrupt at byte %llu; "
				"%llu bytes of output dropped\n",
				(unsigned long long)pos,
				(unsigned long long)(end - pos));
			break;
		}
		t.len = 0;
		if (accel_printf_format(tab[rec.format],
					buf->data + pos + sizeof(rec),
					rec.size - sizeof(rec), &t) < 0) {
			log_err(ctx, "printf record at byte %llu does not "
				"match \"%s\"\n", (unsigned long long)pos,
				tab[rec.format]);
		} else {
			accel_printf_emit(&sink, t.buf, t.len);
		}
		pos += rec.size;
	}
	accel_printf_end(&sink);
out:
	free(t.buf);
	free(buf->data);
	free(buf);
}
