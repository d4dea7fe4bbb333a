/* SPDX-License-Identifier: MIT */
/*
 * Fence: completion of work. wait() with a timeout, fileno() for
 * select/selectors/asyncio, callbacks, sync_file export; and the
 * module's sync_file helpers.
 */
#include "pyaccel.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

PyObject *pa_fence_wrap(struct pa_state *st, struct accel_fence *fence,
			PyObject *context)
{
	struct pa_fence *self;

	self = (struct pa_fence *)st->Fence->tp_alloc(st->Fence, 0);
	if (!self) {
		accel_fence_unref(fence);
		return NULL;
	}
	self->fence = fence;
	self->context = Py_XNewRef(context);
	self->poll_fd = -1;
	return (PyObject *)self;
}

static void fence_dealloc(PyObject *o)
{
	struct pa_fence *self = (struct pa_fence *)o;

	if (self->poll_fd >= 0)
		close(self->poll_fd);
	accel_fence_unref(self->fence);
	Py_XDECREF(self->context);
	pa_free_self(o);
}

/* seconds (None: forever) to nanoseconds */
static int timeout_arg(PyObject *t, int64_t *ns)
{
	double s;

	if (!t || t == Py_None) {
		*ns = ACCEL_TIMEOUT_INFINITE;
		return 0;
	}
	s = PyFloat_AsDouble(t);
	if (s == -1.0 && PyErr_Occurred())
		return -1;
	if (isnan(s) || s < 0) {
		PyErr_SetString(PyExc_ValueError,
				"timeout must be >= 0 seconds or None");
		return -1;
	}
	*ns = s >= 9.2e9 ? ACCEL_TIMEOUT_INFINITE : (int64_t)(s * 1e9);
	return 0;
}

static PyObject *fence_wait(PyObject *o, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "timeout", NULL };
	struct pa_fence *self = (struct pa_fence *)o;
	PyObject *t = Py_None;
	int64_t ns;
	int r;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:wait", kwlist, &t) ||
	    timeout_arg(t, &ns) < 0)
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	r = accel_fence_wait(self->fence, ns);
	Py_END_ALLOW_THREADS
	if (r == -ETIME)
		Py_RETURN_FALSE;
	if (r < 0)
		return pa_raise(pa_state_of(o), r, "fence failed");
	Py_RETURN_TRUE;
}

static PyObject *fence_status(PyObject *o, void *c)
{
	(void)c;
	return PyLong_FromLong(
		accel_fence_get_status(((struct pa_fence *)o)->fence));
}

static PyObject *fence_done(PyObject *o, void *c)
{
	(void)c;
	return PyBool_FromLong(
		accel_fence_get_status(((struct pa_fence *)o)->fence) != 0);
}

static PyObject *fence_fileno(PyObject *o, PyObject *unused)
{
	struct pa_fence *self = (struct pa_fence *)o;
	int r;

	(void)unused;
	/* one eventfd per Fence object, closed with it (or close()) */
	if (self->poll_fd < 0) {
		r = accel_fence_export_poll_fd(self->fence, &self->poll_fd);
		if (r < 0) {
			self->poll_fd = -1;
			return pa_raise(pa_state_of(o), r,
					"accel_fence_export_poll_fd");
		}
	}
	return PyLong_FromLong(self->poll_fd);
}

static PyObject *fence_close(PyObject *o, PyObject *unused)
{
	struct pa_fence *self = (struct pa_fence *)o;

	(void)unused;
	if (self->poll_fd >= 0) {
		close(self->poll_fd);
		self->poll_fd = -1;
	}
	Py_RETURN_NONE;
}

struct cb {
	struct pa_guard *guard;
	PyObject *fn, *fence;
};

static void fence_cb(struct accel_fence *f, int status, void *data)
{
	struct cb *c = data;
	PyGILState_STATE gs;

	(void)f;
	if (pa_guard_enter(c->guard, &gs)) {
		PyObject *r = PyObject_CallFunction(c->fn, "Oi", c->fence,
						    status);

		if (!r)
			PyErr_WriteUnraisable(c->fn);
		Py_XDECREF(r);
		Py_DECREF(c->fn);
		Py_DECREF(c->fence);
		pa_guard_leave(c->guard, gs);
	}
	pa_guard_unref(c->guard);
	free(c);
}

static PyObject *fence_add_done_callback(PyObject *o, PyObject *fn)
{
	struct pa_fence *self = (struct pa_fence *)o;
	struct cb *c;
	int r;

	if (!PyCallable_Check(fn))
		return PyErr_Format(PyExc_TypeError, "callback not callable");
	c = malloc(sizeof(*c));
	if (!c)
		return PyErr_NoMemory();
	c->guard = pa_guard_ref(pa_state_of(o)->guard);
	c->fn = Py_NewRef(fn);
	c->fence = Py_NewRef(o);
	r = accel_fence_add_callback(self->fence, fence_cb, c);
	if (r < 0) {
		Py_DECREF(c->fn);
		Py_DECREF(c->fence);
		pa_guard_unref(c->guard);
		free(c);
		return pa_raise(pa_state_of(o), r, "accel_fence_add_callback");
	}
	Py_RETURN_NONE;
}

static PyObject *fence_signal(PyObject *o, PyObject *args)
{
	int status = 0, r;

	if (!PyArg_ParseTuple(args, "|i:signal", &status))
		return NULL;
	/* callbacks run here, taking the GIL again: let them */
	r = accel_fence_signal(((struct pa_fence *)o)->fence, status);
	if (r < 0)
		return pa_raise(pa_state_of(o), r, "accel_fence_signal");
	Py_RETURN_NONE;
}

static PyObject *fence_export_sync_file(PyObject *o, PyObject *unused)
{
	int fd = -1, r;

	(void)unused;
	r = accel_fence_export_sync_file(((struct pa_fence *)o)->fence, &fd);
	if (r < 0)
		return pa_raise(pa_state_of(o), r,
				"accel_fence_export_sync_file");
	return PyLong_FromLong(fd);
}

static PyObject *fence_get_time(PyObject *o, PyObject *arg)
{
	long which = PyLong_AsLong(arg);
	uint64_t ns = 0;
	int r;

	if (which == -1 && PyErr_Occurred())
		return NULL;
	if (which < 0 || which > ACCEL_FENCE_TIME_ENDED) {
		PyErr_SetString(PyExc_ValueError, "which is FENCE_TIME_*");
		return NULL;
	}
	r = accel_fence_get_time(((struct pa_fence *)o)->fence,
				 (enum accel_fence_time)which, &ns);
	if (r < 0)
		return pa_raise(pa_state_of(o), r, "accel_fence_get_time");
	return PyLong_FromUnsignedLongLong(ns);
}

static PyObject *fence_context(PyObject *o, void *c)
{
	struct pa_fence *self = (struct pa_fence *)o;

	(void)c;
	return Py_NewRef(self->context ? self->context : Py_None);
}

static PyMethodDef fence_methods[] = {
	{ "wait", (PyCFunction)(void (*)(void))fence_wait,
	  METH_VARARGS | METH_KEYWORDS,
	  "wait(timeout=None) -> bool: True once signalled, False on "
	  "timeout (seconds); raises Error if the work failed" },
	{ "fileno", fence_fileno, METH_NOARGS,
	  "fileno() -> int: readable once the fence signals (owned by the "
	  "Fence: do not read or close it)" },
	{ "close", fence_close, METH_NOARGS, "close(): close fileno()'s fd" },
	{ "add_done_callback", fence_add_done_callback, METH_O,
	  "add_done_callback(fn): fn(fence, status) once signalled, on the "
	  "signalling thread (now, if already signalled)" },
	{ "signal", fence_signal, METH_VARARGS,
	  "signal(status=0): signal a user fence (status 0 or -errno)" },
	{ "export_sync_file", fence_export_sync_file, METH_NOARGS,
	  "export_sync_file() -> int: a new sync_file fd, owned by the "
	  "caller" },
	{ "get_time", fence_get_time, METH_O,
	  "get_time(which) -> int: FENCE_TIME_* in CLOCK_MONOTONIC ns" },
	{ NULL, NULL, 0, NULL },
};

static PyGetSetDef fence_getset[] = {
	{ "status", fence_status, NULL,
	  "1 signalled, 0 pending, -errno failed", NULL },
	{ "done", fence_done, NULL, "signalled (either way)", NULL },
	{ "context", fence_context, NULL, "the Context", NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};

static PyType_Slot fence_slots[] = {
	{ Py_tp_dealloc, fence_dealloc },
	{ Py_tp_methods, fence_methods },
	{ Py_tp_getset, fence_getset },
	{ Py_tp_doc, "Completion of submitted work (or a user fence)." },
	{ 0, NULL },
};

PyType_Spec pa_fence_spec = {
	.name = "libaccel.Fence",
	.basicsize = sizeof(struct pa_fence),
	.flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE |
		 Py_TPFLAGS_DISALLOW_INSTANTIATION,
	.slots = fence_slots,
};

/* ---- sync_file helpers (module functions) ------------------------------ */

static PyObject *sf_raise(PyObject *m, int r, const char *what)
{
	return pa_raise(PyModule_GetState(m), r, what);
}

static PyObject *sync_file_wait(PyObject *m, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "fd", "timeout", NULL };
	PyObject *fdobj, *t = Py_None;
	int64_t ns;
	int fd, r;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O:sync_file_wait",
					 kwlist, &fdobj, &t) ||
	    timeout_arg(t, &ns) < 0)
		return NULL;
	fd = PyObject_AsFileDescriptor(fdobj);
	if (fd < 0)
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	r = accel_sync_file_wait(fd, ns);
	Py_END_ALLOW_THREADS
	if (r == -ETIME)
		Py_RETURN_FALSE;
	if (r < 0)
		return sf_raise(m, r, "accel_sync_file_wait");
	Py_RETURN_TRUE;
}

static PyObject *sync_file_merge(PyObject *m, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "fd1", "fd2", "name", NULL };
	PyObject *a, *b;
	const char *name = NULL;
	int fa, fb, out = -1, r;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|z:sync_file_merge",
					 kwlist, &a, &b, &name))
		return NULL;
	fa = PyObject_AsFileDescriptor(a);
	fb = fa < 0 ? -1 : PyObject_AsFileDescriptor(b);
	if (fb < 0)
		return NULL;
	r = accel_sync_file_merge(name, fa, fb, &out);
	if (r < 0)
		return sf_raise(m, r, "accel_sync_file_merge");
	return PyLong_FromLong(out);
}

static PyObject *sync_file_info(PyObject *m, PyObject *fdobj)
{
	struct accel_sync_file_info info;
	int fd = PyObject_AsFileDescriptor(fdobj), r;

	if (fd < 0)
		return NULL;
	r = accel_sync_file_get_info(fd, &info, NULL, 0);
	if (r < 0)
		return sf_raise(m, r, "accel_sync_file_get_info");
	return Py_BuildValue("{s:s,s:i,s:I}", "name", info.name, "status",
			     (int)info.status, "n_fences", info.n_fences);
}

static PyObject *sync_file_set_deadline(PyObject *m, PyObject *args)
{
	PyObject *fdobj;
	uint64_t deadline;
	int fd, r;

	if (!PyArg_ParseTuple(args, "OO&:sync_file_set_deadline", &fdobj,
			      pa_u64, &deadline))
		return NULL;
	fd = PyObject_AsFileDescriptor(fdobj);
	if (fd < 0)
		return NULL;
	r = accel_sync_file_set_deadline(fd, deadline);
	if (r < 0)
		return sf_raise(m, r, "accel_sync_file_set_deadline");
	Py_RETURN_NONE;
}

PyMethodDef pa_sync_file_methods[] = {
	{ "sync_file_wait", (PyCFunction)(void (*)(void))sync_file_wait,
	  METH_VARARGS | METH_KEYWORDS,
	  "sync_file_wait(fd, timeout=None) -> bool: wait for any sync_file "
	  "(borrowed)" },
	{ "sync_file_merge", (PyCFunction)(void (*)(void))sync_file_merge,
	  METH_VARARGS | METH_KEYWORDS,
	  "sync_file_merge(fd1, fd2, name=None) -> int: a new sync_file "
	  "signalled when both are, owned by the caller" },
	{ "sync_file_info", sync_file_info, METH_O,
	  "sync_file_info(fd) -> dict: name, status, n_fences" },
	{ "sync_file_set_deadline", sync_file_set_deadline, METH_VARARGS,
	  "sync_file_set_deadline(fd, deadline_ns): when the result is "
	  "needed (CLOCK_MONOTONIC ns; a hint, EOPNOTSUPP before Linux 6.5)" },
	{ NULL, NULL, 0, NULL },
};
