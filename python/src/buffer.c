/* SPDX-License-Identifier: MIT */
/*
 * Buffer: device memory, its sub-ranges, host memory wrapped without a
 * copy, dma-buf export, and the buffer protocol (a host map held while a
 * memoryview or array uses it).
 */
#include "pyaccel.h"

#include <errno.h>

static PyObject *buffer_alloc(struct pa_state *st, struct accel_buffer *buf,
			      PyObject *device)
{
	struct pa_buffer *self;

	self = (struct pa_buffer *)st->Buffer->tp_alloc(st->Buffer, 0);
	if (!self) {
		accel_buffer_unref(buf);
		return NULL;
	}
	self->buf = buf;
	self->device = Py_NewRef(device);
	return (PyObject *)self;
}

PyObject *pa_buffer_wrap(struct pa_state *st, struct accel_buffer *buf,
			 PyObject *device)
{
	return buffer_alloc(st, buf, device);
}

static int device_arg(struct pa_state *st, PyObject *obj)
{
	if (PyObject_TypeCheck(obj, st->Device))
		return 0;
	PyErr_Format(PyExc_TypeError, "device must be a Device, not %.100s",
		     Py_TYPE(obj)->tp_name);
	return -1;
}

static PyObject *buffer_new(PyTypeObject *tp, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "device", "size", "flags", NULL };
	struct pa_state *st = pa_state_of_type(tp);
	PyObject *device;
	uint64_t size;
	uint32_t flags = 0;
	struct accel_buffer *buf = NULL;
	int r;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO&|O&:Buffer", kwlist,
					 &device, pa_u64, &size, pa_u32, &flags))
		return NULL;
	if (device_arg(st, device) < 0)
		return NULL;
	r = accel_buffer_new(((struct pa_device *)device)->dev, size, flags,
			     &buf);
	if (r < 0)
		return pa_raise(st, r, "accel_buffer_new");
	return buffer_alloc(st, buf, device);
}

PyObject *pa_buffer_from_host(struct pa_state *st, PyObject *device,
			      PyObject *obj, bool writable)
{
	struct pa_buffer *self;
	Py_buffer view;
	uint32_t flags = 0;
	struct accel_buffer *buf = NULL;
	int r;

	if (PyObject_GetBuffer(obj, &view, PyBUF_C_CONTIGUOUS |
			       (writable ? PyBUF_WRITABLE : 0)) < 0)
		return NULL;
	/* read-only memory: kernels and the host only read it */
	if (view.readonly)
		flags = ACCEL_BUFFER_READ_ONLY | ACCEL_BUFFER_HOST_READ_ONLY;
	if (view.len <= 0) {
		PyBuffer_Release(&view);
		PyErr_SetString(PyExc_ValueError, "cannot wrap empty memory");
		return NULL;
	}
	r = accel_buffer_new_user_ptr(((struct pa_device *)device)->dev,
				      view.buf, (uint64_t)view.len, flags,
				      &buf);
	if (r < 0) {
		PyBuffer_Release(&view);
		return pa_raise(st, r, "accel_buffer_new_user_ptr");
	}
	self = (struct pa_buffer *)buffer_alloc(st, buf, device);
	if (!self) {
		PyBuffer_Release(&view);
		return NULL;
	}
	self->host = view;
	self->has_host = true;
	return (PyObject *)self;
}

static PyObject *buffer_wrap(PyObject *cls, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "device", "obj", "writable", NULL };
	struct pa_state *st = pa_state_of_type((PyTypeObject *)cls);
	PyObject *device, *obj;
	int writable = 1;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|p:wrap", kwlist,
					 &device, &obj, &writable))
		return NULL;
	if (device_arg(st, device) < 0)
		return NULL;
	return pa_buffer_from_host(st, device, obj, writable);
}

static void buffer_dealloc(PyObject *o)
{
	struct pa_buffer *self = (struct pa_buffer *)o;

	/*
	 * Work queued through this package keeps this object alive
	 * (pa_keep_until()), so after the last reference nothing uses the
	 * wrapped memory any more: release it after the buffer.
	 */
	accel_buffer_unref(self->buf);
	if (self->has_host)
		PyBuffer_Release(&self->host);
	if (self->dl)
		pa_dl_release(self->dl, self->dl_versioned);
	Py_XDECREF(self->parent);
	Py_XDECREF(self->device);
	pa_free_self(o);
}

static PyObject *buffer_sub(PyObject *o, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "offset", "size", "flags", NULL };
	struct pa_buffer *self = (struct pa_buffer *)o;
	struct pa_state *st = pa_state_of(o);
	uint64_t offset, size;
	uint32_t flags = 0;
	struct accel_buffer *sub = NULL;
	struct pa_buffer *ret;
	int r;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&|O&:sub", kwlist,
					 pa_u64, &offset, pa_u64, &size,
					 pa_u32, &flags))
		return NULL;
	r = accel_buffer_new_sub(self->buf, offset, size, flags, &sub);
	if (r < 0)
		return pa_raise(st, r, "accel_buffer_new_sub");
	ret = (struct pa_buffer *)buffer_alloc(st, sub, self->device);
	if (ret) /* the parent's memory (a wrapped host object) stays */
		ret->parent = Py_NewRef(o);
	return (PyObject *)ret;
}

static PyObject *buffer_export_dmabuf(PyObject *o, PyObject *unused)
{
	struct pa_buffer *self = (struct pa_buffer *)o;
	int fd = -1, r;

	(void)unused;
	r = accel_buffer_export_dmabuf(self->buf, 0, &fd);
	if (r < 0)
		return pa_raise(pa_state_of(o), r,
				"accel_buffer_export_dmabuf");
	return PyLong_FromLong(fd);
}

static PyObject *buffer_export_sync_file(PyObject *o, PyObject *args,
					 PyObject *kw)
{
	static char *kwlist[] = { "write", NULL };
	struct pa_buffer *self = (struct pa_buffer *)o;
	int write = 0, fd = -1, r;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|p:export_sync_file",
					 kwlist, &write))
		return NULL;
	r = accel_buffer_export_sync_file(self->buf,
					  write ? ACCEL_BUFFER_SYNC_WRITE :
						  ACCEL_BUFFER_SYNC_READ,
					  &fd);
	if (r < 0)
		return pa_raise(pa_state_of(o), r,
				"accel_buffer_export_sync_file");
	return PyLong_FromLong(fd);
}

static PyObject *buffer_import_sync_file(PyObject *o, PyObject *args,
					 PyObject *kw)
{
	static char *kwlist[] = { "fd", "write", NULL };
	struct pa_buffer *self = (struct pa_buffer *)o;
	PyObject *fdobj;
	int write = 1, fd, r;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|p:import_sync_file",
					 kwlist, &fdobj, &write))
		return NULL;
	/* an int or an object with fileno(), borrowed */
	fd = PyObject_AsFileDescriptor(fdobj);
	if (fd < 0)
		return NULL;
	r = accel_buffer_import_sync_file(self->buf, fd,
					  write ? ACCEL_BUFFER_SYNC_WRITE :
						  ACCEL_BUFFER_SYNC_READ);
	if (r < 0)
		return pa_raise(pa_state_of(o), r,
				"accel_buffer_import_sync_file");
	Py_RETURN_NONE;
}

static PyObject *buffer_set_name(PyObject *o, PyObject *arg)
{
	const char *name = PyUnicode_AsUTF8(arg);
	int r;

	if (!name)
		return NULL;
	r = accel_buffer_set_name(((struct pa_buffer *)o)->buf, name);
	if (r < 0)
		return pa_raise(pa_state_of(o), r, "accel_buffer_set_name");
	Py_RETURN_NONE;
}

/* buffer protocol: the whole buffer, mapped while the view lives */
static int buffer_getbuffer(PyObject *o, Py_buffer *view, int flags)
{
	struct pa_buffer *self = (struct pa_buffer *)o;
	uint32_t bflags = accel_buffer_get_flags(self->buf);
	uint32_t mflags = ACCEL_MAP_READ | ACCEL_MAP_WRITE;
	uint64_t size = accel_buffer_get_size(self->buf);
	bool readonly = bflags & ACCEL_BUFFER_HOST_READ_ONLY;
	void *ptr;
	int r;

	if (readonly)
		mflags = ACCEL_MAP_READ;
	else if (bflags & ACCEL_BUFFER_HOST_WRITE_ONLY)
		mflags = ACCEL_MAP_WRITE;
	if (readonly && (flags & PyBUF_WRITABLE)) {
		PyErr_SetString(PyExc_BufferError,
				"buffer is host read-only");
		view->obj = NULL;
		return -1;
	}
	if (size > PY_SSIZE_T_MAX) {
		PyErr_SetString(PyExc_BufferError, "buffer too large");
		view->obj = NULL;
		return -1;
	}
	r = accel_buffer_map(self->buf, 0, size, mflags, &ptr);
	if (r < 0 && r == -EACCES && !(flags & PyBUF_WRITABLE)) {
		/* imported read-only without the HOST_ flag: read it */
		readonly = true;
		r = accel_buffer_map(self->buf, 0, size, ACCEL_MAP_READ, &ptr);
	}
	if (r < 0) {
		pa_raise(pa_state_of(o), r, "accel_buffer_map");
		view->obj = NULL;
		return -1;
	}
	if (PyBuffer_FillInfo(view, o, ptr, (Py_ssize_t)size, readonly,
			      flags) < 0) {
		accel_buffer_unmap(self->buf, ptr);
		return -1;
	}
	return 0;
}

static void buffer_releasebuffer(PyObject *o, Py_buffer *view)
{
	accel_buffer_unmap(((struct pa_buffer *)o)->buf, view->buf);
}

static PyObject *buffer_as_tensor(PyObject *o, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "dtype", "shape", "strides", "offset",
				  NULL };
	struct pa_state *st = pa_state_of(o);
	struct pa_buffer *self = (struct pa_buffer *)o;
	PyObject *dtype, *shape, *strides = Py_None, *fs = NULL, *fst = NULL;
	uint64_t offset = 0;
	struct pa_tensor *t;
	uint64_t itemsize, end, size = accel_buffer_get_size(self->buf);
	bool empty = false;
	Py_ssize_t n;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|OO&:as_tensor", kwlist,
					 &dtype, &shape, &strides, pa_u64,
					 &offset))
		return NULL;
	t = (struct pa_tensor *)st->Tensor->tp_alloc(st->Tensor, 0);
	if (!t)
		return NULL;
	t->buffer = Py_NewRef(o);
	t->offset = offset;
	if (pa_parse_dtype(dtype, &t->code, &t->bits, &t->lanes) < 0)
		goto fail;
	itemsize = (uint64_t)t->bits / 8 * t->lanes;
	if (PyLong_Check(shape))
		fs = PyTuple_Pack(1, shape);
	else
		fs = PySequence_Tuple(shape);
	if (!fs)
		goto fail;
	n = PyTuple_GET_SIZE(fs);
	if (n > 32) {
		PyErr_SetString(PyExc_ValueError, "more than 32 dimensions");
		goto fail;
	}
	t->ndim = (int)n;
	for (Py_ssize_t i = 0; i < n; i++) {
		long long v = PyLong_AsLongLong(PyTuple_GET_ITEM(fs, i));

		if (v == -1 && PyErr_Occurred())
			goto fail;
		if (v < 0) {
			PyErr_SetString(PyExc_ValueError,
					"negative dimension in shape");
			goto fail;
		}
		t->shape[i] = v;
		empty |= v == 0;
	}
	if (strides != Py_None) {
		fst = PySequence_Tuple(strides);
		if (!fst)
			goto fail;
		if (PyTuple_GET_SIZE(fst) != n) {
			PyErr_SetString(PyExc_ValueError,
				"strides must have one entry per dimension");
			goto fail;
		}
		for (Py_ssize_t i = 0; i < n; i++) {
			long long v = PyLong_AsLongLong(
				PyTuple_GET_ITEM(fst, i));

			if (v == -1 && PyErr_Occurred())
				goto fail;
			if (v < 0) {
				PyErr_SetString(PyExc_ValueError,
					"negative strides are not supported");
				goto fail;
			}
			t->strides[i] = v;
		}
	} else {
		/* compact row-major, in elements */
		uint64_t s = 1;

		for (Py_ssize_t i = n - 1; i >= 0; i--) {
			t->strides[i] = (int64_t)s;
			if (t->shape[i] &&
			    __builtin_mul_overflow(s, (uint64_t)t->shape[i],
						   &s))
				goto overflow;
			if (s > INT64_MAX)
				goto overflow;
		}
	}
	/* the last byte reached: offset + itemsize * (1 + sum((d-1)*s)) */
	end = 0;
	if (!empty) {
		uint64_t last = 0, term;

		for (int i = 0; i < t->ndim; i++) {
			if (__builtin_mul_overflow((uint64_t)(t->shape[i] - 1),
						   (uint64_t)t->strides[i],
						   &term) ||
			    __builtin_add_overflow(last, term, &last))
				goto overflow;
		}
		if (__builtin_add_overflow(last, 1, &last) ||
		    __builtin_mul_overflow(last, itemsize, &end))
			goto overflow;
	}
	if (__builtin_add_overflow(end, (uint64_t)offset, &end))
		goto overflow;
	if (end > size) {
		PyErr_Format(PyExc_ValueError,
			     "tensor needs %llu bytes, the buffer has %llu",
			     (unsigned long long)end,
			     (unsigned long long)size);
		goto fail;
	}
	Py_XDECREF(fs);
	Py_XDECREF(fst);
	return (PyObject *)t;
overflow:
	PyErr_SetString(PyExc_OverflowError,
			"shape, strides and dtype overflow 64 bits");
fail:
	Py_XDECREF(fs);
	Py_XDECREF(fst);
	Py_DECREF(t);
	return NULL;
}

static PyObject *buffer_get_size(PyObject *o, void *c)
{
	(void)c;
	return PyLong_FromUnsignedLongLong(
		accel_buffer_get_size(((struct pa_buffer *)o)->buf));
}

static PyObject *buffer_get_flags(PyObject *o, void *c)
{
	(void)c;
	return PyLong_FromUnsignedLong(
		accel_buffer_get_flags(((struct pa_buffer *)o)->buf));
}

static PyObject *buffer_get_offset(PyObject *o, void *c)
{
	(void)c;
	return PyLong_FromUnsignedLongLong(
		accel_buffer_get_offset(((struct pa_buffer *)o)->buf));
}

static PyObject *buffer_get_device(PyObject *o, void *c)
{
	(void)c;
	return Py_NewRef(((struct pa_buffer *)o)->device);
}

static PyObject *buffer_get_parent(PyObject *o, void *c)
{
	struct pa_buffer *self = (struct pa_buffer *)o;

	(void)c;
	return Py_NewRef(self->parent ? self->parent : Py_None);
}

static PyMethodDef buffer_methods[] = {
	{ "wrap", (PyCFunction)(void (*)(void))buffer_wrap,
	  METH_VARARGS | METH_KEYWORDS | METH_CLASS,
	  "wrap(device, obj, writable=True) -> Buffer: host memory of a "
	  "C-contiguous buffer-protocol object, without a copy; obj stays "
	  "alive with the buffer" },
	{ "sub", (PyCFunction)(void (*)(void))buffer_sub,
	  METH_VARARGS | METH_KEYWORDS,
	  "sub(offset, size, flags=0) -> Buffer: a range of this buffer" },
	{ "export_dmabuf", buffer_export_dmabuf, METH_NOARGS,
	  "export_dmabuf() -> int: a new dma-buf fd, owned by the caller" },
	{ "export_sync_file",
	  (PyCFunction)(void (*)(void))buffer_export_sync_file,
	  METH_VARARGS | METH_KEYWORDS,
	  "export_sync_file(write=False) -> int: a sync_file of the dma-buf's "
	  "implicit fences a reader (a writer: write=True) waits for; owned "
	  "by the caller" },
	{ "import_sync_file",
	  (PyCFunction)(void (*)(void))buffer_import_sync_file,
	  METH_VARARGS | METH_KEYWORDS,
	  "import_sync_file(fd, write=True): attach a sync_file's fence to "
	  "the dma-buf as a writer's (write=False: a reader's); the fd is "
	  "borrowed" },
	{ "set_name", buffer_set_name, METH_O,
	  "set_name(name): the dma-buf's name (up to 31 bytes)" },
	{ "as_tensor", (PyCFunction)(void (*)(void))buffer_as_tensor,
	  METH_VARARGS | METH_KEYWORDS,
	  "as_tensor(dtype, shape, strides=None, offset=0) -> Tensor: a typed"
	  " DLPack view (strides in elements, offset in bytes)" },
	{ "__dlpack__", (PyCFunction)(void (*)(void))pa_buffer_dlpack,
	  METH_VARARGS | METH_KEYWORDS,
	  "__dlpack__(stream=None, max_version=None, dl_device=None, "
	  "copy=None): the bytes as a 1-D uint8 DLPack tensor" },
	{ "__dlpack_device__", pa_dlpack_device, METH_NOARGS,
	  "__dlpack_device__() -> (1, 0): kDLCPU" },
	{ NULL, NULL, 0, NULL },
};

static PyGetSetDef buffer_getset[] = {
	{ "size", buffer_get_size, NULL, "bytes", NULL },
	{ "flags", buffer_get_flags, NULL, "BUFFER_* flags", NULL },
	{ "offset", buffer_get_offset, NULL, "offset in the parent", NULL },
	{ "device", buffer_get_device, NULL, "the Device", NULL },
	{ "parent", buffer_get_parent, NULL, "parent Buffer or None", NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};

static PyType_Slot buffer_slots[] = {
	{ Py_tp_new, buffer_new },
	{ Py_tp_dealloc, buffer_dealloc },
	{ Py_tp_methods, buffer_methods },
	{ Py_tp_getset, buffer_getset },
	{ Py_bf_getbuffer, buffer_getbuffer },
	{ Py_bf_releasebuffer, buffer_releasebuffer },
	{ Py_tp_doc, "Buffer(device, size, flags=0)\n--\n\ndevice memory" },
	{ 0, NULL },
};

PyType_Spec pa_buffer_spec = {
	.name = "libaccel.Buffer",
	.basicsize = sizeof(struct pa_buffer),
	.flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE,
	.slots = buffer_slots,
};
