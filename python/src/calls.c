/* calls.c: the sort calls of the extension module, one library call each (or a
 * loop of them over rows), with the GIL released while the library works. The
 * arrays come from bitonic/__init__.py already C-contiguous, aligned and of the
 * key type named; these functions check only what a wrong call from Python
 * could break here (sizes that do not divide, a read-only output). */
#include "bitonic_python.h"

#include <string.h>
#include <time.h>

/* Argument helpers for METH_FASTCALL: a size, a flag, a key type. */
static bool size_arg(PyObject *object, size_t *out)
{
    Py_ssize_t value = PyLong_AsSsize_t(object);
    if (value < 0) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "a size must not be negative");
        return false;
    }
    *out = (size_t)value;
    return true;
}

static bool flag_arg(PyObject *object, bool *out)
{
    int truth = PyObject_IsTrue(object);
    *out = truth == 1;
    return truth >= 0;
}

static bool key_type_arg(PyObject *object, bitonic_key_type *out, size_t *out_bytes)
{
    long value = PyLong_AsLong(object);
    if (value == -1 && PyErr_Occurred())
        return false;
    *out_bytes = bitonic_py_key_bytes(value);
    *out = (bitonic_key_type)value;
    return *out_bytes != 0;
}

static bool count_args(Py_ssize_t given, Py_ssize_t wanted, const char *name)
{
    if (given == wanted)
        return true;
    PyErr_Format(PyExc_TypeError, "%s takes %zd arguments (%zd given)", name, wanted, given);
    return false;
}

/* A C-contiguous buffer of whole elements of element_bytes; writable if asked. */
static bool get_array(PyObject *object, Py_buffer *view, bool writable, size_t element_bytes, const char *what)
{
    if (PyObject_GetBuffer(object, view, PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0)) < 0)
        return false;
    if (element_bytes > 1 && (size_t)view->len % element_bytes != 0) {
        PyErr_Format(PyExc_ValueError, "%s holds %zd bytes, not whole %zu-byte elements", what, view->len,
                     element_bytes);
        PyBuffer_Release(view);
        return false;
    }
    return true;
}

static bitonic_sort_options options_of(bitonic_key_type key_type, bool descending, bool stable)
{
    return (bitonic_sort_options){
        .order = descending ? BITONIC_ORDER_DESCENDING : BITONIC_ORDER_ASCENDING,
        .key_type = key_type,
        .stable = stable,
    };
}

/* sort(ctx, keys, row_length, key_type, descending): keys in place, as rows of
 * row_length (one row: bitonic_sort; more: bitonic_sort_rows). */
static PyObject *call_sort(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    size_t row_length, bytes;
    bitonic_key_type key_type;
    bool descending;
    if (!count_args(nargs, 5, "sort") || !size_arg(args[2], &row_length) ||
        !key_type_arg(args[3], &key_type, &bytes) || !flag_arg(args[4], &descending))
        return NULL;
    Py_buffer keys;
    if (!get_array(args[1], &keys, true, bytes, "keys"))
        return NULL;
    size_t count = (size_t)keys.len / bytes;
    if (row_length == 0 ? count != 0 : count % row_length != 0) {
        PyBuffer_Release(&keys);
        return PyErr_Format(PyExc_ValueError, "%zu keys are not rows of %zu", count, row_length);
    }
    bitonic_context *context = bitonic_py_begin_call(args[0]);
    if (!context) {
        PyBuffer_Release(&keys);
        return NULL;
    }
    bitonic_sort_options options = options_of(key_type, descending, false);
    size_t rows = row_length ? count / row_length : 0;
    bitonic_status status = BITONIC_SUCCESS;
    Py_BEGIN_ALLOW_THREADS
    if (rows == 1)
        status = bitonic_sort(context, keys.buf, count, &options);
    else if (rows > 1)
        status = bitonic_sort_rows(context, keys.buf, rows, row_length, &options);
    Py_END_ALLOW_THREADS
    bitonic_py_end_call(args[0]);
    PyBuffer_Release(&keys);
    if (status != BITONIC_SUCCESS)
        return bitonic_py_raise(status);
    Py_RETURN_NONE;
}

/* u32 indices at the back half of a row's int64 slots, widened in place: the
 * store of index i (bytes 8i..8i+7) only covers u32 slots of indices already
 * read, so front to back needs no second array. Byte copies keep the compiler
 * from assuming the two views do not alias. */
static void widen_indices_in_place(unsigned char *row, size_t length)
{
    const unsigned char *narrow = row + 4 * length;
    for (size_t i = 0; i < length; ++i) {
        uint32_t index;
        memcpy(&index, narrow + 4 * i, sizeof index);
        int64_t wide = (int64_t)index;
        memcpy(row + 8 * i, &wide, sizeof wide);
    }
}

/* argsort(ctx, keys, out, row_length, key_type, descending): int64 indices of
 * each row of keys into out (the library's stable u32 argsort, widened). */
static PyObject *call_argsort(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    size_t row_length, bytes;
    bitonic_key_type key_type;
    bool descending;
    if (!count_args(nargs, 6, "argsort") || !size_arg(args[3], &row_length) ||
        !key_type_arg(args[4], &key_type, &bytes) || !flag_arg(args[5], &descending))
        return NULL;
    Py_buffer keys, out;
    if (!get_array(args[1], &keys, false, bytes, "keys"))
        return NULL;
    if (!get_array(args[2], &out, true, 8, "out")) {
        PyBuffer_Release(&keys);
        return NULL;
    }
    size_t count = (size_t)keys.len / bytes;
    if ((size_t)out.len != count * 8 || (row_length == 0 ? count != 0 : count % row_length != 0)) {
        PyBuffer_Release(&keys);
        PyBuffer_Release(&out);
        return PyErr_Format(PyExc_ValueError, "argsort: %zu keys, %zd bytes of indices, rows of %zu", count,
                            out.len, row_length);
    }
    bitonic_context *context = bitonic_py_begin_call(args[0]);
    if (!context) {
        PyBuffer_Release(&keys);
        PyBuffer_Release(&out);
        return NULL;
    }
    bitonic_sort_options options = options_of(key_type, descending, true);
    size_t rows = row_length ? count / row_length : 0;
    bitonic_status status = BITONIC_SUCCESS;
    Py_BEGIN_ALLOW_THREADS
    for (size_t row = 0; row < rows && status == BITONIC_SUCCESS; ++row) {
        unsigned char *slots = (unsigned char *)out.buf + row * row_length * 8;
        status = bitonic_argsort(context, (const unsigned char *)keys.buf + row * row_length * bytes, row_length,
                                 (uint32_t *)(slots + 4 * row_length), &options);
        if (status == BITONIC_SUCCESS)
            widen_indices_in_place(slots, row_length);
    }
    Py_END_ALLOW_THREADS
    bitonic_py_end_call(args[0]);
    PyBuffer_Release(&keys);
    PyBuffer_Release(&out);
    if (status != BITONIC_SUCCESS)
        return bitonic_py_raise(status);
    Py_RETURN_NONE;
}

/* sort_pairs(ctx, keys, values, key_type, descending, stable), both in place. */
static PyObject *call_sort_pairs(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    size_t bytes;
    bitonic_key_type key_type;
    bool descending, stable;
    if (!count_args(nargs, 6, "sort_pairs") || !key_type_arg(args[3], &key_type, &bytes) ||
        !flag_arg(args[4], &descending) || !flag_arg(args[5], &stable))
        return NULL;
    Py_buffer keys, values;
    if (!get_array(args[1], &keys, true, bytes, "keys"))
        return NULL;
    if (!get_array(args[2], &values, true, 4, "values")) {
        PyBuffer_Release(&keys);
        return NULL;
    }
    size_t count = (size_t)keys.len / bytes;
    if ((size_t)values.len != count * 4) {
        PyBuffer_Release(&keys);
        PyBuffer_Release(&values);
        return PyErr_Format(PyExc_ValueError, "sort_pairs: %zu keys but %zd values", count, values.len / 4);
    }
    bitonic_context *context = bitonic_py_begin_call(args[0]);
    bitonic_status status = BITONIC_SUCCESS;
    if (context) {
        bitonic_sort_options options = options_of(key_type, descending, stable);
        Py_BEGIN_ALLOW_THREADS
        status = bitonic_sort_pairs(context, keys.buf, values.buf, count, &options);
        Py_END_ALLOW_THREADS
        bitonic_py_end_call(args[0]);
    }
    PyBuffer_Release(&keys);
    PyBuffer_Release(&values);
    if (!context)
        return NULL;
    if (status != BITONIC_SUCCESS)
        return bitonic_py_raise(status);
    Py_RETURN_NONE;
}

/* sort_records(ctx, records, count, stride, key_offset, key_type, descending):
 * rows of count records in place, each sorted by its field at key_offset. */
static PyObject *call_sort_records(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    size_t count, stride, key_offset, bytes;
    bitonic_key_type key_type;
    bool descending;
    if (!count_args(nargs, 7, "sort_records") || !size_arg(args[2], &count) || !size_arg(args[3], &stride) ||
        !size_arg(args[4], &key_offset) || !key_type_arg(args[5], &key_type, &bytes) ||
        !flag_arg(args[6], &descending))
        return NULL;
    Py_buffer records;
    if (!get_array(args[1], &records, true, 1, "records"))
        return NULL;
    size_t row_bytes = count * stride;
    bool whole_rows = row_bytes ? (size_t)records.len % row_bytes == 0 : records.len == 0;
    if (stride == 0 || key_offset + bytes > stride || !whole_rows) {
        PyBuffer_Release(&records);
        return PyErr_Format(PyExc_ValueError, "sort_records: %zd bytes are not rows of %zu records of %zu bytes "
                            "with a key at %zu", records.len, count, stride, key_offset);
    }
    bitonic_context *context = bitonic_py_begin_call(args[0]);
    if (!context) {
        PyBuffer_Release(&records);
        return NULL;
    }
    bitonic_sort_options options = options_of(key_type, descending, true);
    size_t rows = row_bytes ? (size_t)records.len / row_bytes : 0;
    bitonic_status status = BITONIC_SUCCESS;
    Py_BEGIN_ALLOW_THREADS
    for (size_t row = 0; row < rows && status == BITONIC_SUCCESS; ++row)
        status = bitonic_sort_records(context, (unsigned char *)records.buf + row * row_bytes, count, stride,
                                      key_offset, &options);
    Py_END_ALLOW_THREADS
    bitonic_py_end_call(args[0]);
    PyBuffer_Release(&records);
    if (status != BITONIC_SUCCESS)
        return bitonic_py_raise(status);
    Py_RETURN_NONE;
}

/* search(ctx, sorted_keys, queries, out, right, key_type, descending): for
 * each query the lower bound (right false) or the upper bound, as int64. */
static PyObject *call_search(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    size_t bytes;
    bitonic_key_type key_type;
    bool right, descending;
    if (!count_args(nargs, 7, "search") || !flag_arg(args[4], &right) ||
        !key_type_arg(args[5], &key_type, &bytes) || !flag_arg(args[6], &descending))
        return NULL;
    Py_buffer keys, queries, out;
    if (!get_array(args[1], &keys, false, bytes, "sorted keys"))
        return NULL;
    if (!get_array(args[2], &queries, false, bytes, "queries")) {
        PyBuffer_Release(&keys);
        return NULL;
    }
    if (!get_array(args[3], &out, true, 8, "out")) {
        PyBuffer_Release(&keys);
        PyBuffer_Release(&queries);
        return NULL;
    }
    size_t count = (size_t)keys.len / bytes, query_count = (size_t)queries.len / bytes;
    uint32_t *bounds = NULL;
    bitonic_context *context = NULL;
    if ((size_t)out.len != query_count * 8)
        PyErr_SetString(PyExc_ValueError, "search: out must hold one int64 a query");
    else if (query_count > 0 && !(bounds = PyMem_RawMalloc(2 * query_count * sizeof *bounds)))
        PyErr_NoMemory();
    else
        context = bitonic_py_begin_call(args[0]);
    bitonic_status status = BITONIC_SUCCESS;
    if (context) {
        bitonic_sort_options options = options_of(key_type, descending, false);
        Py_BEGIN_ALLOW_THREADS
        status = bitonic_search_range(context, keys.buf, count, queries.buf, queries.buf, query_count, bounds,
                                      bounds + query_count, &options);
        if (status == BITONIC_SUCCESS) {
            const uint32_t *chosen = right ? bounds + query_count : bounds;
            int64_t *result = out.buf;
            for (size_t i = 0; i < query_count; ++i)
                result[i] = (int64_t)chosen[i];
        }
        Py_END_ALLOW_THREADS
        bitonic_py_end_call(args[0]);
    }
    PyMem_RawFree(bounds);
    PyBuffer_Release(&keys);
    PyBuffer_Release(&queries);
    PyBuffer_Release(&out);
    if (!context)
        return NULL;
    if (status != BITONIC_SUCCESS)
        return bitonic_py_raise(status);
    Py_RETURN_NONE;
}

static double seconds_now(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

/* c_sort_timings(ctx, keys, key_type, repeats): the seconds of each of repeats
 * calls of what bitonic.sort(keys) does in C (copy the keys into a buffer kept
 * across calls, bitonic_sort it), for the bench's overhead measure. */
static PyObject *call_c_sort_timings(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    size_t bytes, repeats;
    bitonic_key_type key_type;
    if (!count_args(nargs, 4, "c_sort_timings") || !key_type_arg(args[2], &key_type, &bytes) ||
        !size_arg(args[3], &repeats))
        return NULL;
    Py_buffer keys;
    if (!get_array(args[1], &keys, false, bytes, "keys"))
        return NULL;
    size_t count = (size_t)keys.len / bytes;
    double *seconds = PyMem_RawMalloc((repeats ? repeats : 1) * sizeof *seconds);
    void *work = PyMem_RawMalloc(keys.len ? (size_t)keys.len : 1);
    bitonic_context *context = seconds && work ? bitonic_py_begin_call(args[0]) : NULL;
    if (!seconds || !work)
        PyErr_NoMemory();
    bitonic_status status = BITONIC_SUCCESS;
    if (context) {
        bitonic_sort_options options = options_of(key_type, false, false);
        Py_BEGIN_ALLOW_THREADS
        for (size_t r = 0; r < repeats && status == BITONIC_SUCCESS; ++r) {
            double start = seconds_now();
            memcpy(work, keys.buf, (size_t)keys.len);
            status = bitonic_sort(context, work, count, &options);
            seconds[r] = seconds_now() - start;
        }
        Py_END_ALLOW_THREADS
        bitonic_py_end_call(args[0]);
    }
    PyObject *list = NULL;
    if (context && status == BITONIC_SUCCESS) {
        list = PyList_New((Py_ssize_t)repeats);
        for (size_t r = 0; list && r < repeats; ++r) {
            PyObject *value = PyFloat_FromDouble(seconds[r]);
            if (!value)
                Py_CLEAR(list);
            else
                PyList_SET_ITEM(list, (Py_ssize_t)r, value);
        }
    } else if (context) {
        bitonic_py_raise(status);
    }
    PyMem_RawFree(seconds);
    PyMem_RawFree(work);
    PyBuffer_Release(&keys);
    return list;
}

PyMethodDef bitonic_py_call_methods[] = {
    {"sort", (PyCFunction)(void (*)(void))call_sort, METH_FASTCALL,
     PyDoc_STR("sort(ctx, keys, row_length, key_type, descending): keys in place, in rows of row_length.")},
    {"argsort", (PyCFunction)(void (*)(void))call_argsort, METH_FASTCALL,
     PyDoc_STR("argsort(ctx, keys, out, row_length, key_type, descending): int64 indices of each row into out.")},
    {"sort_pairs", (PyCFunction)(void (*)(void))call_sort_pairs, METH_FASTCALL,
     PyDoc_STR("sort_pairs(ctx, keys, values, key_type, descending, stable): both in place.")},
    {"sort_records", (PyCFunction)(void (*)(void))call_sort_records, METH_FASTCALL,
     PyDoc_STR("sort_records(ctx, records, count, stride, key_offset, key_type, descending): in place.")},
    {"search", (PyCFunction)(void (*)(void))call_search, METH_FASTCALL,
     PyDoc_STR("search(ctx, sorted_keys, queries, out, right, key_type, descending): int64 bounds into out.")},
    {"c_sort_timings", (PyCFunction)(void (*)(void))call_c_sort_timings, METH_FASTCALL,
     PyDoc_STR("c_sort_timings(ctx, keys, key_type, repeats): seconds of each copy-and-sort call made from C.")},
    {"devices", bitonic_py_devices, METH_NOARGS,
     PyDoc_STR("devices(): the Vulkan devices the library sees (bitonic_list_devices), as dicts.")},
    {NULL, NULL, 0, NULL},
};
