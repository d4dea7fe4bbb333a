/* SPDX-License-Identifier: MIT */
/*
 * Rectangular transfers as host functions: the buffer-rect commands
 * (cl-transfer.c, cl-command-buffer.c) and the image commands
 * (cl-image-transfer.c), whose texel boxes become byte boxes. A box is an
 * origin and two pitches; rows of region[0] bytes are moved one by one.
 */
#include <stdlib.h>
#include <string.h>

#include "icd.h"

bool icd_rect_span(const struct icd_rect *r, const size_t *region,
		   size_t *start, size_t *end)
{
	size_t s, e, t;

	if (!region[0] || !region[1] || !region[2])
		return false;
	/*
	 * Every product and sum is checked: a wrapped end would pass the
	 * caller's bounds check and send icd_rect_run() to wild addresses.
	 * start = o2 * slice + o1 * row + o0
	 */
	if (__builtin_mul_overflow(r->origin[2], r->slice_pitch, &s) ||
	    __builtin_mul_overflow(r->origin[1], r->row_pitch, &t) ||
	    __builtin_add_overflow(s, t, &s) ||
	    __builtin_add_overflow(s, r->origin[0], &s))
		return false;
	/* end = start + (r2 - 1) * slice + (r1 - 1) * row + r0 */
	if (__builtin_mul_overflow(region[2] - 1, r->slice_pitch, &e) ||
	    __builtin_mul_overflow(region[1] - 1, r->row_pitch, &t) ||
	    __builtin_add_overflow(e, t, &e) ||
	    __builtin_add_overflow(e, region[0], &e) ||
	    __builtin_add_overflow(e, s, &e))
		return false;
	*start = s;
	*end = e;
	return true;
}

size_t icd_rect_offset(const struct icd_rect *r, size_t y, size_t z)
{
	return (r->origin[2] + z) * r->slice_pitch +
	       (r->origin[1] + y) * r->row_pitch + r->origin[0];
}

int icd_rect_run(void *p)
{
	struct icd_rect_cmd *c = p;
	char *src = c->src_host, *dst = c->dst_host;
	void *smap = NULL, *dmap = NULL;
	size_t y, z;
	int r = 0;

	if (c->src_buf) {
		r = accel_buffer_map(c->src_buf, c->src_start,
				     c->src_end - c->src_start, ACCEL_MAP_READ,
				     &smap);
		if (r < 0)
			return r;
		src = (char *)smap - c->src_start;
	}
	if (c->dst_buf) {
		r = accel_buffer_map(c->dst_buf, c->dst_start,
				     c->dst_end - c->dst_start, ACCEL_MAP_WRITE,
				     &dmap);
		if (r < 0)
			goto out;
		dst = (char *)dmap - c->dst_start;
	}
	for (z = 0; z < c->region[2]; z++)
		for (y = 0; y < c->region[1]; y++)
			memmove(dst + icd_rect_offset(&c->dst, y, z),
				src + icd_rect_offset(&c->src, y, z),
				c->region[0]);
out:
	if (dmap)
		accel_buffer_unmap(c->dst_buf, dmap);
	if (smap)
		accel_buffer_unmap(c->src_buf, smap);
	return r;
}

void icd_rect_free(void *p)
{
	struct icd_rect_cmd *c = p;

	accel_buffer_unref(c->src_buf);
	accel_buffer_unref(c->dst_buf);
	free(c);
}

bool icd_rect_overlap(const struct icd_rect_cmd *c)
{
	size_t z, y, z2, y2, rows;

	if (c->src_end <= c->dst_start || c->dst_end <= c->src_start)
		return false;
	/* Rows are short lists; compare them pairwise, bounded. */
	if (__builtin_mul_overflow(c->region[1], c->region[2], &rows) ||
	    rows > 4096)
		return true;
	for (z = 0; z < c->region[2]; z++)
		for (y = 0; y < c->region[1]; y++) {
			size_t a = icd_rect_offset(&c->src, y, z);

			for (z2 = 0; z2 < c->region[2]; z2++)
				for (y2 = 0; y2 < c->region[1]; y2++) {
					size_t b = icd_rect_offset(&c->dst, y2,
								   z2);

					if (a < b + c->region[0] &&
					    b < a + c->region[0])
						return true;
				}
		}
	return false;
}

cl_int icd_rect_copy_finish(cl_mem src, cl_mem dst, struct icd_rect_cmd *c,
			    struct icd_rect_cmd **ret)
{
	if (icd_mem_root(src) == icd_mem_root(dst)) {
		/* the boxes as offsets in the one buffer both share */
		struct icd_rect_cmd abs = *c;

		abs.src_start += icd_mem_root_offset(src);
		abs.src_end += icd_mem_root_offset(src);
		abs.dst_start += icd_mem_root_offset(dst);
		abs.dst_end += icd_mem_root_offset(dst);
		abs.src.origin[0] += icd_mem_root_offset(src);
		abs.dst.origin[0] += icd_mem_root_offset(dst);
		if (icd_rect_overlap(&abs)) {
			free(c);
			return CL_MEM_COPY_OVERLAP;
		}
	}
	/* the command keeps the buffers until it is freed */
	c->src_buf = accel_buffer_ref(src->buf);
	c->dst_buf = accel_buffer_ref(dst->buf);
	*ret = c;
	return CL_SUCCESS;
}

void icd_rect_host_ends(struct icd_rect_cmd *c, bool read,
			struct accel_buffer *buf, size_t start, size_t end,
			void *ptr)
{
	if (read) {
		c->src_buf = accel_buffer_ref(buf);
		c->src_start = start;
		c->src_end = end;
		c->dst_host = ptr;
	} else {
		c->dst_buf = accel_buffer_ref(buf);
		c->dst_start = start;
		c->dst_end = end;
		c->src_host = ptr;
	}
}

cl_int icd_rect_submit(cl_command_queue q, struct icd_rect_cmd *c,
		       cl_command_type type, cl_bool blocking, cl_uint n,
		       const cl_event *list, cl_event *event)
{
	return icd_enqueue_host_fn(q, type, icd_rect_run, c, icd_rect_free,
				   blocking, n, list, event);
}
