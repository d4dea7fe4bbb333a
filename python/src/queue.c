/* SPDX-License-Identifier: MIT */
/*
 * Queue: launches, transfers, fills, markers. Every submission returns
 * its Fence and keeps the Python objects it uses (buffers, host memory,
 * the kernel's arguments) alive until that fence signals.
 */
#include "pyaccel.h"

#include <errno.h>

static PyObject *queue_new(PyTypeObject *tp, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "device", "flags", NULL };
	struct pa_state *st = pa_state_of_type(tp);
	PyObject *device;
	uint32_t flags = 0;
	struct accel_queue *q = NULL;
	struct pa_queue *self;
	int r;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O&:Queue", kwlist,
					 &device, pa_u32, &flags))
		return NULL;
	if (!PyObject_TypeCheck(device, st->Device))
		return PyErr_Format(PyExc_TypeError,
				    "device must be a Device");
	r = accel_queue_new(((struct pa_device *)device)->dev, flags, &q);
	if (r < 0)
		return pa_raise(st, r, "accel_queue_new");
	self = (struct pa_queue *)tp->tp_alloc(tp, 0);
	if (!self) {
		accel_queue_unref(q);
		return NULL;
	}
	self->queue = q;
	self->device = Py_NewRef(device);
	return (PyObject *)self;
}

static void queue_dealloc(PyObject *o)
{
	struct pa_queue *self = (struct pa_queue *)o;

	Py_BEGIN_ALLOW_THREADS
	accel_queue_unref(self->queue);
	Py_END_ALLOW_THREADS
	Py_XDECREF(self->device);
	pa_free_self(o);
}

/* the Fence of a submission, keeping @p keep (stolen) until it signals */
static PyObject *submitted(struct pa_state *st, PyObject *queue,
			   struct accel_fence *f, PyObject *keep)
{
	PyObject *ctx = ((struct pa_device *)((struct pa_queue *)queue)
				 ->device)->context;

	if (keep && pa_keep_until(st, f, keep) < 0) {
		accel_fence_unref(f);
		return NULL;
	}
	return pa_fence_wrap(st, f, ctx);
}

static int buffer_arg(struct pa_state *st, PyObject *v, const char *what)
{
	if (PyObject_TypeCheck(v, st->Buffer))
		return 0;
	PyErr_Format(PyExc_TypeError, "%s must be a Buffer, not %.100s", what,
		     Py_TYPE(v)->tp_name);
	return -1;
}

/* 1 to 3 sizes from an int or a sequence; all 0 for None */
static int dims(PyObject *v, const char *what, uint64_t out[3], int *n)
{
	PyObject *t;

	out[0] = out[1] = out[2] = 0;
	if (!v || v == Py_None) {
		if (n)
			*n = 0;
		return 0;
	}
	t = PyLong_Check(v) ? PyTuple_Pack(1, v) : PySequence_Tuple(v);
	if (!t)
		return -1;
	if (PyTuple_GET_SIZE(t) < 1 || PyTuple_GET_SIZE(t) > 3) {
		PyErr_Format(PyExc_ValueError, "%s takes 1 to 3 dimensions",
			     what);
		Py_DECREF(t);
		return -1;
	}
	for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(t); i++) {
		out[i] = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(t, i));
		if (out[i] == (uint64_t)-1 && PyErr_Occurred()) {
			Py_DECREF(t);
			return -1;
		}
	}
	if (n)
		*n = (int)PyTuple_GET_SIZE(t);
	Py_DECREF(t);
	return 0;
}

static PyObject *queue_launch(PyObject *o, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "kernel", "global_size", "local_size",
				  "global_offset", "wait", NULL };
	struct pa_queue *self = (struct pa_queue *)o;
	struct pa_state *st = pa_state_of(o);
	PyObject *kernel, *gs, *ls = Py_None, *go = Py_None, *wait = NULL;
	PyObject *keep;
	struct accel_ndrange range = { .struct_size = sizeof(range) };
	struct accel_fence **w = NULL, *f = NULL;
	struct accel_kernel *k;
	uint32_t nw = 0;
	int dim, n2, r;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|OOO:launch", kwlist,
					 &kernel, &gs, &ls, &go, &wait))
		return NULL;
	if (!PyObject_TypeCheck(kernel, st->Kernel))
		return PyErr_Format(PyExc_TypeError,
				    "kernel must be a Kernel");
	if (dims(gs, "global_size", range.global_size, &dim) < 0 ||
	    dims(ls, "local_size", range.local_size, &n2) < 0 ||
	    dims(go, "global_offset", range.global_offset, NULL) < 0)
		return NULL;
	if (n2 && n2 != dim)
		return PyErr_Format(PyExc_ValueError,
			"local_size has %d dimensions, global_size %d", n2,
			dim);
	range.work_dim = (uint32_t)dim;
	if (pa_wait_list(st, wait, &nw, &w) < 0)
		return NULL;
	/* the objects behind the arguments as they are now */
	keep = Py_BuildValue("(ON)", kernel,
		PyList_GetSlice(((struct pa_kernel *)kernel)->args, 0,
				PY_SSIZE_T_MAX));
	if (!keep) {
		pa_wait_free(nw, w);
		return NULL;
	}
	k = ((struct pa_kernel *)kernel)->kernel;
	Py_BEGIN_ALLOW_THREADS
	r = accel_queue_launch(self->queue, k, &range, nw, w, &f);
	Py_END_ALLOW_THREADS
	pa_wait_free(nw, w);
	if (r < 0) {
		struct accel_launch_check c = { .struct_size = sizeof(c) };

		Py_DECREF(keep);
		/* name the argument the launch lacks */
		if (accel_kernel_check_launch(k, &range, &c) == 0 &&
		    c.reason == ACCEL_LAUNCH_ARG_NOT_SET) {
			char what[128];

			snprintf(what, sizeof(what),
				 "accel_queue_launch (argument %u not set)",
				 c.arg_index);
			return pa_raise(st, r, what);
		}
		return pa_raise(st, r, "accel_queue_launch");
	}
	return submitted(st, o, f, keep);
}

static PyObject *queue_write(PyObject *o, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "buffer", "data", "offset", "wait", NULL };
	struct pa_queue *self = (struct pa_queue *)o;
	struct pa_state *st = pa_state_of(o);
	PyObject *buf, *data, *wait = NULL, *mv, *keep;
	uint64_t offset = 0;
	struct accel_fence **w = NULL, *f = NULL;
	uint32_t nw = 0;
	Py_buffer *v;
	int r;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|O&O:write", kwlist,
					 &buf, &data, pa_u64, &offset, &wait))
		return NULL;
	if (buffer_arg(st, buf, "buffer") < 0)
		return NULL;
	/* the memoryview holds the export until the fence signals */
	mv = PyMemoryView_FromObject(data);
	if (!mv)
		return NULL;
	v = PyMemoryView_GET_BUFFER(mv);
	if (!PyBuffer_IsContiguous(v, 'C')) {
		Py_DECREF(mv);
		PyErr_SetString(PyExc_ValueError, "data must be contiguous");
		return NULL;
	}
	if (pa_wait_list(st, wait, &nw, &w) < 0) {
		Py_DECREF(mv);
		return NULL;
	}
	Py_BEGIN_ALLOW_THREADS
	r = accel_queue_write(self->queue, ((struct pa_buffer *)buf)->buf,
			      offset, (uint64_t)v->len, v->buf, nw, w, &f);
	Py_END_ALLOW_THREADS
	pa_wait_free(nw, w);
	if (r < 0) {
		Py_DECREF(mv);
		return pa_raise(st, r, "accel_queue_write");
	}
	keep = Py_BuildValue("(ON)", buf, mv);
	if (!keep) { /* the command holds host memory: wait for it */
		Py_BEGIN_ALLOW_THREADS
		accel_fence_wait(f, ACCEL_TIMEOUT_INFINITE);
		Py_END_ALLOW_THREADS
		accel_fence_unref(f);
		return NULL;
	}
	return submitted(st, o, f, keep);
}

static PyObject *queue_read(PyObject *o, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "buffer", "out", "offset", "wait", NULL };
	struct pa_queue *self = (struct pa_queue *)o;
	struct pa_state *st = pa_state_of(o);
	PyObject *buf, *out, *wait = NULL, *mv, *keep;
	uint64_t offset = 0;
	struct accel_fence **w = NULL, *f = NULL;
	uint32_t nw = 0;
	Py_buffer *v;
	int r;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|O&O:read", kwlist,
					 &buf, &out, pa_u64, &offset, &wait))
		return NULL;
	if (buffer_arg(st, buf, "buffer") < 0)
		return NULL;
	mv = PyMemoryView_FromObject(out);
	if (!mv)
		return NULL;
	v = PyMemoryView_GET_BUFFER(mv);
	if (v->readonly || !PyBuffer_IsContiguous(v, 'C')) {
		Py_DECREF(mv);
		PyErr_SetString(PyExc_ValueError,
				"out must be writable and contiguous");
		return NULL;
	}
	if (pa_wait_list(st, wait, &nw, &w) < 0) {
		Py_DECREF(mv);
		return NULL;
	}
	Py_BEGIN_ALLOW_THREADS
	r = accel_queue_read(self->queue, ((struct pa_buffer *)buf)->buf,
			     offset, (uint64_t)v->len, v->buf, nw, w, &f);
	Py_END_ALLOW_THREADS
	pa_wait_free(nw, w);
	if (r < 0) {
		Py_DECREF(mv);
		return pa_raise(st, r, "accel_queue_read");
	}
	keep = Py_BuildValue("(ON)", buf, mv);
	if (!keep) {
		Py_BEGIN_ALLOW_THREADS
		accel_fence_wait(f, ACCEL_TIMEOUT_INFINITE);
		Py_END_ALLOW_THREADS
		accel_fence_unref(f);
		return NULL;
	}
	return submitted(st, o, f, keep);
}

static PyObject *queue_copy(PyObject *o, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "src", "dst", "size", "src_offset",
				  "dst_offset", "wait", NULL };
	struct pa_queue *self = (struct pa_queue *)o;
	struct pa_state *st = pa_state_of(o);
	PyObject *src, *dst, *size_obj = Py_None, *wait = NULL, *keep;
	uint64_t so = 0, dof = 0;
	uint64_t size;
	struct accel_fence **w = NULL, *f = NULL;
	uint32_t nw = 0;
	int r;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|OO&O&O:copy", kwlist,
					 &src, &dst, &size_obj, pa_u64, &so,
					 pa_u64, &dof, &wait))
		return NULL;
	if (buffer_arg(st, src, "src") < 0 || buffer_arg(st, dst, "dst") < 0)
		return NULL;
	if (size_obj == Py_None) {
		uint64_t a = accel_buffer_get_size(
			((struct pa_buffer *)src)->buf);
		uint64_t b = accel_buffer_get_size(
			((struct pa_buffer *)dst)->buf);

		a = a > so ? a - so : 0;
		b = b > dof ? b - dof : 0;
		size = a < b ? a : b;
	} else {
		size = PyLong_AsUnsignedLongLong(size_obj);
		if (size == (uint64_t)-1 && PyErr_Occurred())
			return NULL;
	}
	if (pa_wait_list(st, wait, &nw, &w) < 0)
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	r = accel_queue_copy(self->queue, ((struct pa_buffer *)src)->buf, so,
			     ((struct pa_buffer *)dst)->buf, dof, size, nw, w,
			     &f);
	Py_END_ALLOW_THREADS
	pa_wait_free(nw, w);
	if (r < 0)
		return pa_raise(st, r, "accel_queue_copy");
	keep = PyTuple_Pack(2, src, dst);
	return submitted(st, o, f, keep);
}

static PyObject *queue_fill(PyObject *o, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "buffer", "pattern", "offset", "size",
				  "wait", NULL };
	struct pa_queue *self = (struct pa_queue *)o;
	struct pa_state *st = pa_state_of(o);
	PyObject *buf, *size_obj = Py_None, *wait = NULL, *keep;
	Py_buffer pat;
	uint64_t offset = 0;
	uint64_t size;
	struct accel_fence **w = NULL, *f = NULL;
	uint32_t nw = 0;
	int r;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "Oy*|O&OO:fill", kwlist,
					 &buf, &pat, pa_u64, &offset,
					 &size_obj, &wait))
		return NULL;
	if (buffer_arg(st, buf, "buffer") < 0)
		goto fail;
	if (size_obj == Py_None) {
		uint64_t total = accel_buffer_get_size(
			((struct pa_buffer *)buf)->buf);

		size = total > offset ? total - offset : 0;
	} else {
		size = PyLong_AsUnsignedLongLong(size_obj);
		if (size == (uint64_t)-1 && PyErr_Occurred())
			goto fail;
	}
	if (pa_wait_list(st, wait, &nw, &w) < 0)
		goto fail;
	/* the pattern is copied by the call */
	Py_BEGIN_ALLOW_THREADS
	r = accel_queue_fill(self->queue, ((struct pa_buffer *)buf)->buf,
			     offset, size, pat.buf, (size_t)pat.len, nw, w,
			     &f);
	Py_END_ALLOW_THREADS
	pa_wait_free(nw, w);
	PyBuffer_Release(&pat);
	if (r < 0)
		return pa_raise(st, r, "accel_queue_fill");
	keep = PyTuple_Pack(1, buf);
	return submitted(st, o, f, keep);
fail:
	PyBuffer_Release(&pat);
	return NULL;
}

static PyObject *marker_or_barrier(PyObject *o, PyObject *args, PyObject *kw,
				   bool barrier)
{
	static char *kwlist[] = { "wait", NULL };
	struct pa_queue *self = (struct pa_queue *)o;
	struct pa_state *st = pa_state_of(o);
	PyObject *wait = NULL;
	struct accel_fence **w = NULL, *f = NULL;
	uint32_t nw = 0;
	int r;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O", kwlist, &wait))
		return NULL;
	if (pa_wait_list(st, wait, &nw, &w) < 0)
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	r = barrier ? accel_queue_barrier(self->queue, nw, w, &f) :
		      accel_queue_marker(self->queue, nw, w, &f);
	Py_END_ALLOW_THREADS
	pa_wait_free(nw, w);
	if (r < 0)
		return pa_raise(st, r, barrier ? "accel_queue_barrier" :
						 "accel_queue_marker");
	return submitted(st, o, f, NULL);
}

static PyObject *queue_marker(PyObject *o, PyObject *args, PyObject *kw)
{
	return marker_or_barrier(o, args, kw, false);
}

static PyObject *queue_barrier(PyObject *o, PyObject *args, PyObject *kw)
{
	return marker_or_barrier(o, args, kw, true);
}

static PyObject *queue_finish(PyObject *o, PyObject *unused)
{
	struct pa_queue *self = (struct pa_queue *)o;
	int r;

	(void)unused;
	Py_BEGIN_ALLOW_THREADS
	r = accel_queue_finish(self->queue);
	Py_END_ALLOW_THREADS
	if (r < 0)
		return pa_raise(pa_state_of(o), r, "accel_queue_finish");
	Py_RETURN_NONE;
}

static PyObject *queue_flush(PyObject *o, PyObject *unused)
{
	int r = accel_queue_flush(((struct pa_queue *)o)->queue);

	(void)unused;
	if (r < 0)
		return pa_raise(pa_state_of(o), r, "accel_queue_flush");
	Py_RETURN_NONE;
}

static PyObject *queue_device(PyObject *o, void *c)
{
	(void)c;
	return Py_NewRef(((struct pa_queue *)o)->device);
}

static PyObject *queue_flags(PyObject *o, void *c)
{
	(void)c;
	return PyLong_FromUnsignedLong(
		accel_queue_get_flags(((struct pa_queue *)o)->queue));
}

#define KW(fn) (PyCFunction)(void (*)(void))fn, METH_VARARGS | METH_KEYWORDS

static PyMethodDef queue_methods[] = {
	{ "launch", KW(queue_launch),
	  "launch(kernel, global_size, local_size=None, global_offset=None, "
	  "wait=()) -> Fence" },
	{ "write", KW(queue_write),
	  "write(buffer, data, offset=0, wait=()) -> Fence: data (a "
	  "contiguous buffer-protocol object) is kept until the fence" },
	{ "read", KW(queue_read),
	  "read(buffer, out, offset=0, wait=()) -> Fence: into a writable "
	  "buffer-protocol object, len(out) bytes" },
	{ "copy", KW(queue_copy),
	  "copy(src, dst, size=None, src_offset=0, dst_offset=0, wait=()) "
	  "-> Fence" },
	{ "fill", KW(queue_fill),
	  "fill(buffer, pattern, offset=0, size=None, wait=()) -> Fence: "
	  "pattern is bytes of 1, 2, 4, ... 128" },
	{ "marker", KW(queue_marker),
	  "marker(wait=()) -> Fence" },
	{ "barrier", KW(queue_barrier),
	  "barrier(wait=()) -> Fence" },
	{ "finish", queue_finish, METH_NOARGS,
	  "finish(): wait for every command submitted so far" },
	{ "flush", queue_flush, METH_NOARGS, "flush()" },
	{ NULL, NULL, 0, NULL },
};

static PyGetSetDef queue_getset[] = {
	{ "device", queue_device, NULL, "the Device", NULL },
	{ "flags", queue_flags, NULL, "QUEUE_* flags", NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};

static PyType_Slot queue_slots[] = {
	{ Py_tp_new, queue_new },
	{ Py_tp_dealloc, queue_dealloc },
	{ Py_tp_methods, queue_methods },
	{ Py_tp_getset, queue_getset },
	{ Py_tp_doc, "Queue(device, flags=0)\n--\n\na command queue" },
	{ 0, NULL },
};

PyType_Spec pa_queue_spec = {
	.name = "libaccel.Queue",
	.basicsize = sizeof(struct pa_queue),
	.flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE,
	.slots = queue_slots,
};
