/* SPDX-License-Identifier: MIT */
/*
 * fuzz-accel's flushes, finishes and fences: user fences, their signal,
 * waits, status, callbacks, times and export as sync_file or poll fd. A
 * blocking call first signals every user fence.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <unistd.h>

#include "fuzz-accel.h"

static _Atomic unsigned long callbacks;

static void fence_cb(struct accel_fence *f, int status, void *data)
{
	(void)f;
	(void)status;
	atomic_fetch_add((_Atomic unsigned long *)data, 1);
}

void fac_op_sync(struct run *r)
{
	struct accel_queue *q = r->q[fz_pick(&r->in, N_QUEUE)];
	struct fence_slot *s = &r->fence[fz_pick(&r->in, N_FENCE)];
	uint8_t sel = fz_u8(&r->in);
	struct accel_fence *f = UNTOUCHED;
	int fd = -1, err;
	uint64_t t;

	switch (sel % 8) {
	case 0:
		fac_chk(accel_queue_flush(q));
		break;
	case 1:
		fac_settle(r);
		fac_chk(accel_queue_finish(q));
		break;
	case 2:
		err = fac_chk(accel_fence_new_user(fac_g.ctx, &f));
		if (err) {
			if (f != UNTOUCHED)
				fac_die("user fence set on failure", err);
			break;
		}
		fac_drop_fence(s);
		*s = (struct fence_slot){ .f = f, .user = true };
		break;
	case 3: {
		/* 0, a negative errno, or a positive value (refused) */
		int st = (sel & 8) ? 0 : (sel & 16) ? -(int)(sel >> 5) - 1
			 : (sel & 32) ? -1 - (int)(fz_u32(&r->in) % 4095)
				      : (int)(fz_u32(&r->in) >> 2) + 1;

		err = fac_chk(accel_fence_signal(s->f, st));
		if (!err) {
			if (!s->user || st > 0)
				fac_die("signalled what cannot be", st);
			s->user = false;
		}
		break;
	}
	case 4:
		if (sel & 8)
			fac_settle(r);
		fac_chk(accel_fence_wait(s->f,
					 (sel & 8) ? ACCEL_TIMEOUT_INFINITE
					 : (sel & 16) ? -1 : 0));
		err = accel_fence_get_status(s->f);
		if (err > 1 || err < -4095)
			fac_die("accel_fence_get_status", err);
		break;
	case 5:
		if (sel & 8)
			fac_chk(accel_fence_add_callback(s->f, (sel & 16)
							 ? NULL : fence_cb,
							 &callbacks));
		else
			fac_chk(accel_fence_get_time(s->f, fz_u8(&r->in) % 6,
						     &t));
		break;
	case 6:
		err = (sel & 8) ? accel_fence_export_sync_file(s->f, &fd)
				: accel_fence_export_poll_fd(s->f, &fd);
		fac_chk(err);
		if (!err)
			close(fd);
		else if (fd != -1)
			fac_die("fd set on failure", err);
		break;
	default:
		if (s->f) {
			accel_fence_ref(s->f);
			accel_fence_unref(s->f);
			if (sel & 8)
				fac_drop_fence(s);
		}
		break;
	}
}
