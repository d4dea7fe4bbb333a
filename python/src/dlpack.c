/* SPDX-License-Identifier: MIT */
/*
 * DLPack both ways.
 *
 * Export (Buffer.__dlpack__, Tensor.__dlpack__): the buffer is mapped when
 * the capsule is made and unmapped by the deleter, so the map (and, for a
 * dma-buf, its DMA_BUF_IOCTL_SYNC bracket) spans exactly the consumer's
 * use; the capsule keeps the Buffer object alive.
 *
 * Import (from_dlpack): a CPU tensor's memory becomes a user-pointer buffer
 * that owns the producer's managed tensor and calls its deleter when the
 * Buffer goes away.
 */
#include "pyaccel.h"
#include "dlpack-abi.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- dtypes ---------------------------------------------------------- */

static const struct {
	const char *name;
	uint8_t code, bits;
} dtypes[] = {
	{ "bool", kDLBool, 8 },      { "b1", kDLBool, 8 },
	{ "int8", kDLInt, 8 },       { "i1", kDLInt, 8 },
	{ "int16", kDLInt, 16 },     { "i2", kDLInt, 16 },
	{ "int32", kDLInt, 32 },     { "i4", kDLInt, 32 },
	{ "int64", kDLInt, 64 },     { "i8", kDLInt, 64 },
	{ "int", kDLInt, 64 },       { "long", kDLInt, 64 },
	{ "uint8", kDLUInt, 8 },     { "u1", kDLUInt, 8 },
	{ "uint16", kDLUInt, 16 },   { "u2", kDLUInt, 16 },
	{ "uint32", kDLUInt, 32 },   { "u4", kDLUInt, 32 },
	{ "uint64", kDLUInt, 64 },   { "u8", kDLUInt, 64 },
	{ "float16", kDLFloat, 16 }, { "f2", kDLFloat, 16 },
	{ "half", kDLFloat, 16 },
	{ "float32", kDLFloat, 32 }, { "f4", kDLFloat, 32 },
	{ "float64", kDLFloat, 64 }, { "f8", kDLFloat, 64 },
	{ "double", kDLFloat, 64 },
	/* Python's float and int are 64-bit, as in NumPy */
	{ "float", kDLFloat, 64 },
	{ "bfloat16", kDLBfloat, 16 },
	{ "complex64", kDLComplex, 64 }, { "c8", kDLComplex, 64 },
	{ "complex128", kDLComplex, 128 }, { "c16", kDLComplex, 128 },
};

static const char *dtype_name(uint8_t code, uint8_t bits)
{
	for (size_t i = 0; i < sizeof(dtypes) / sizeof(dtypes[0]); i++)
		if (dtypes[i].code == code && dtypes[i].bits == bits)
			return dtypes[i].name;
	return "?";
}

/*
 * A dtype: a name ("float32", "<f4", "torch.float32"), a NumPy dtype or
 * scalar type, a torch dtype, Python's float/int/bool.
 */
int pa_parse_dtype(PyObject *obj, uint8_t *code, uint8_t *bits,
		   uint16_t *lanes)
{
	PyObject *s;
	const char *n;

	if (PyUnicode_Check(obj))
		s = Py_NewRef(obj);
	else if (PyType_Check(obj))
		s = PyObject_GetAttrString(obj, "__name__");
	else if (PyObject_HasAttrString(obj, "str") &&
		 PyObject_HasAttrString(obj, "kind")) /* a NumPy dtype */
		s = PyObject_GetAttrString(obj, "str");
	else
		s = PyObject_Str(obj);
	if (!s)
		return -1;
	n = PyUnicode_AsUTF8(s);
	if (!n) {
		Py_DECREF(s);
		return -1;
	}
	if (!strncmp(n, "torch.", 6))
		n += 6;
	if (*n == '<' || *n == '|' || *n == '=')
		n++;
	for (size_t i = 0; i < sizeof(dtypes) / sizeof(dtypes[0]); i++) {
		if (!strcmp(n, dtypes[i].name)) {
			*code = dtypes[i].code;
			*bits = dtypes[i].bits;
			*lanes = 1;
			Py_DECREF(s);
			return 0;
		}
	}
	PyErr_Format(PyExc_TypeError, "unsupported dtype %R", obj);
	Py_DECREF(s);
	return -1;
}

/* ---- export ------------------------------------------------------------- */

struct dl_export {
	DLManagedTensor un;
	DLManagedTensorVersioned v;
	struct pa_guard *guard;
	PyObject *owner;           /* the Buffer */
	struct accel_buffer *buf;
	void *map;
	int64_t shape[32], strides[32];
};

static void export_free(struct dl_export *e)
{
	PyGILState_STATE gs;

	accel_buffer_unmap(e->buf, e->map);
	accel_buffer_unref(e->buf);
	/* the consumer may free the tensor on any thread */
	if (pa_guard_enter(e->guard, &gs)) {
		Py_DECREF(e->owner);
		pa_guard_leave(e->guard, gs);
	}
	pa_guard_unref(e->guard);
	free(e);
}

static void deleter_un(DLManagedTensor *self)
{
	export_free(self->manager_ctx);
}

static void deleter_v(DLManagedTensorVersioned *self)
{
	export_free(self->manager_ctx);
}

/* a capsule never consumed still owns its tensor */
static void capsule_un(PyObject *cap)
{
	DLManagedTensor *t;

	if (!PyCapsule_IsValid(cap, "dltensor"))
		return;
	t = PyCapsule_GetPointer(cap, "dltensor");
	if (t && t->deleter)
		t->deleter(t);
}

static void capsule_v(PyObject *cap)
{
	DLManagedTensorVersioned *t;

	if (!PyCapsule_IsValid(cap, "dltensor_versioned"))
		return;
	t = PyCapsule_GetPointer(cap, "dltensor_versioned");
	if (t && t->deleter)
		t->deleter(t);
}

static PyObject *export(PyObject *bufobj, const struct pa_tensor *t,
			PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "stream", "max_version", "dl_device",
				  "copy", NULL };
	struct pa_buffer *b = (struct pa_buffer *)bufobj;
	struct pa_state *st = pa_state_of(bufobj);
	PyObject *stream = Py_None, *max_version = Py_None;
	PyObject *dl_device = Py_None, *copy = Py_None, *cap;
	uint32_t bflags = accel_buffer_get_flags(b->buf);
	uint32_t mflags = ACCEL_MAP_READ | ACCEL_MAP_WRITE;
	uint64_t size = accel_buffer_get_size(b->buf);
	bool versioned = false, readonly;
	struct dl_export *e;
	DLTensor *dl;
	int r;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|$OOOO:__dlpack__",
					 kwlist, &stream, &max_version,
					 &dl_device, &copy))
		return NULL;
	if (stream != Py_None) {
		PyErr_SetString(PyExc_ValueError,
				"stream must be None for a CPU tensor");
		return NULL;
	}
	if (max_version != Py_None) {
		long major;

		if (!PyTuple_Check(max_version) ||
		    PyTuple_GET_SIZE(max_version) != 2) {
			PyErr_SetString(PyExc_TypeError,
				"max_version must be a (major, minor) tuple");
			return NULL;
		}
		major = PyLong_AsLong(PyTuple_GET_ITEM(max_version, 0));
		if (major == -1 && PyErr_Occurred())
			return NULL;
		versioned = major >= DLPACK_MAJOR_VERSION;
	}
	if (dl_device != Py_None) {
		long type, id;

		if (!PyArg_ParseTuple(dl_device, "ll", &type, &id))
			return NULL;
		if (type != kDLCPU || id != 0) {
			PyErr_SetString(PyExc_BufferError,
				"a libaccel buffer is exported to kDLCPU only");
			return NULL;
		}
	}
	if (copy == Py_True) {
		PyErr_SetString(PyExc_BufferError,
			"libaccel exports without a copy (copy=True refused)");
		return NULL;
	}
	readonly = bflags & (ACCEL_BUFFER_HOST_READ_ONLY);
	if (readonly)
		mflags = ACCEL_MAP_READ;
	else if (bflags & ACCEL_BUFFER_HOST_WRITE_ONLY)
		mflags = ACCEL_MAP_WRITE;
	if (readonly && !versioned) {
		/* the unversioned ABI has no read-only flag */
		PyErr_SetString(PyExc_BufferError,
			"a host read-only buffer needs a versioned DLPack "
			"consumer (max_version >= (1, 0))");
		return NULL;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return PyErr_NoMemory();
	r = accel_buffer_map(b->buf, 0, size, mflags, &e->map);
	if (r < 0) {
		free(e);
		return pa_raise(st, r, "accel_buffer_map");
	}
	e->buf = accel_buffer_ref(b->buf);
	e->owner = Py_NewRef(bufobj);
	e->guard = pa_guard_ref(st->guard);
	dl = versioned ? &e->v.dl_tensor : &e->un.dl_tensor;
	dl->data = e->map;
	dl->device.device_type = kDLCPU;
	dl->device.device_id = 0;
	dl->shape = e->shape;
	dl->strides = e->strides;
	if (t) {
		dl->ndim = t->ndim;
		dl->dtype.code = t->code;
		dl->dtype.bits = t->bits;
		dl->dtype.lanes = t->lanes;
		dl->byte_offset = t->offset;
		memcpy(e->shape, t->shape, sizeof(e->shape));
		memcpy(e->strides, t->strides, sizeof(e->strides));
	} else {
		dl->ndim = 1;
		dl->dtype.code = kDLUInt;
		dl->dtype.bits = 8;
		dl->dtype.lanes = 1;
		dl->byte_offset = 0;
		e->shape[0] = (int64_t)size;
		e->strides[0] = 1;
	}
	if (versioned) {
		e->v.version.major = DLPACK_MAJOR_VERSION;
		e->v.version.minor = DLPACK_MINOR_VERSION;
		e->v.manager_ctx = e;
		e->v.deleter = deleter_v;
		e->v.flags = readonly ? DLPACK_FLAG_BITMASK_READ_ONLY : 0;
		cap = PyCapsule_New(&e->v, "dltensor_versioned", capsule_v);
	} else {
		e->un.manager_ctx = e;
		e->un.deleter = deleter_un;
		cap = PyCapsule_New(&e->un, "dltensor", capsule_un);
	}
	if (!cap)
		export_free(e);
	return cap;
}

PyObject *pa_buffer_dlpack(PyObject *self, PyObject *args, PyObject *kw)
{
	return export(self, NULL, args, kw);
}

PyObject *pa_dlpack_device(PyObject *self, PyObject *unused)
{
	(void)self;
	(void)unused;
	return Py_BuildValue("(ii)", kDLCPU, 0);
}

/* ---- Tensor: a typed view of a buffer ---------------------------------- */

static PyObject *tensor_dlpack(PyObject *o, PyObject *args, PyObject *kw)
{
	struct pa_tensor *t = (struct pa_tensor *)o;

	return export(t->buffer, t, args, kw);
}

static void tensor_dealloc(PyObject *o)
{
	Py_XDECREF(((struct pa_tensor *)o)->buffer);
	pa_free_self(o);
}

static PyObject *int_tuple(const int64_t *v, int n)
{
	PyObject *t = PyTuple_New(n);

	for (int i = 0; t && i < n; i++) {
		PyObject *x = PyLong_FromLongLong(v[i]);

		if (!x) {
			Py_CLEAR(t);
			break;
		}
		PyTuple_SET_ITEM(t, i, x);
	}
	return t;
}

static PyObject *tensor_shape(PyObject *o, void *c)
{
	struct pa_tensor *t = (struct pa_tensor *)o;

	(void)c;
	return int_tuple(t->shape, t->ndim);
}

static PyObject *tensor_strides(PyObject *o, void *c)
{
	struct pa_tensor *t = (struct pa_tensor *)o;

	(void)c;
	return int_tuple(t->strides, t->ndim);
}

static PyObject *tensor_dtype(PyObject *o, void *c)
{
	struct pa_tensor *t = (struct pa_tensor *)o;

	(void)c;
	return PyUnicode_FromString(dtype_name(t->code, t->bits));
}

static PyObject *tensor_offset(PyObject *o, void *c)
{
	(void)c;
	return PyLong_FromUnsignedLongLong(((struct pa_tensor *)o)->offset);
}

static PyObject *tensor_buffer(PyObject *o, void *c)
{
	(void)c;
	return Py_NewRef(((struct pa_tensor *)o)->buffer);
}

/*
 * Buffer protocol of a Tensor: the whole buffer mapped while the view
 * lives (as for Buffer), typed by the tensor's dtype, shape and strides.
 */
struct tensor_view {
	void *map;
	Py_ssize_t shape[32], strides[32];
};

static const char *tensor_format(const struct pa_tensor *t)
{
	static const struct {
		uint8_t code, bits;
		const char *fmt;
	} f[] = {
		{ kDLBool, 8, "?" },   { kDLInt, 8, "b" },
		{ kDLInt, 16, "h" },   { kDLInt, 32, "i" },
		{ kDLInt, 64, "q" },   { kDLUInt, 8, "B" },
		{ kDLUInt, 16, "H" },  { kDLUInt, 32, "I" },
		{ kDLUInt, 64, "Q" },  { kDLFloat, 16, "e" },
		{ kDLFloat, 32, "f" }, { kDLFloat, 64, "d" },
		{ kDLComplex, 64, "Zf" }, { kDLComplex, 128, "Zd" },
	};

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (f[i].code == t->code && f[i].bits == t->bits &&
		    t->lanes == 1)
			return f[i].fmt;
	return NULL;
}

static int tensor_getbuffer(PyObject *o, Py_buffer *view, int flags)
{
	struct pa_tensor *t = (struct pa_tensor *)o;
	struct pa_buffer *b = (struct pa_buffer *)t->buffer;
	uint32_t bflags = accel_buffer_get_flags(b->buf);
	bool readonly = bflags & ACCEL_BUFFER_HOST_READ_ONLY;
	const char *fmt = tensor_format(t);
	Py_ssize_t itemsize = (Py_ssize_t)t->bits / 8 * t->lanes;
	struct tensor_view *tv;
	int r;

	view->obj = NULL;
	if (!fmt) {
		PyErr_Format(PyExc_BufferError,
			     "no buffer-protocol format for %s",
			     dtype_name(t->code, t->bits));
		return -1;
	}
	if (readonly && (flags & PyBUF_WRITABLE)) {
		PyErr_SetString(PyExc_BufferError, "buffer is host read-only");
		return -1;
	}
	if ((flags & PyBUF_STRIDES) != PyBUF_STRIDES) {
		PyErr_SetString(PyExc_BufferError,
				"a Tensor is exported with strides only");
		return -1;
	}
	tv = PyMem_Calloc(1, sizeof(*tv));
	if (!tv) {
		PyErr_NoMemory();
		return -1;
	}
	/* as_tensor() checked that the tensor lies within the buffer */
	r = accel_buffer_map(b->buf, 0, accel_buffer_get_size(b->buf),
			     readonly ? ACCEL_MAP_READ :
					ACCEL_MAP_READ | ACCEL_MAP_WRITE,
			     &tv->map);
	if (r < 0) {
		PyMem_Free(tv);
		pa_raise(pa_state_of(o), r, "accel_buffer_map");
		return -1;
	}
	view->len = itemsize;
	for (int i = 0; i < t->ndim; i++) {
		tv->shape[i] = (Py_ssize_t)t->shape[i];
		tv->strides[i] = (Py_ssize_t)t->strides[i] * itemsize;
		view->len *= tv->shape[i];
	}
	view->buf = (char *)tv->map + t->offset;
	view->obj = Py_NewRef(o);
	view->readonly = readonly;
	view->itemsize = itemsize;
	view->format = (flags & PyBUF_FORMAT) ? (char *)fmt : NULL;
	view->ndim = t->ndim;
	view->shape = tv->shape;
	view->strides = tv->strides;
	view->suboffsets = NULL;
	view->internal = tv;
	return 0;
}

static void tensor_releasebuffer(PyObject *o, Py_buffer *view)
{
	struct tensor_view *tv = view->internal;

	accel_buffer_unmap(((struct pa_buffer *)((struct pa_tensor *)o)
				    ->buffer)->buf, tv->map);
	PyMem_Free(tv);
}

static PyMethodDef tensor_methods[] = {
	{ "__dlpack__", (PyCFunction)(void (*)(void))tensor_dlpack,
	  METH_VARARGS | METH_KEYWORDS,
	  "__dlpack__(stream=None, max_version=None, dl_device=None, "
	  "copy=None) -> capsule" },
	{ "__dlpack_device__", pa_dlpack_device, METH_NOARGS,
	  "__dlpack_device__() -> (1, 0): kDLCPU" },
	{ NULL, NULL, 0, NULL },
};

static PyGetSetDef tensor_getset[] = {
	{ "shape", tensor_shape, NULL, "elements per dimension", NULL },
	{ "strides", tensor_strides, NULL, "strides in elements", NULL },
	{ "dtype", tensor_dtype, NULL, "element type name", NULL },
	{ "offset", tensor_offset, NULL, "bytes into the buffer", NULL },
	{ "buffer", tensor_buffer, NULL, "the Buffer", NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};

static PyType_Slot tensor_slots[] = {
	{ Py_tp_dealloc, tensor_dealloc },
	{ Py_tp_methods, tensor_methods },
	{ Py_tp_getset, tensor_getset },
	{ Py_bf_getbuffer, tensor_getbuffer },
	{ Py_bf_releasebuffer, tensor_releasebuffer },
	{ Py_tp_doc, "A typed view of a Buffer for DLPack consumers "
		     "(Buffer.as_tensor())." },
	{ 0, NULL },
};

PyType_Spec pa_tensor_spec = {
	.name = "libaccel.Tensor",
	.basicsize = sizeof(struct pa_tensor),
	.flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE |
		 Py_TPFLAGS_DISALLOW_INSTANTIATION,
	.slots = tensor_slots,
};

/* ---- import --------------------------------------------------------------- */

void pa_dl_release(void *dl, bool versioned)
{
	if (versioned) {
		DLManagedTensorVersioned *t = dl;

		if (t->deleter)
			t->deleter(t);
	} else {
		DLManagedTensor *t = dl;

		if (t->deleter)
			t->deleter(t);
	}
}

/* the capsule of @p obj: one itself, or what obj.__dlpack__() gives */
static PyObject *get_capsule(PyObject *obj)
{
	PyObject *dev, *fn, *cap, *kw, *empty;

	if (PyCapsule_CheckExact(obj))
		return Py_NewRef(obj);
	dev = PyObject_CallMethod(obj, "__dlpack_device__", NULL);
	if (!dev) {
		if (!PyErr_ExceptionMatches(PyExc_AttributeError))
			return NULL;
		PyErr_Clear();
		return PyErr_Format(PyExc_TypeError,
			"%.100s has no __dlpack__", Py_TYPE(obj)->tp_name);
	} else {
		long type, id;
		int ok = PyArg_ParseTuple(dev, "ll", &type, &id);

		Py_DECREF(dev);
		if (!ok)
			return NULL;
		if (type != kDLCPU)
			return PyErr_Format(PyExc_BufferError,
				"from_dlpack takes CPU tensors (kDLCPU), "
				"not device type %ld", type);
	}
	fn = PyObject_GetAttrString(obj, "__dlpack__");
	if (!fn)
		return NULL;
	/* ask for a versioned capsule; older producers refuse the keyword */
	kw = Py_BuildValue("{s:(ii)}", "max_version", DLPACK_MAJOR_VERSION,
			   DLPACK_MINOR_VERSION);
	empty = PyTuple_New(0);
	cap = kw && empty ? PyObject_Call(fn, empty, kw) : NULL;
	Py_XDECREF(kw);
	if (!cap && PyErr_ExceptionMatches(PyExc_TypeError)) {
		PyErr_Clear();
		cap = PyObject_Call(fn, empty, NULL);
	}
	Py_XDECREF(empty);
	Py_DECREF(fn);
	return cap;
}

PyObject *pa_from_dlpack(PyObject *module, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "obj", "device", NULL };
	struct pa_state *st = PyModule_GetState(module);
	PyObject *obj, *device = Py_None, *cap = NULL, *ret = NULL;
	const char *name;
	void *managed;
	bool versioned;
	DLTensor *t;
	uint64_t flags64 = 0, itemsize, lo = 0, hi = 0, span, bytes;
	uint32_t flags = 0;
	uintptr_t start;
	struct accel_buffer *buf = NULL;
	struct pa_buffer *b;
	int r;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O:from_dlpack", kwlist,
					 &obj, &device))
		return NULL;
	if (device == Py_None)
		device = pa_default_device(st);
	else if (!PyObject_TypeCheck(device, st->Device))
		return PyErr_Format(PyExc_TypeError,
				    "device must be a Device");
	else
		Py_INCREF(device);
	if (!device)
		return NULL;
	cap = get_capsule(obj);
	if (!cap)
		goto out;
	name = PyCapsule_GetName(cap);
	if (name && !strcmp(name, "dltensor_versioned")) {
		DLManagedTensorVersioned *v = PyCapsule_GetPointer(cap, name);

		if (!v)
			goto out;
		if (v->version.major != DLPACK_MAJOR_VERSION) {
			PyErr_Format(PyExc_BufferError,
				     "DLPack version %u.%u is not supported",
				     v->version.major, v->version.minor);
			goto out;
		}
		versioned = true;
		managed = v;
		t = &v->dl_tensor;
		flags64 = v->flags;
	} else if (name && !strcmp(name, "dltensor")) {
		DLManagedTensor *u = PyCapsule_GetPointer(cap, name);

		if (!u)
			goto out;
		versioned = false;
		managed = u;
		t = &u->dl_tensor;
	} else {
		PyErr_SetString(PyExc_ValueError,
				"not an unused DLPack capsule");
		goto out;
	}
	if (t->device.device_type != kDLCPU) {
		PyErr_Format(PyExc_BufferError,
			     "from_dlpack takes CPU tensors, not device "
			     "type %d", (int)t->device.device_type);
		goto out;
	}
	if (t->ndim < 0 || t->dtype.lanes == 0 || t->dtype.bits % 8 ||
	    (t->ndim > 0 && !t->shape)) {
		PyErr_SetString(PyExc_BufferError, "malformed DLTensor");
		goto out;
	}
	itemsize = (uint64_t)t->dtype.bits / 8 * t->dtype.lanes;
	/* the elements' span: lowest and highest element offsets */
	{
		uint64_t compact = 1;

		for (int i = t->ndim - 1; i >= 0; i--) {
			int64_t d = t->shape[i], s;
			uint64_t term;

			if (d < 0) {
				PyErr_SetString(PyExc_BufferError,
						"negative dimension");
				goto out;
			}
			if (d == 0) {
				PyErr_SetString(PyExc_ValueError,
					"an empty tensor has no memory to "
					"wrap");
				goto out;
			}
			s = t->strides ? t->strides[i] : (int64_t)compact;
			if (__builtin_mul_overflow((uint64_t)(d - 1),
						   s < 0 ? -(uint64_t)s :
							   (uint64_t)s,
						   &term) ||
			    __builtin_add_overflow(s < 0 ? lo : hi, term,
						   s < 0 ? &lo : &hi) ||
			    (!t->strides &&
			     __builtin_mul_overflow(compact, (uint64_t)d,
						    &compact)))
				goto overflow;
		}
	}
	if (__builtin_add_overflow(lo, hi, &span) ||
	    __builtin_add_overflow(span, 1, &span) ||
	    __builtin_mul_overflow(span, itemsize, &bytes) ||
	    __builtin_mul_overflow(lo, itemsize, &lo) ||
	    __builtin_add_overflow((uintptr_t)t->data, t->byte_offset,
				   &start) ||
	    start < lo)
		goto overflow;
	start -= lo;
	if (flags64 & DLPACK_FLAG_BITMASK_READ_ONLY)
		flags = ACCEL_BUFFER_READ_ONLY | ACCEL_BUFFER_HOST_READ_ONLY;
	r = accel_buffer_new_user_ptr(((struct pa_device *)device)->dev,
				      (void *)start, bytes, flags, &buf);
	if (r < 0) {
		pa_raise(st, r, "accel_buffer_new_user_ptr");
		goto out;
	}
	b = (struct pa_buffer *)pa_buffer_wrap(st, buf, device);
	if (!b)
		goto out;
	/* consumed: from now on the Buffer calls the deleter */
	if (PyCapsule_SetName(cap, versioned ? "used_dltensor_versioned" :
					       "used_dltensor") < 0) {
		Py_DECREF(b);
		goto out;
	}
	b->dl = managed;
	b->dl_versioned = versioned;
	ret = (PyObject *)b;
	goto out;
overflow:
	PyErr_SetString(PyExc_OverflowError,
			"the tensor's shape and strides overflow 64 bits");
out:
	Py_XDECREF(cap);
	Py_DECREF(device);
	return ret;
}
