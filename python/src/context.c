/* SPDX-License-Identifier: MIT */
/* Context: the root of every libaccel object, its devices and imports. */
#include "pyaccel.h"

#include <errno.h>

static PyObject *context_new(PyTypeObject *tp, PyObject *args, PyObject *kw)
{
	struct pa_state *st = pa_state_of_type(tp);
	static char *kwlist[] = { NULL };
	struct pa_context *self;
	struct accel_context *ctx = NULL;
	int r;

	if (!PyArg_ParseTupleAndKeywords(args, kw, ":Context", kwlist))
		return NULL;
	r = accel_context_new(0, &ctx);
	if (r < 0)
		return pa_raise(st, r, "accel_context_new");
	self = (struct pa_context *)tp->tp_alloc(tp, 0);
	if (!self) {
		accel_context_unref(ctx);
		return NULL;
	}
	self->ctx = ctx;
	return (PyObject *)self;
}

static void context_dealloc(PyObject *o)
{
	struct pa_context *self = (struct pa_context *)o;

	/* may join libaccel threads that wait for the GIL in a callback */
	Py_BEGIN_ALLOW_THREADS
	accel_context_unref(self->ctx);
	Py_END_ALLOW_THREADS
	pa_free_self(o);
}

static PyObject *context_devices(PyObject *o, void *closure)
{
	struct pa_context *self = (struct pa_context *)o;
	struct pa_state *st = pa_state_of(o);
	struct accel_device **devs;
	PyObject *list;
	int n, m;

	(void)closure;
	n = accel_context_get_devices(self->ctx, NULL, 0);
	if (n < 0)
		return pa_raise(st, n, "accel_context_get_devices");
	devs = PyMem_Calloc((size_t)n + 1, sizeof(*devs));
	if (!devs)
		return PyErr_NoMemory();
	m = accel_context_get_devices(self->ctx, devs, (size_t)n);
	if (m < 0) {
		PyMem_Free(devs);
		return pa_raise(st, m, "accel_context_get_devices");
	}
	if (m > n) /* a device came between the calls: list those we have */
		m = n;
	list = PyList_New(0);
	for (int i = 0; i < m; i++) {
		PyObject *d;

		if (!list) {
			accel_device_unref(devs[i]);
			continue;
		}
		d = pa_device_wrap(st, devs[i], o); /* takes the reference */
		if (!d || PyList_Append(list, d) < 0)
			Py_CLEAR(list);
		Py_XDECREF(d);
	}
	PyMem_Free(devs);
	return list;
}

PyObject *pa_context_cpu_device(struct pa_state *st, PyObject *context)
{
	PyObject *list = context_devices(context, NULL);

	if (!list)
		return NULL;
	for (Py_ssize_t i = 0; i < PyList_GET_SIZE(list); i++) {
		struct pa_device *d = (void *)PyList_GET_ITEM(list, i);
		uint64_t type = 0;

		if (accel_device_query_u64(d->dev, ACCEL_DEVICE_U64_TYPE,
					   &type) == 0 &&
		    type == ACCEL_DEVICE_TYPE_CPU) {
			PyObject *r = Py_NewRef((PyObject *)d);

			Py_DECREF(list);
			return r;
		}
	}
	Py_DECREF(list);
	return pa_raise(st, -ENODEV, "no CPU device");
}

static PyObject *context_cpu_device(PyObject *o, void *closure)
{
	(void)closure;
	return pa_context_cpu_device(pa_state_of(o), o);
}

/* an fd argument: an int or an object with fileno() */
static int fd_arg(PyObject *obj, int *fd)
{
	int v = PyObject_AsFileDescriptor(obj);

	if (v < 0)
		return -1;
	*fd = v;
	return 0;
}

static PyObject *context_import_dmabuf(PyObject *o, PyObject *args,
				       PyObject *kw)
{
	static char *kwlist[] = { "fd", "device", "flags", NULL };
	struct pa_state *st = pa_state_of(o);
	PyObject *fdobj, *device = Py_None, *ret;
	uint32_t flags = 0;
	struct accel_buffer *buf = NULL;
	int fd, r;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|OO&:import_dmabuf",
					 kwlist, &fdobj, &device, pa_u32,
					 &flags))
		return NULL;
	if (fd_arg(fdobj, &fd) < 0)
		return NULL;
	if (device == Py_None)
		device = pa_context_cpu_device(st, o);
	else if (!PyObject_TypeCheck(device, st->Device))
		return PyErr_Format(PyExc_TypeError, "device must be a Device");
	else
		Py_INCREF(device);
	if (!device)
		return NULL;
	/* the fd is borrowed: libaccel keeps a duplicate */
	r = accel_buffer_import_dmabuf(((struct pa_device *)device)->dev, fd,
				       flags, &buf);
	if (r < 0) {
		Py_DECREF(device);
		return pa_raise(st, r, "accel_buffer_import_dmabuf");
	}
	ret = pa_buffer_wrap(st, buf, device);
	Py_DECREF(device);
	return ret;
}

static PyObject *context_import_sync_file(PyObject *o, PyObject *fdobj)
{
	struct pa_context *self = (struct pa_context *)o;
	struct pa_state *st = pa_state_of(o);
	struct accel_fence *f = NULL;
	int fd, r;

	if (fd_arg(fdobj, &fd) < 0)
		return NULL;
	r = accel_fence_import_sync_file(self->ctx, fd, &f);
	if (r < 0)
		return pa_raise(st, r, "accel_fence_import_sync_file");
	return pa_fence_wrap(st, f, o);
}

static PyObject *context_user_fence(PyObject *o, PyObject *unused)
{
	struct pa_context *self = (struct pa_context *)o;
	struct pa_state *st = pa_state_of(o);
	struct accel_fence *f = NULL;
	int r;

	(void)unused;
	r = accel_fence_new_user(self->ctx, &f);
	if (r < 0)
		return pa_raise(st, r, "accel_fence_new_user");
	return pa_fence_wrap(st, f, o);
}

static PyObject *context_get_log_priority(PyObject *o, void *closure)
{
	(void)closure;
	return PyLong_FromLong(accel_context_get_log_priority(
		((struct pa_context *)o)->ctx));
}

static int context_set_log_priority(PyObject *o, PyObject *v, void *closure)
{
	long p;
	int r;

	(void)closure;
	if (!v) {
		PyErr_SetString(PyExc_AttributeError, "cannot delete");
		return -1;
	}
	p = PyLong_AsLong(v);
	if (p == -1 && PyErr_Occurred())
		return -1;
	if (p < 0 || p > 7) {
		PyErr_SetString(PyExc_ValueError, "log priority is 0..7");
		return -1;
	}
	r = accel_context_set_log_priority(((struct pa_context *)o)->ctx,
					   (int)p);
	if (r < 0) {
		pa_raise(pa_state_of(o), r, "accel_context_set_log_priority");
		return -1;
	}
	return 0;
}

static PyMethodDef context_methods[] = {
	{ "import_dmabuf", (PyCFunction)(void (*)(void))context_import_dmabuf,
	  METH_VARARGS | METH_KEYWORDS,
	  "import_dmabuf(fd, device=None, flags=0) -> Buffer: a dma-buf as a "
	  "buffer, without a copy; the fd is borrowed (duplicated)" },
	{ "import_sync_file", context_import_sync_file, METH_O,
	  "import_sync_file(fd) -> Fence: a sync_file as a fence; the fd is "
	  "borrowed (duplicated)" },
	{ "user_fence", context_user_fence, METH_NOARGS,
	  "user_fence() -> Fence: a fence signalled by Fence.signal()" },
	{ NULL, NULL, 0, NULL },
};

static PyGetSetDef context_getset[] = {
	{ "devices", context_devices, NULL, "list of Device", NULL },
	{ "cpu_device", context_cpu_device, NULL,
	  "the CPU reference device", NULL },
	{ "log_priority", context_get_log_priority, context_set_log_priority,
	  "the highest syslog priority logged (3 err .. 7 debug)", NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};

static PyType_Slot context_slots[] = {
	{ Py_tp_new, context_new },
	{ Py_tp_dealloc, context_dealloc },
	{ Py_tp_methods, context_methods },
	{ Py_tp_getset, context_getset },
	{ Py_tp_doc, "Context()\n--\n\na libaccel context, the root of its devices" },
	{ 0, NULL },
};

PyType_Spec pa_context_spec = {
	.name = "libaccel.Context",
	.basicsize = sizeof(struct pa_context),
	.flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE,
	.slots = context_slots,
};
