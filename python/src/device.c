/* SPDX-License-Identifier: MIT */
/* Device: properties as attributes, from accel_device_query_*(). */
#include "pyaccel.h"

PyObject *pa_device_wrap(struct pa_state *st, struct accel_device *dev,
			 PyObject *context)
{
	struct pa_device *self;

	self = (struct pa_device *)st->Device->tp_alloc(st->Device, 0);
	if (!self) {
		accel_device_unref(dev);
		return NULL;
	}
	self->dev = dev;
	self->context = Py_NewRef(context);
	return (PyObject *)self;
}

static void device_dealloc(PyObject *o)
{
	struct pa_device *self = (struct pa_device *)o;

	accel_device_unref(self->dev);
	Py_XDECREF(self->context);
	pa_free_self(o);
}

static PyObject *device_u64(PyObject *o, void *closure)
{
	struct pa_device *self = (struct pa_device *)o;
	uint64_t v = 0;
	int r = accel_device_query_u64(self->dev,
				       (enum accel_device_u64)(intptr_t)closure,
				       &v);

	if (r < 0)
		return pa_raise(pa_state_of(o), r, "accel_device_query_u64");
	return PyLong_FromUnsignedLongLong(v);
}

static PyObject *device_string(PyObject *o, void *closure)
{
	struct pa_device *self = (struct pa_device *)o;
	const char *v = NULL;
	int r = accel_device_query_string(
		self->dev, (enum accel_device_string)(intptr_t)closure, &v);

	if (r < 0)
		return pa_raise(pa_state_of(o), r,
				"accel_device_query_string");
	return PyUnicode_DecodeUTF8(v, strlen(v), "replace");
}

static PyObject *device_work_item_sizes(PyObject *o, void *closure)
{
	struct pa_device *self = (struct pa_device *)o;
	uint64_t v[3] = { 0, 0, 0 };

	(void)closure;
	for (int i = 0; i < 3; i++)
		accel_device_query_u64(self->dev,
			ACCEL_DEVICE_U64_MAX_WORK_ITEM_SIZE_X + i, &v[i]);
	return Py_BuildValue("(KKK)", (unsigned long long)v[0],
			     (unsigned long long)v[1],
			     (unsigned long long)v[2]);
}

static PyObject *device_built_in_kernels(PyObject *o, void *closure)
{
	PyObject *s = device_string(o,
		(void *)(intptr_t)ACCEL_DEVICE_STRING_BUILT_IN_KERNELS);
	PyObject *sep, *parts, *out;

	(void)closure;
	if (!s)
		return NULL;
	if (PyUnicode_GET_LENGTH(s) == 0) {
		Py_DECREF(s);
		return PyList_New(0);
	}
	sep = PyUnicode_FromString(";");
	parts = sep ? PyUnicode_Split(s, sep, -1) : NULL;
	Py_XDECREF(sep);
	Py_DECREF(s);
	if (!parts)
		return NULL;
	/* drop empty names (a trailing ';') */
	out = PyList_New(0);
	for (Py_ssize_t i = 0; out && i < PyList_GET_SIZE(parts); i++) {
		PyObject *p = PyList_GET_ITEM(parts, i);

		if (PyUnicode_GET_LENGTH(p) && PyList_Append(out, p) < 0)
			Py_CLEAR(out);
	}
	Py_DECREF(parts);
	return out;
}

static PyObject *device_present(PyObject *o, void *closure)
{
	(void)closure;
	return PyBool_FromLong(
		accel_device_get_status(((struct pa_device *)o)->dev) == 0);
}

static PyObject *device_context(PyObject *o, void *closure)
{
	(void)closure;
	return Py_NewRef(((struct pa_device *)o)->context);
}

static PyObject *device_repr(PyObject *o)
{
	const char *name = "?";

	accel_device_query_string(((struct pa_device *)o)->dev,
				  ACCEL_DEVICE_STRING_NAME, &name);
	return PyUnicode_FromFormat("<libaccel.Device %s>", name);
}

static PyObject *device_richcompare(PyObject *a, PyObject *b, int op)
{
	struct pa_state *st = pa_state_of(a);
	bool eq;

	if (!PyObject_TypeCheck(b, st->Device) ||
	    (op != Py_EQ && op != Py_NE))
		Py_RETURN_NOTIMPLEMENTED;
	eq = ((struct pa_device *)a)->dev == ((struct pa_device *)b)->dev;
	return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

static Py_hash_t device_hash(PyObject *o)
{
	return _Py_HashPointer(((struct pa_device *)o)->dev);
}

#define U64(name, prop, doc) \
	{ name, device_u64, NULL, doc, (void *)(intptr_t)ACCEL_DEVICE_U64_##prop }
#define STR(name, prop, doc) \
	{ name, device_string, NULL, doc, \
	  (void *)(intptr_t)ACCEL_DEVICE_STRING_##prop }

static PyGetSetDef device_getset[] = {
	U64("type", TYPE, "DEVICE_TYPE_*"),
	U64("caps", CAPS, "DEVICE_CAP_* bits"),
	U64("vendor_id", VENDOR_ID, "PCI vendor id, 0 if none"),
	U64("device_id", DEVICE_ID, "PCI device id, 0 if none"),
	U64("compute_units", COMPUTE_UNITS, "parallel compute units"),
	U64("clock_mhz", CLOCK_MHZ, "max clock, 0 if unknown"),
	U64("global_mem_size", GLOBAL_MEM_SIZE, "bytes"),
	U64("local_mem_size", LOCAL_MEM_SIZE, "bytes per work-group"),
	U64("max_alloc_size", MAX_ALLOC_SIZE, "largest buffer, bytes"),
	U64("mem_base_addr_align", MEM_BASE_ADDR_ALIGN,
	    "sub-buffer offset alignment, bytes"),
	U64("cache_line_size", CACHE_LINE_SIZE, "bytes, 0 if unknown"),
	U64("max_work_group_size", MAX_WORK_GROUP_SIZE,
	    "work-items per work-group"),
	U64("max_work_item_dims", MAX_WORK_ITEM_DIMS, "3"),
	U64("max_kernel_args", MAX_KERNEL_ARGS, "arguments per kernel"),
	U64("max_arg_bytes", MAX_ARG_BYTES, "bytes of a kernel's arguments"),
	U64("timer_resolution_ns", TIMER_RESOLUTION_NS,
	    "profiling timestamp resolution"),
	U64("numa_node", NUMA_NODE, "NUMA node, 2**64-1 if none"),
	U64("printf_buffer_size", PRINTF_BUFFER_SIZE,
	    "bytes of printf output per launch"),
	U64("cache_size", CACHE_SIZE, "bytes of the last cache level"),
	U64("private_mem_size", PRIVATE_MEM_SIZE,
	    "stack bytes of a work-group, 0 if unlimited"),
	U64("sub_group_size", SUB_GROUP_SIZE, "work-items per sub-group"),
	STR("name", NAME, "model name"),
	STR("vendor", VENDOR, "vendor name"),
	STR("driver", DRIVER, "kernel driver or \"cpu\""),
	STR("driver_version", DRIVER_VERSION, "driver version"),
	STR("backend", BACKEND, "libaccel backend"),
	STR("devnode", DEVNODE, "device node, \"\" if none"),
	STR("syspath", SYSPATH, "sysfs path, \"\" if none"),
	STR("code_target", CODE_TARGET, "what compiled code is made for"),
	STR("compiler", COMPILER, "the compiler module, or why none"),
	{ "built_in_kernels", device_built_in_kernels, NULL,
	  "names of the built-in kernels", NULL },
	{ "max_work_item_sizes", device_work_item_sizes, NULL,
	  "(x, y, z) work-items per dimension of a work-group", NULL },
	{ "present", device_present, NULL, "False once unplugged", NULL },
	{ "context", device_context, NULL, "the Context", NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};

static PyObject *device_new(PyTypeObject *tp, PyObject *a, PyObject *k)
{
	(void)a;
	(void)k;
	return PyErr_Format(PyExc_TypeError,
		"%s: devices come from Context.devices", tp->tp_name);
}

static PyMethodDef device_methods[] = {
	{ "image_formats", (PyCFunction)(void (*)(void))pa_device_image_formats,
	  METH_VARARGS | METH_KEYWORDS,
	  "image_formats(type='2d', access='read') -> list of (channel_order, "
	  "channel_type): the image formats supported (names, or ints for "
	  "values without one); access 'read', 'write' or 'read_write'" },
	{ NULL, NULL, 0, NULL },
};

static PyType_Slot device_slots[] = {
	{ Py_tp_methods, device_methods },
	{ Py_tp_new, device_new },
	{ Py_tp_dealloc, device_dealloc },
	{ Py_tp_getset, device_getset },
	{ Py_tp_repr, device_repr },
	{ Py_tp_richcompare, device_richcompare },
	{ Py_tp_hash, device_hash },
	{ Py_tp_doc, "A device of a Context; properties are attributes." },
	{ 0, NULL },
};

PyType_Spec pa_device_spec = {
	.name = "libaccel.Device",
	.basicsize = sizeof(struct pa_device),
	.flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE,
	.slots = device_slots,
};
