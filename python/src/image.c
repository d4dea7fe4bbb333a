/* SPDX-License-Identifier: MIT */
/*
 * Images and samplers (accel-image.h): ImageLayout (a struct
 * accel_image_layout, its enums by name or number), Image (a Buffer seen
 * through a layout, for image arguments) and Sampler (ACCEL_SAMPLER_*
 * bits), and Device.image_formats().
 */
#include "pyaccel.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>
#include <structmember.h>

struct pa_name {
	const char *name;
	uint32_t value;
};

static const struct pa_name image_types[] = {
	{ "2d", ACCEL_IMAGE_2D }, { "3d", ACCEL_IMAGE_3D },
	{ "2d_array", ACCEL_IMAGE_2D_ARRAY }, { "1d", ACCEL_IMAGE_1D },
	{ "1d_array", ACCEL_IMAGE_1D_ARRAY },
	{ "1d_buffer", ACCEL_IMAGE_1D_BUFFER }, { NULL, 0 },
};

static const struct pa_name image_orders[] = {
	{ "R", ACCEL_IMAGE_ORDER_R }, { "A", ACCEL_IMAGE_ORDER_A },
	{ "RG", ACCEL_IMAGE_ORDER_RG }, { "RA", ACCEL_IMAGE_ORDER_RA },
	{ "RGB", ACCEL_IMAGE_ORDER_RGB }, { "RGBA", ACCEL_IMAGE_ORDER_RGBA },
	{ "BGRA", ACCEL_IMAGE_ORDER_BGRA }, { "ARGB", ACCEL_IMAGE_ORDER_ARGB },
	{ "INTENSITY", ACCEL_IMAGE_ORDER_INTENSITY },
	{ "LUMINANCE", ACCEL_IMAGE_ORDER_LUMINANCE },
	{ "DEPTH", ACCEL_IMAGE_ORDER_DEPTH },
	{ "sRGBA", ACCEL_IMAGE_ORDER_sRGBA }, { "sBGRA", ACCEL_IMAGE_ORDER_sBGRA },
	{ "ABGR", ACCEL_IMAGE_ORDER_ABGR }, { NULL, 0 },
};

static const struct pa_name image_data[] = {
	{ "snorm_int8", ACCEL_IMAGE_DATA_SNORM_INT8 },
	{ "snorm_int16", ACCEL_IMAGE_DATA_SNORM_INT16 },
	{ "unorm_int8", ACCEL_IMAGE_DATA_UNORM_INT8 },
	{ "unorm_int16", ACCEL_IMAGE_DATA_UNORM_INT16 },
	{ "unorm_short_565", ACCEL_IMAGE_DATA_UNORM_SHORT_565 },
	{ "unorm_short_555", ACCEL_IMAGE_DATA_UNORM_SHORT_555 },
	{ "unorm_int_101010", ACCEL_IMAGE_DATA_UNORM_INT_101010 },
	{ "signed_int8", ACCEL_IMAGE_DATA_SIGNED_INT8 },
	{ "signed_int16", ACCEL_IMAGE_DATA_SIGNED_INT16 },
	{ "signed_int32", ACCEL_IMAGE_DATA_SIGNED_INT32 },
	{ "unsigned_int8", ACCEL_IMAGE_DATA_UNSIGNED_INT8 },
	{ "unsigned_int16", ACCEL_IMAGE_DATA_UNSIGNED_INT16 },
	{ "unsigned_int32", ACCEL_IMAGE_DATA_UNSIGNED_INT32 },
	{ "half_float", ACCEL_IMAGE_DATA_HALF_FLOAT },
	{ "float", ACCEL_IMAGE_DATA_FLOAT },
	{ "unorm_int_101010_2", ACCEL_IMAGE_DATA_UNORM_INT_101010_2 },
	{ NULL, 0 },
};

static const struct pa_name accesses[] = {
	{ "read", ACCEL_IMAGE_ACCESS_READ },
	{ "write", ACCEL_IMAGE_ACCESS_WRITE },
	{ "read_write", ACCEL_IMAGE_ACCESS_READ | ACCEL_IMAGE_ACCESS_WRITE },
	{ NULL, 0 },
};

static const struct pa_name addresses[] = {
	{ "none", ACCEL_SAMPLER_ADDRESS_NONE },
	{ "clamp_to_edge", ACCEL_SAMPLER_ADDRESS_CLAMP_TO_EDGE },
	{ "clamp", ACCEL_SAMPLER_ADDRESS_CLAMP },
	{ "repeat", ACCEL_SAMPLER_ADDRESS_REPEAT },
	{ "mirrored_repeat", ACCEL_SAMPLER_ADDRESS_MIRRORED_REPEAT },
	{ NULL, 0 },
};

static const struct pa_name filters[] = {
	{ "nearest", ACCEL_SAMPLER_FILTER_NEAREST },
	{ "linear", ACCEL_SAMPLER_FILTER_LINEAR },
	{ NULL, 0 },
};

/*
 * A name of @p tab (exact, else case-insensitive: "rgba", but "sRGBA"
 * stays apart from "RGBA") or an int, which is passed on unchecked.
 */
static int enum_arg(PyObject *v, const struct pa_name *tab, const char *what,
		    uint32_t *out)
{
	const char *s;

	if (PyLong_Check(v))
		return pa_u32(v, out) ? 0 : -1;
	if (!PyUnicode_Check(v)) {
		PyErr_Format(PyExc_TypeError, "%s must be a str or an int, "
			     "not %.100s", what, Py_TYPE(v)->tp_name);
		return -1;
	}
	s = PyUnicode_AsUTF8(v);
	if (!s)
		return -1;
	for (const struct pa_name *n = tab; n->name; n++)
		if (!strcmp(n->name, s)) {
			*out = n->value;
			return 0;
		}
	for (const struct pa_name *n = tab; n->name; n++)
		if (!strcasecmp(n->name, s)) {
			*out = n->value;
			return 0;
		}
	PyErr_Format(PyExc_ValueError, "unknown %s %R", what, v);
	return -1;
}

/* the name of @p value, or the int */
static PyObject *enum_name(const struct pa_name *tab, uint32_t value)
{
	for (const struct pa_name *n = tab; n->name; n++)
		if (n->value == value)
			return PyUnicode_FromString(n->name);
	return PyLong_FromUnsignedLong(value);
}

/* ---- ImageLayout ------------------------------------------------------- */

struct pa_image_layout {
	PyObject_HEAD
	struct accel_image_layout l;
};

static PyObject *layout_wrap(PyTypeObject *tp,
			     const struct accel_image_layout *l)
{
	struct pa_image_layout *self =
		(struct pa_image_layout *)tp->tp_alloc(tp, 0);

	if (self) {
		self->l = *l;
		self->l.struct_size = sizeof(self->l);
	}
	return (PyObject *)self;
}

static PyObject *layout_new(PyTypeObject *tp, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "type", "channel_order", "channel_type",
				  "width", "height", "depth", "array_size",
				  "row_pitch", "slice_pitch", "offset", NULL };
	struct accel_image_layout l = { .struct_size = sizeof(l) };
	PyObject *type, *order, *data;

	if (!PyArg_ParseTupleAndKeywords(args, kw,
			"OOOO&|O&O&O&O&O&O&:ImageLayout", kwlist,
			&type, &order, &data, pa_u64, &l.width,
			pa_u64, &l.height, pa_u64, &l.depth,
			pa_u64, &l.array_size, pa_u64, &l.row_pitch,
			pa_u64, &l.slice_pitch, pa_u64, &l.offset))
		return NULL;
	if (enum_arg(type, image_types, "image type", &l.type) < 0 ||
	    enum_arg(order, image_orders, "channel order",
		     &l.channel_order) < 0 ||
	    enum_arg(data, image_data, "channel type", &l.channel_type) < 0)
		return NULL;
	return layout_wrap(tp, &l);
}

static int fourcc_arg(PyObject *v, void *out)
{
	if (PyUnicode_Check(v)) {
		Py_ssize_t len;
		const char *s = PyUnicode_AsUTF8AndSize(v, &len);

		if (!s)
			return 0;
		if (len != 4) {
			PyErr_SetString(PyExc_ValueError,
					"a fourcc str has 4 characters");
			return 0;
		}
		*(uint32_t *)out = (uint32_t)(unsigned char)s[0] |
				   (uint32_t)(unsigned char)s[1] << 8 |
				   (uint32_t)(unsigned char)s[2] << 16 |
				   (uint32_t)(unsigned char)s[3] << 24;
		return 1;
	}
	return pa_u32(v, out);
}

static PyObject *layout_from_drm(PyObject *cls, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "fourcc", "modifier", "width", "height",
				  "pitch", "offset", NULL };
	struct pa_state *st = pa_state_of_type((PyTypeObject *)cls);
	struct accel_image_layout l = { .struct_size = sizeof(l) };
	uint32_t fourcc;
	uint64_t modifier, width, height, pitch, offset = 0;
	int r;

	if (!PyArg_ParseTupleAndKeywords(args, kw,
			"O&O&O&O&O&|O&:from_drm", kwlist, fourcc_arg, &fourcc,
			pa_u64, &modifier, pa_u64, &width, pa_u64, &height,
			pa_u64, &pitch, pa_u64, &offset))
		return NULL;
	r = accel_image_layout_from_drm(fourcc, modifier, width, height,
					pitch, offset, &l);
	if (r < 0)
		return pa_raise(st, r, "accel_image_layout_from_drm");
	return layout_wrap((PyTypeObject *)cls, &l);
}

static PyObject *layout_resolve(PyObject *o, PyObject *device)
{
	struct pa_state *st = pa_state_of(o);
	struct accel_image_layout l = { .struct_size = sizeof(l) };
	uint64_t size = 0;
	PyObject *lo, *ret;
	int r;

	if (!PyObject_TypeCheck(device, st->Device))
		return PyErr_Format(PyExc_TypeError,
				    "device must be a Device, not %.100s",
				    Py_TYPE(device)->tp_name);
	r = accel_image_layout_resolve(((struct pa_device *)device)->dev,
				       &((struct pa_image_layout *)o)->l, &l,
				       &size);
	if (r < 0)
		return pa_raise(st, r, "accel_image_layout_resolve");
	lo = layout_wrap(Py_TYPE(o), &l);
	if (!lo)
		return NULL;
	ret = Py_BuildValue("(NK)", lo, (unsigned long long)size);
	return ret;
}

static PyObject *layout_texel_size(PyObject *o, void *c)
{
	const struct accel_image_layout *l = &((struct pa_image_layout *)o)->l;
	struct accel_image_format f = { l->channel_order, l->channel_type };
	uint32_t size;
	int r = accel_image_format_get_texel_size(&f, &size);

	(void)c;
	if (r < 0)
		return pa_raise(pa_state_of(o), r,
				"accel_image_format_get_texel_size");
	return PyLong_FromUnsignedLong(size);
}

static PyObject *layout_repr(PyObject *o)
{
	const struct accel_image_layout *l = &((struct pa_image_layout *)o)->l;
	PyObject *t = enum_name(image_types, l->type);
	PyObject *ord = enum_name(image_orders, l->channel_order);
	PyObject *d = enum_name(image_data, l->channel_type);
	PyObject *ret = NULL;

	if (t && ord && d)
		ret = PyUnicode_FromFormat(
			"ImageLayout(%R, %R, %R, width=%llu, height=%llu, "
			"depth=%llu, array_size=%llu, row_pitch=%llu, "
			"slice_pitch=%llu, offset=%llu)", t, ord, d,
			(unsigned long long)l->width,
			(unsigned long long)l->height,
			(unsigned long long)l->depth,
			(unsigned long long)l->array_size,
			(unsigned long long)l->row_pitch,
			(unsigned long long)l->slice_pitch,
			(unsigned long long)l->offset);
	Py_XDECREF(t);
	Py_XDECREF(ord);
	Py_XDECREF(d);
	return ret;
}

static PyObject *layout_richcompare(PyObject *a, PyObject *b, int op)
{
	bool eq;

	if ((op != Py_EQ && op != Py_NE) || Py_TYPE(a) != Py_TYPE(b))
		Py_RETURN_NOTIMPLEMENTED;
	eq = !memcmp(&((struct pa_image_layout *)a)->l,
		     &((struct pa_image_layout *)b)->l,
		     sizeof(struct accel_image_layout));
	return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

static void plain_dealloc(PyObject *o)
{
	pa_free_self(o);
}

#define LM(name, type, doc) \
	{ #name, type, offsetof(struct pa_image_layout, l.name), READONLY, doc }
static PyMemberDef layout_members[] = {
	LM(type, T_UINT, "image type (ACCEL_IMAGE_*, OpenCL's values)"),
	LM(channel_order, T_UINT, "channel order (OpenCL's values)"),
	LM(channel_type, T_UINT, "channel data type (OpenCL's values)"),
	LM(width, T_ULONGLONG, "texels per row"),
	LM(height, T_ULONGLONG, "rows"),
	LM(depth, T_ULONGLONG, "slices (3D)"),
	LM(array_size, T_ULONGLONG, "layers (arrays)"),
	LM(row_pitch, T_ULONGLONG, "bytes between rows, 0: tight"),
	LM(slice_pitch, T_ULONGLONG, "bytes between slices or layers"),
	LM(offset, T_ULONGLONG, "bytes from the buffer's start"),
	{ NULL, 0, 0, 0, NULL },
};
#undef LM

static PyGetSetDef layout_getset[] = {
	{ "texel_size", layout_texel_size, NULL, "bytes per texel", NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};

static PyMethodDef layout_methods[] = {
	{ "from_drm", (PyCFunction)(void (*)(void))layout_from_drm,
	  METH_VARARGS | METH_KEYWORDS | METH_CLASS,
	  "from_drm(fourcc, modifier, width, height, pitch, offset=0) -> "
	  "ImageLayout: a 2D layout for a DRM-format frame (fourcc an int "
	  "or a 4-character str such as 'AB24')" },
	{ "resolve", layout_resolve, METH_O,
	  "resolve(device) -> (ImageLayout, int): the layout checked "
	  "against the device and completed (pitches, sizes), and the bytes "
	  "of a buffer it spans" },
	{ NULL, NULL, 0, NULL },
};

static PyType_Slot layout_slots[] = {
	{ Py_tp_new, layout_new },
	{ Py_tp_dealloc, plain_dealloc },
	{ Py_tp_members, layout_members },
	{ Py_tp_getset, layout_getset },
	{ Py_tp_methods, layout_methods },
	{ Py_tp_repr, layout_repr },
	{ Py_tp_richcompare, layout_richcompare },
	{ Py_tp_hash, PyObject_HashNotImplemented },
	{ Py_tp_doc, "ImageLayout(type, channel_order, channel_type, width, "
		     "height=0, depth=0, array_size=0, row_pitch=0, "
		     "slice_pitch=0, offset=0)\n--\n\n"
		     "Where an image's texels lie in a buffer" },
	{ 0, NULL },
};

PyType_Spec pa_image_layout_spec = {
	.name = "libaccel.ImageLayout",
	.basicsize = sizeof(struct pa_image_layout),
	.flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE,
	.slots = layout_slots,
};

/* ---- Image ------------------------------------------------------------- */

struct pa_image {
	PyObject_HEAD
	PyObject *buffer;   /* the Buffer */
	PyObject *layout;   /* the ImageLayout */
};

static int image_parts(struct pa_state *st, PyObject *buffer,
		       PyObject *layout)
{
	if (!PyObject_TypeCheck(buffer, st->Buffer)) {
		PyErr_Format(PyExc_TypeError, "an image's buffer must be a "
			     "Buffer, not %.100s", Py_TYPE(buffer)->tp_name);
		return -1;
	}
	if (!PyObject_TypeCheck(layout, st->ImageLayout)) {
		PyErr_Format(PyExc_TypeError, "an image's layout must be an "
			     "ImageLayout, not %.100s",
			     Py_TYPE(layout)->tp_name);
		return -1;
	}
	return 0;
}

static PyObject *image_new(PyTypeObject *tp, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "buffer", "layout", NULL };
	struct pa_state *st = pa_state_of_type(tp);
	PyObject *buffer, *layout;
	struct pa_image *self;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO:Image", kwlist,
					 &buffer, &layout))
		return NULL;
	if (image_parts(st, buffer, layout) < 0)
		return NULL;
	self = (struct pa_image *)tp->tp_alloc(tp, 0);
	if (!self)
		return NULL;
	self->buffer = Py_NewRef(buffer);
	self->layout = Py_NewRef(layout);
	return (PyObject *)self;
}

static void image_dealloc(PyObject *o)
{
	struct pa_image *self = (struct pa_image *)o;

	Py_XDECREF(self->buffer);
	Py_XDECREF(self->layout);
	pa_free_self(o);
}

static PyObject *image_repr(PyObject *o)
{
	struct pa_image *self = (struct pa_image *)o;

	return PyUnicode_FromFormat("Image(%R, %R)", self->buffer,
				    self->layout);
}

static PyMemberDef image_members[] = {
	{ "buffer", T_OBJECT, offsetof(struct pa_image, buffer), READONLY,
	  "the Buffer" },
	{ "layout", T_OBJECT, offsetof(struct pa_image, layout), READONLY,
	  "the ImageLayout" },
	{ NULL, 0, 0, 0, NULL },
};

static PyType_Slot image_slots[] = {
	{ Py_tp_new, image_new },
	{ Py_tp_dealloc, image_dealloc },
	{ Py_tp_members, image_members },
	{ Py_tp_repr, image_repr },
	{ Py_tp_doc, "Image(buffer, layout)\n--\n\n"
		     "A Buffer seen through an ImageLayout, for image "
		     "arguments of kernels" },
	{ 0, NULL },
};

PyType_Spec pa_image_spec = {
	.name = "libaccel.Image",
	.basicsize = sizeof(struct pa_image),
	.flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE,
	.slots = image_slots,
};

int pa_image_arg(struct pa_state *st, PyObject *v, struct accel_buffer **buf,
		 const struct accel_image_layout **layout)
{
	PyObject *b, *l;

	if (PyObject_TypeCheck(v, st->Image)) {
		b = ((struct pa_image *)v)->buffer;
		l = ((struct pa_image *)v)->layout;
	} else if (PyTuple_Check(v) && PyTuple_GET_SIZE(v) == 2) {
		b = PyTuple_GET_ITEM(v, 0);
		l = PyTuple_GET_ITEM(v, 1);
		if (image_parts(st, b, l) < 0)
			return -1;
	} else {
		PyErr_Format(PyExc_TypeError, "an image argument takes an "
			     "Image or a (Buffer, ImageLayout) tuple, not "
			     "%.100s", Py_TYPE(v)->tp_name);
		return -1;
	}
	*buf = ((struct pa_buffer *)b)->buf;
	*layout = &((struct pa_image_layout *)l)->l;
	return 0;
}

/* ---- Sampler ----------------------------------------------------------- */

struct pa_sampler {
	PyObject_HEAD
	uint32_t bits;
};

static PyObject *sampler_new(PyTypeObject *tp, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "normalized", "address", "filter", NULL };
	int normalized = 0;
	PyObject *address = NULL, *filter = NULL;
	uint32_t a = ACCEL_SAMPLER_ADDRESS_CLAMP_TO_EDGE;
	uint32_t f = ACCEL_SAMPLER_FILTER_NEAREST;
	struct pa_sampler *self;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|pUU:Sampler", kwlist,
					 &normalized, &address, &filter))
		return NULL;
	if ((address && enum_arg(address, addresses, "addressing mode",
				 &a) < 0) ||
	    (filter && enum_arg(filter, filters, "filter", &f) < 0))
		return NULL;
	self = (struct pa_sampler *)tp->tp_alloc(tp, 0);
	if (self)
		self->bits = a | f |
			     (normalized ? ACCEL_SAMPLER_NORMALIZED_COORDS : 0);
	return (PyObject *)self;
}

static PyObject *sampler_normalized(PyObject *o, void *c)
{
	(void)c;
	return PyBool_FromLong(((struct pa_sampler *)o)->bits &
			       ACCEL_SAMPLER_NORMALIZED_COORDS);
}

static PyObject *sampler_address(PyObject *o, void *c)
{
	(void)c;
	return enum_name(addresses, ((struct pa_sampler *)o)->bits &
				    ACCEL_SAMPLER_ADDRESS_MASK);
}

static PyObject *sampler_filter(PyObject *o, void *c)
{
	(void)c;
	return enum_name(filters, ((struct pa_sampler *)o)->bits &
				  ACCEL_SAMPLER_FILTER_MASK);
}

static PyObject *sampler_int(PyObject *o)
{
	return PyLong_FromUnsignedLong(((struct pa_sampler *)o)->bits);
}

static PyObject *sampler_repr(PyObject *o)
{
	PyObject *a = sampler_address(o, NULL), *f = sampler_filter(o, NULL);
	PyObject *ret = NULL;

	if (a && f)
		ret = PyUnicode_FromFormat(
			"Sampler(normalized=%s, address=%R, filter=%R)",
			((struct pa_sampler *)o)->bits &
				ACCEL_SAMPLER_NORMALIZED_COORDS ? "True" :
								  "False",
			a, f);
	Py_XDECREF(a);
	Py_XDECREF(f);
	return ret;
}

static PyMemberDef sampler_members[] = {
	{ "bits", T_UINT, offsetof(struct pa_sampler, bits), READONLY,
	  "the ACCEL_SAMPLER_* bits (OpenCL C's CLK_* values)" },
	{ NULL, 0, 0, 0, NULL },
};

static PyGetSetDef sampler_getset[] = {
	{ "normalized", sampler_normalized, NULL,
	  "coordinates in [0, 1)", NULL },
	{ "address", sampler_address, NULL, "the addressing mode", NULL },
	{ "filter", sampler_filter, NULL, "the filter", NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};

static PyType_Slot sampler_slots[] = {
	{ Py_tp_new, sampler_new },
	{ Py_tp_dealloc, plain_dealloc },
	{ Py_tp_members, sampler_members },
	{ Py_tp_getset, sampler_getset },
	{ Py_tp_repr, sampler_repr },
	{ Py_nb_int, sampler_int },
	{ Py_nb_index, sampler_int },
	{ Py_tp_doc, "Sampler(normalized=False, address='clamp_to_edge', "
		     "filter='nearest')\n--\n\n"
		     "A sampler for sampler arguments of kernels; address: "
		     "'none', 'clamp_to_edge', 'clamp', 'repeat', "
		     "'mirrored_repeat'; filter: 'nearest', 'linear'" },
	{ 0, NULL },
};

PyType_Spec pa_sampler_spec = {
	.name = "libaccel.Sampler",
	.basicsize = sizeof(struct pa_sampler),
	.flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE,
	.slots = sampler_slots,
};

int pa_sampler_arg(struct pa_state *st, PyObject *v, uint32_t *bits)
{
	if (PyObject_TypeCheck(v, st->Sampler)) {
		*bits = ((struct pa_sampler *)v)->bits;
		return 0;
	}
	if (!PyLong_Check(v)) {
		PyErr_Format(PyExc_TypeError, "a sampler argument takes a "
			     "Sampler or ACCEL_SAMPLER_* bits, not %.100s",
			     Py_TYPE(v)->tp_name);
		return -1;
	}
	return pa_u32(v, bits) ? 0 : -1;
}

/* ---- Device.image_formats() -------------------------------------------- */

PyObject *pa_device_image_formats(PyObject *o, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "type", "access", NULL };
	struct pa_state *st = pa_state_of(o);
	struct accel_device *dev = ((struct pa_device *)o)->dev;
	PyObject *type = NULL, *access = NULL, *list;
	uint32_t t = ACCEL_IMAGE_2D, a = ACCEL_IMAGE_ACCESS_READ;
	struct accel_image_format *f;
	int n, m;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|OO:image_formats",
					 kwlist, &type, &access))
		return NULL;
	if ((type && enum_arg(type, image_types, "image type", &t) < 0) ||
	    (access && enum_arg(access, accesses, "access", &a) < 0))
		return NULL;
	n = accel_device_get_image_formats(dev, t, a, 0, NULL);
	if (n < 0)
		return pa_raise(st, n, "accel_device_get_image_formats");
	f = PyMem_Calloc(n ? (size_t)n : 1, sizeof(*f));
	if (!f)
		return PyErr_NoMemory();
	m = accel_device_get_image_formats(dev, t, a, (uint32_t)n, f);
	if (m < 0) {
		PyMem_Free(f);
		return pa_raise(st, m, "accel_device_get_image_formats");
	}
	if (m > n)
		m = n;
	list = PyList_New(m);
	for (int i = 0; list && i < m; i++) {
		PyObject *item = Py_BuildValue("(NN)",
			enum_name(image_orders, f[i].channel_order),
			enum_name(image_data, f[i].channel_type));

		if (!item) {
			Py_CLEAR(list);
			break;
		}
		PyList_SET_ITEM(list, i, item);
	}
	PyMem_Free(f);
	return list;
}
