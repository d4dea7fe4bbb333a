/* SPDX-License-Identifier: MIT */
/*
 * Program (OpenCL C source, binaries, built-in kernels) and Kernel, whose
 * arguments are set from Python values typed by the kernel's own
 * argument descriptions.
 */
#include "pyaccel.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int device_arg(struct pa_state *st, PyObject *obj)
{
	if (PyObject_TypeCheck(obj, st->Device))
		return 0;
	PyErr_Format(PyExc_TypeError, "device must be a Device, not %.100s",
		     Py_TYPE(obj)->tp_name);
	return -1;
}

static PyObject *program_alloc(struct pa_state *st, PyTypeObject *tp,
			       struct accel_program *prog, PyObject *device,
			       const char *log)
{
	struct pa_program *self = (struct pa_program *)tp->tp_alloc(tp, 0);

	(void)st;
	if (!self) {
		accel_program_unref(prog);
		return NULL;
	}
	self->prog = prog;
	self->device = Py_NewRef(device);
	if (log)
		self->build_log = PyUnicode_DecodeUTF8(log, strlen(log),
						       "replace");
	else
		self->build_log = Py_NewRef(Py_None);
	if (!self->build_log) {
		Py_DECREF(self);
		return NULL;
	}
	return (PyObject *)self;
}

/* Program(device, source, options=None): build OpenCL C */
static PyObject *program_new(PyTypeObject *tp, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "device", "source", "options", NULL };
	struct pa_state *st = pa_state_of_type(tp);
	PyObject *device, *ret;
	const char *src, *options = NULL;
	Py_ssize_t len;
	char *log = NULL;
	struct accel_program *prog = NULL;
	struct accel_device *dev;
	int r;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "Os#|z:Program", kwlist,
					 &device, &src, &len, &options))
		return NULL;
	if (device_arg(st, device) < 0)
		return NULL;
	if (len == 0) {
		PyErr_SetString(PyExc_ValueError, "empty source");
		return NULL;
	}
	dev = ((struct pa_device *)device)->dev;
	/* compiling takes long: other threads run meanwhile */
	Py_BEGIN_ALLOW_THREADS
	r = accel_program_new_source(dev, src, (size_t)len, options, &log,
				     &prog);
	Py_END_ALLOW_THREADS
	if (r < 0) {
		pa_raise_log(st, r, "accel_program_new_source", log);
		free(log);
		return NULL;
	}
	ret = program_alloc(st, tp, prog, device, log);
	free(log);
	return ret;
}

static PyObject *program_from_binary(PyObject *cls, PyObject *args)
{
	struct pa_state *st = pa_state_of_type((PyTypeObject *)cls);
	PyObject *device;
	Py_buffer bin;
	struct accel_program *prog = NULL;
	struct accel_device *dev;
	int r;

	if (!PyArg_ParseTuple(args, "Oy*:from_binary", &device, &bin))
		return NULL;
	if (device_arg(st, device) < 0) {
		PyBuffer_Release(&bin);
		return NULL;
	}
	dev = ((struct pa_device *)device)->dev;
	Py_BEGIN_ALLOW_THREADS
	r = accel_program_new_binary(dev, bin.buf, (size_t)bin.len, &prog);
	Py_END_ALLOW_THREADS
	PyBuffer_Release(&bin);
	if (r < 0)
		return pa_raise(st, r, "accel_program_new_binary");
	return program_alloc(st, (PyTypeObject *)cls, prog, device, NULL);
}

static PyObject *program_from_built_in(PyObject *cls, PyObject *args)
{
	struct pa_state *st = pa_state_of_type((PyTypeObject *)cls);
	PyObject *device, *names;
	const char *s;
	struct accel_program *prog = NULL;
	int r;

	if (!PyArg_ParseTuple(args, "OO:from_built_in", &device, &names))
		return NULL;
	if (device_arg(st, device) < 0)
		return NULL;
	if (PyUnicode_Check(names)) {
		Py_INCREF(names);
	} else {
		/* a sequence of names */
		PyObject *sep = PyUnicode_FromString(";");

		names = sep ? PyUnicode_Join(sep, names) : NULL;
		Py_XDECREF(sep);
		if (!names)
			return NULL;
	}
	s = PyUnicode_AsUTF8(names);
	r = s ? accel_program_new_built_in(((struct pa_device *)device)->dev,
					   s, &prog) : 0;
	Py_DECREF(names);
	if (!s)
		return NULL;
	if (r < 0)
		return pa_raise(st, r, "accel_program_new_built_in");
	return program_alloc(st, (PyTypeObject *)cls, prog, device, NULL);
}

static void program_dealloc(PyObject *o)
{
	struct pa_program *self = (struct pa_program *)o;

	accel_program_unref(self->prog);
	Py_XDECREF(self->device);
	Py_XDECREF(self->build_log);
	pa_free_self(o);
}

static PyObject *program_kernel_names(PyObject *o, void *c)
{
	struct pa_program *self = (struct pa_program *)o;
	int n = accel_program_get_kernel_count(self->prog);
	PyObject *list;

	(void)c;
	if (n < 0)
		return pa_raise(pa_state_of(o), n,
				"accel_program_get_kernel_count");
	list = PyList_New(n);
	for (int i = 0; list && i < n; i++) {
		const char *name = NULL;
		PyObject *s;

		if (accel_program_get_kernel_name(self->prog, (uint32_t)i,
						  &name) < 0)
			name = "";
		s = PyUnicode_FromString(name);
		if (!s) {
			Py_CLEAR(list);
			break;
		}
		PyList_SET_ITEM(list, i, s);
	}
	return list;
}

static PyObject *program_binary(PyObject *o, void *c)
{
	const void *data;
	size_t size;
	int r = accel_program_get_binary(((struct pa_program *)o)->prog,
					 &data, &size);

	(void)c;
	if (r == -ENODATA)
		Py_RETURN_NONE;
	if (r < 0)
		return pa_raise(pa_state_of(o), r, "accel_program_get_binary");
	return PyBytes_FromStringAndSize(data, (Py_ssize_t)size);
}

static PyObject *program_build_log(PyObject *o, void *c)
{
	(void)c;
	return Py_NewRef(((struct pa_program *)o)->build_log);
}

static PyObject *program_device(PyObject *o, void *c)
{
	(void)c;
	return Py_NewRef(((struct pa_program *)o)->device);
}

static PyObject *program_kernel(PyObject *o, PyObject *name)
{
	struct pa_state *st = pa_state_of(o);

	return PyObject_CallFunctionObjArgs((PyObject *)st->Kernel, o, name,
					    NULL);
}

static PyMethodDef program_methods[] = {
	{ "from_binary", program_from_binary, METH_VARARGS | METH_CLASS,
	  "from_binary(device, data) -> Program: from Program.binary" },
	{ "from_built_in", program_from_built_in, METH_VARARGS | METH_CLASS,
	  "from_built_in(device, names) -> Program: built-in kernels "
	  "(a ';'-separated str or a sequence of names)" },
	{ "kernel", program_kernel, METH_O,
	  "kernel(name) -> Kernel" },
	{ NULL, NULL, 0, NULL },
};

static PyGetSetDef program_getset[] = {
	{ "kernel_names", program_kernel_names, NULL, "list of str", NULL },
	{ "binary", program_binary, NULL,
	  "the program binary (bytes), None for built-in kernels", NULL },
	{ "build_log", program_build_log, NULL, "str or None", NULL },
	{ "device", program_device, NULL, "the Device", NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};

static PyType_Slot program_slots[] = {
	{ Py_tp_new, program_new },
	{ Py_tp_dealloc, program_dealloc },
	{ Py_tp_methods, program_methods },
	{ Py_tp_getset, program_getset },
	{ Py_tp_doc, "Program(device, source, options=None)\n--\n\n"
		     "OpenCL C built for a device" },
	{ 0, NULL },
};

PyType_Spec pa_program_spec = {
	.name = "libaccel.Program",
	.basicsize = sizeof(struct pa_program),
	.flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE,
	.slots = program_slots,
};

/* ---- Kernel ------------------------------------------------------------ */

static PyObject *kernel_new(PyTypeObject *tp, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "program", "name", NULL };
	struct pa_state *st = pa_state_of_type(tp);
	PyObject *program;
	const char *name;
	struct accel_kernel *k = NULL;
	struct pa_kernel *self;
	int r, n;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "Os:Kernel", kwlist,
					 &program, &name))
		return NULL;
	if (!PyObject_TypeCheck(program, st->Program))
		return PyErr_Format(PyExc_TypeError,
				    "program must be a Program");
	r = accel_kernel_new(((struct pa_program *)program)->prog, name, &k);
	if (r < 0)
		return pa_raise(st, r, "accel_kernel_new");
	self = (struct pa_kernel *)tp->tp_alloc(tp, 0);
	if (!self) {
		accel_kernel_unref(k);
		return NULL;
	}
	self->kernel = k;
	self->program = Py_NewRef(program);
	n = accel_kernel_get_arg_count(k);
	self->args = PyList_New(n > 0 ? n : 0);
	if (!self->args) {
		Py_DECREF(self);
		return NULL;
	}
	for (int i = 0; i < n; i++)
		PyList_SET_ITEM(self->args, i, Py_NewRef(Py_None));
	return (PyObject *)self;
}

static void kernel_dealloc(PyObject *o)
{
	struct pa_kernel *self = (struct pa_kernel *)o;

	accel_kernel_unref(self->kernel);
	Py_XDECREF(self->program);
	Py_XDECREF(self->args);
	pa_free_self(o);
}

static bool starts(const char *s, const char *p)
{
	return s && !strncmp(s, p, strlen(p));
}

/* a Python number into @p size bytes of the argument's C type */
static int value_from_number(const struct accel_kernel_arg_desc *d,
			     PyObject *v, unsigned char *out)
{
	const char *tn = d->type_name;
	bool is_float = starts(tn, "float") || starts(tn, "double") ||
			starts(tn, "half");

	if (is_float || (!tn && PyFloat_Check(v))) {
		double x = PyFloat_AsDouble(v);

		if (x == -1.0 && PyErr_Occurred())
			return -1;
		if (d->size == 4) {
			float f = (float)x;

			memcpy(out, &f, 4);
		} else if (d->size == 8) {
			memcpy(out, &x, 8);
		} else if (d->size == 2) {
			if (PyFloat_Pack2(x, (char *)out, 1) < 0)
				return -1;
		} else {
			PyErr_Format(PyExc_TypeError,
				     "a number for a %u-byte %s argument: "
				     "pass bytes", d->size, tn ? tn : "");
			return -1;
		}
		return 0;
	}
	if (d->size > 8 || (d->size & (d->size - 1))) {
		PyErr_Format(PyExc_TypeError,
			     "a number for a %u-byte %s argument: pass bytes",
			     d->size, tn ? tn : "");
		return -1;
	}
	{
		PyObject *idx = PyNumber_Index(v);
		int overflow = 0;
		long long s;
		unsigned long long u;
		bool is_unsigned = starts(tn, "u") || starts(tn, "size_t") ||
				   starts(tn, "bool");
		unsigned bits = d->size * 8;

		if (!idx)
			return -1;
		s = PyLong_AsLongLongAndOverflow(idx, &overflow);
		if (s == -1 && PyErr_Occurred()) {
			Py_DECREF(idx);
			return -1;
		}
		if (overflow > 0) { /* above LLONG_MAX: only u64 fits */
			u = PyLong_AsUnsignedLongLong(idx);
			Py_DECREF(idx);
			if (u == (unsigned long long)-1 && PyErr_Occurred())
				return -1;
			if (bits < 64 || (tn && !is_unsigned))
				goto range;
		} else {
			Py_DECREF(idx);
			if (overflow < 0)
				goto range;
			u = (unsigned long long)s;
			if (bits < 64) {
				long long smin = -(1LL << (bits - 1));
				long long umax = (1LL << bits) - 1;

				/* no type name: signed or unsigned fits */
				if (s < (is_unsigned ? 0 : smin) ||
				    s > (tn && !is_unsigned ?
						 (1LL << (bits - 1)) - 1 :
						 umax))
					goto range;
			} else if (s < 0 && is_unsigned) {
				goto range;
			}
		}
		/* little-endian host: the low bytes */
		memcpy(out, &u, d->size);
		return 0;
range:
		PyErr_Format(PyExc_ValueError,
			     "value out of range of the %u-byte %s argument",
			     d->size, tn ? tn : "integer");
		return -1;
	}
}

static int set_arg(struct pa_kernel *self, uint32_t index, PyObject *v)
{
	struct pa_state *st = pa_state_of((PyObject *)self);
	struct accel_kernel_arg_desc d = { .struct_size = sizeof(d) };
	PyObject *keep = Py_None;
	int r;

	r = accel_kernel_get_arg_desc(self->kernel, index, &d);
	if (r == -ERANGE) {
		PyErr_Format(PyExc_IndexError,
			     "kernel %s has no argument %u",
			     accel_kernel_get_name(self->kernel), index);
		return -1;
	}
	if (r < 0) {
		pa_raise(st, r, "accel_kernel_get_arg_desc");
		return -1;
	}
	switch (d.kind) {
	case ACCEL_KERNEL_ARG_BUFFER: {
		struct accel_buffer *buf = NULL;
		PyObject *owned = NULL;

		if (PyObject_TypeCheck(v, st->Tensor)) {
			struct pa_tensor *t = (struct pa_tensor *)v;

			if (t->offset) {
				PyErr_SetString(PyExc_ValueError,
					"a Tensor with an offset: pass "
					"Buffer.sub() instead");
				return -1;
			}
			v = t->buffer;
		}
		if (PyObject_TypeCheck(v, st->Buffer)) {
			buf = ((struct pa_buffer *)v)->buf;
			keep = v;
		} else if (v != Py_None) {
			/* host memory (NumPy arrays, bytearray): no copy */
			bool writable =
				!(d.type_qualifiers &
				  ACCEL_KERNEL_ARG_TYPE_CONST) &&
				d.address_space != ACCEL_KERNEL_ARG_ADDR_CONSTANT;
			PyObject *prog = self->program;

			if (!PyObject_CheckBuffer(v)) {
				PyErr_Format(PyExc_TypeError,
					"argument %u is a buffer: pass a "
					"Buffer, None or a buffer-protocol "
					"object, not %.100s", index,
					Py_TYPE(v)->tp_name);
				return -1;
			}
			owned = pa_buffer_from_host(st,
				((struct pa_program *)prog)->device, v,
				writable);
			if (!owned)
				return -1;
			buf = ((struct pa_buffer *)owned)->buf;
			keep = owned;
		}
		r = accel_kernel_set_arg_buffer(self->kernel, index, buf);
		if (r < 0) {
			Py_XDECREF(owned);
			pa_raise(st, r, "accel_kernel_set_arg_buffer");
			return -1;
		}
		/* the list holds it: launches keep the list's objects */
		Py_INCREF(keep);
		Py_XDECREF(owned);
		break;
	}
	case ACCEL_KERNEL_ARG_VALUE: {
		unsigned char bytes[256];
		Py_buffer view;
		bool done = false;

		if (d.size > sizeof(bytes)) {
			PyErr_SetString(PyExc_ValueError,
					"argument larger than 256 bytes");
			return -1;
		}
		if (PyObject_CheckBuffer(v)) {
			Py_ssize_t len;

			if (PyObject_GetBuffer(v, &view,
					       PyBUF_C_CONTIGUOUS) < 0)
				return -1;
			len = view.len;
			if (len == (Py_ssize_t)d.size) {
				memcpy(bytes, view.buf, d.size);
				done = true;
			}
			PyBuffer_Release(&view);
			if (!done && !PyNumber_Check(v)) {
				PyErr_Format(PyExc_ValueError,
					"argument %u takes %u bytes, not %zd",
					index, d.size, len);
				return -1;
			}
		}
		if (!done) {
			if (!PyNumber_Check(v)) {
				PyErr_Format(PyExc_TypeError,
					"argument %u (%s) takes a number or "
					"%u bytes, not %.100s", index,
					d.type_name ? d.type_name : "value",
					d.size, Py_TYPE(v)->tp_name);
				return -1;
			}
			if (value_from_number(&d, v, bytes) < 0)
				return -1;
		}
		r = accel_kernel_set_arg_value(self->kernel, index, d.size,
					       bytes);
		if (r < 0) {
			pa_raise(st, r, "accel_kernel_set_arg_value");
			return -1;
		}
		Py_INCREF(keep);
		break;
	}
	case ACCEL_KERNEL_ARG_LOCAL: {
		Py_ssize_t size = PyNumber_AsSsize_t(v, PyExc_OverflowError);

		if (size == -1 && PyErr_Occurred())
			return -1;
		if (size <= 0) {
			PyErr_SetString(PyExc_ValueError,
					"a __local argument takes its size "
					"in bytes, > 0");
			return -1;
		}
		r = accel_kernel_set_arg_local(self->kernel, index,
					       (size_t)size);
		if (r < 0) {
			pa_raise(st, r, "accel_kernel_set_arg_local");
			return -1;
		}
		Py_INCREF(keep);
		break;
	}
	case ACCEL_KERNEL_ARG_IMAGE: {
		struct accel_buffer *buf;
		const struct accel_image_layout *layout;

		if (pa_image_arg(st, v, &buf, &layout) < 0)
			return -1;
		r = accel_kernel_set_arg_image(self->kernel, index, buf,
					       layout);
		if (r < 0) {
			pa_raise(st, r, "accel_kernel_set_arg_image");
			return -1;
		}
		/* the Image or the tuple: it holds the Buffer */
		keep = v;
		Py_INCREF(keep);
		break;
	}
	case ACCEL_KERNEL_ARG_SAMPLER: {
		uint32_t bits;

		if (pa_sampler_arg(st, v, &bits) < 0)
			return -1;
		r = accel_kernel_set_arg_sampler(self->kernel, index, bits);
		if (r < 0) {
			pa_raise(st, r, "accel_kernel_set_arg_sampler");
			return -1;
		}
		Py_INCREF(keep);
		break;
	}
	default:
		PyErr_Format(PyExc_TypeError, "argument %u: unknown kind %u",
			     index, d.kind);
		return -1;
	}
	/* steals the reference taken above */
	return PyList_SetItem(self->args, index, keep);
}

static PyObject *kernel_set_arg(PyObject *o, PyObject *args)
{
	uint32_t index;
	PyObject *v;

	if (!PyArg_ParseTuple(args, "O&O:set_arg", pa_u32, &index, &v))
		return NULL;
	if (set_arg((struct pa_kernel *)o, index, v) < 0)
		return NULL;
	Py_RETURN_NONE;
}

static PyObject *kernel_set_args(PyObject *o, PyObject *args)
{
	struct pa_kernel *self = (struct pa_kernel *)o;

	if (PyTuple_GET_SIZE(args) != PyList_GET_SIZE(self->args))
		return PyErr_Format(PyExc_TypeError,
			"kernel %s takes %zd arguments, %zd given",
			accel_kernel_get_name(self->kernel),
			PyList_GET_SIZE(self->args), PyTuple_GET_SIZE(args));
	for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(args); i++)
		if (set_arg(self, (uint32_t)i, PyTuple_GET_ITEM(args, i)) < 0)
			return NULL;
	Py_RETURN_NONE;
}

static PyObject *kernel_arg_info(PyObject *o, void *c)
{
	struct pa_kernel *self = (struct pa_kernel *)o;
	Py_ssize_t n = PyList_GET_SIZE(self->args);
	PyObject *list = PyList_New(n);
	static const char *kinds[] = { "?", "buffer", "value", "local",
				       "image", "sampler" };

	(void)c;
	for (Py_ssize_t i = 0; list && i < n; i++) {
		struct accel_kernel_arg_desc d = { .struct_size = sizeof(d) };
		PyObject *item;

		accel_kernel_get_arg_desc(self->kernel, (uint32_t)i, &d);
		item = Py_BuildValue("{s:s,s:I,s:I,s:I,s:z,s:z,s:I,s:I}",
			"kind", kinds[d.kind <= 5 ? d.kind : 0],
			"size", d.size, "address_space", d.address_space,
			"type_qualifiers", d.type_qualifiers,
			"name", d.name, "type_name", d.type_name,
			"image_type", d.image_type,
			"image_access", d.image_access);
		if (!item) {
			Py_CLEAR(list);
			break;
		}
		PyList_SET_ITEM(list, i, item);
	}
	return list;
}

static PyObject *kernel_name(PyObject *o, void *c)
{
	(void)c;
	return PyUnicode_FromString(
		accel_kernel_get_name(((struct pa_kernel *)o)->kernel));
}

static PyObject *kernel_program(PyObject *o, void *c)
{
	(void)c;
	return Py_NewRef(((struct pa_kernel *)o)->program);
}

static PyObject *kernel_num_args(PyObject *o, void *c)
{
	(void)c;
	return PyLong_FromSsize_t(PyList_GET_SIZE(((struct pa_kernel *)o)->args));
}

static PyMethodDef kernel_methods[] = {
	{ "set_arg", kernel_set_arg, METH_VARARGS,
	  "set_arg(index, value): a Buffer, None or buffer-protocol object "
	  "for a buffer argument; a number or bytes for a value; the size "
	  "in bytes for a __local argument; an Image or (Buffer, ImageLayout) "
	  "for an image; a Sampler or ACCEL_SAMPLER_* bits for a sampler" },
	{ "set_args", kernel_set_args, METH_VARARGS,
	  "set_args(*values): every argument, in order" },
	{ NULL, NULL, 0, NULL },
};

static PyGetSetDef kernel_getset[] = {
	{ "name", kernel_name, NULL, "the kernel's name", NULL },
	{ "program", kernel_program, NULL, "the Program", NULL },
	{ "num_args", kernel_num_args, NULL, "number of arguments", NULL },
	{ "arg_info", kernel_arg_info, NULL,
	  "list of dicts describing the arguments", NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};

static PyType_Slot kernel_slots[] = {
	{ Py_tp_new, kernel_new },
	{ Py_tp_dealloc, kernel_dealloc },
	{ Py_tp_methods, kernel_methods },
	{ Py_tp_getset, kernel_getset },
	{ Py_tp_doc, "Kernel(program, name)\n--\n\na kernel and its arguments" },
	{ 0, NULL },
};

PyType_Spec pa_kernel_spec = {
	.name = "libaccel.Kernel",
	.basicsize = sizeof(struct pa_kernel),
	.flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE,
	.slots = kernel_slots,
};
