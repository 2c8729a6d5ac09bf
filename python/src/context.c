/* context.c: the extension's Context type (one bitonic_context, with the log of
 * its validation messages) and HostBlock, a block of bitonic_host_alloc memory
 * that NumPy arrays from bitonic.empty() sit on. A block keeps its Context
 * alive, and a closed Context is destroyed only when no call is in flight and
 * no block is left, so no array ever points into freed memory. */
#include "bitonic_python.h"

#include <stdlib.h>
#include <string.h>

/* Longest message kept whole; the validation layer's are a few hundred bytes. */
#define BITONIC_PY_MESSAGE_BYTES 4096

static void log_message(void *user_data, const char *message)
{
    validation_log *log = user_data;
    pthread_mutex_lock(&log->lock);
    ++log->count;
    if (log->kept_count < BITONIC_PY_KEPT_MESSAGES) {
        size_t length = strnlen(message, BITONIC_PY_MESSAGE_BYTES - 1);
        char *copy = malloc(length + 1);
        if (copy) {
            memcpy(copy, message, length);
            copy[length] = 0;
            log->kept[log->kept_count++] = copy;
        }
    }
    pthread_mutex_unlock(&log->lock);
}

static void free_log(validation_log *log)
{
    if (!log)
        return;
    for (size_t i = 0; i < log->kept_count; ++i)
        free(log->kept[i]);
    pthread_mutex_destroy(&log->lock);
    PyMem_RawFree(log);
}

/* Destroys the library context once it is closed and nothing uses it. The
 * pointer is cleared with the GIL held, then the (possibly slow: a Vulkan
 * context writes its pipeline cache) destroy runs without it. */
static void destroy_when_unused(context_object *self)
{
    if (!self->closed || self->calls_in_flight > 0 || self->live_blocks > 0 || !self->context)
        return;
    bitonic_context *context = self->context;
    self->context = NULL;
    Py_BEGIN_ALLOW_THREADS
    bitonic_context_destroy(context);
    Py_END_ALLOW_THREADS
}

bitonic_context *bitonic_py_begin_call(PyObject *object)
{
    if (!PyObject_TypeCheck(object, &bitonic_py_context_type)) {
        PyErr_SetString(PyExc_TypeError, "ctx must be a bitonic.Context");
        return NULL;
    }
    context_object *self = (context_object *)object;
    if (self->closed || !self->context) {
        PyErr_SetString(PyExc_ValueError, "the bitonic.Context is closed");
        return NULL;
    }
    ++self->calls_in_flight;
    return self->context;
}

void bitonic_py_end_call(PyObject *object)
{
    context_object *self = (context_object *)object;
    --self->calls_in_flight;
    destroy_when_unused(self);
}

static int context_init(PyObject *object, PyObject *args, PyObject *kwargs)
{
    context_object *self = (context_object *)object;
    static char *keywords[] = {"device", "validation", "cpu_threads", "cache_directory", "no_disk_cache",
                               "crossover_keys", NULL};
    const char *device = NULL, *cache_directory = NULL;
    int validation = 0, no_disk_cache = 0;
    unsigned int cpu_threads = 0;
    unsigned long long crossover_keys = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|z$pIzpK:Context", keywords, &device, &validation, &cpu_threads,
                                     &cache_directory, &no_disk_cache, &crossover_keys))
        return -1;
    if (self->context || self->messages) {
        PyErr_SetString(PyExc_RuntimeError, "a bitonic.Context is initialised once");
        return -1;
    }
    self->messages = PyMem_RawCalloc(1, sizeof *self->messages);
    if (!self->messages) {
        PyErr_NoMemory();
        return -1;
    }
    pthread_mutex_init(&self->messages->lock, NULL);
    bitonic_context_desc desc = {
        .device = device,
        .validation = validation,
        .on_validation_message = validation ? log_message : NULL,
        .message_user_data = validation ? self->messages : NULL,
        .cpu_threads = cpu_threads,
        .cache_directory = cache_directory,
        .no_disk_cache = no_disk_cache,
        .crossover_keys = crossover_keys,
    };
    bitonic_context *context = NULL;
    bitonic_status status;
    Py_BEGIN_ALLOW_THREADS
    status = bitonic_context_create(&desc, &context);
    Py_END_ALLOW_THREADS
    if (status != BITONIC_SUCCESS) {
        bitonic_py_raise(status);
        return -1;
    }
    self->context = context;
    return 0;
}

static void context_dealloc(PyObject *object)
{
    context_object *self = (context_object *)object;
    if (self->weakrefs)
        PyObject_ClearWeakRefs(object);
    /* Nothing else holds the object, so no call is in flight and no block is left. */
    self->closed = true;
    destroy_when_unused(self);
    free_log(self->messages);
    Py_TYPE(object)->tp_free(object);
}

static PyObject *context_close(PyObject *object, PyObject *unused)
{
    (void)unused;
    context_object *self = (context_object *)object;
    self->closed = true;
    destroy_when_unused(self);
    Py_RETURN_NONE;
}

static PyObject *context_closed(PyObject *object, void *unused)
{
    (void)unused;
    return PyBool_FromLong(((context_object *)object)->closed);
}

static const char *backend_name(bitonic_backend backend)
{
    switch (backend) {
    case BITONIC_BACKEND_CPU: return "cpu";
    case BITONIC_BACKEND_VULKAN: return "vulkan";
    case BITONIC_BACKEND_GLES: return "gles";
    }
    return "unknown";
}

/* dict[field] = convert(info->field), for the info structs' fields kept under their own names. */
#define PUT_FIELD(field, convert) bitonic_py_put(dict, #field, convert(info->field))

static PyObject *info_dict(const bitonic_context_info *info)
{
    PyObject *dict = PyDict_New();
    bool vulkan = info->backend == BITONIC_BACKEND_VULKAN;
    bool ok = dict && bitonic_py_put(dict, "backend", PyUnicode_FromString(backend_name(info->backend))) &&
              bitonic_py_put(dict, "device", PyUnicode_FromString(info->device_name)) &&
              bitonic_py_put(dict, "vulkan_device_index",
                             vulkan ? PyLong_FromUnsignedLong(info->vulkan_device_index) : Py_NewRef(Py_None)) &&
              PUT_FIELD(vulkan_api_version, PyLong_FromUnsignedLong) &&
              PUT_FIELD(vulkan_device_type, PyLong_FromUnsignedLong) &&
              PUT_FIELD(subgroup_size, PyLong_FromUnsignedLong) &&
              PUT_FIELD(workgroup_size, PyLong_FromUnsignedLong) &&
              PUT_FIELD(keys_per_thread, PyLong_FromUnsignedLong) &&
              PUT_FIELD(tile_keys, PyLong_FromUnsignedLong) &&
              PUT_FIELD(tile_sort_keys_per_thread, PyLong_FromUnsignedLong) &&
              PUT_FIELD(max_strides_per_global_pass, PyLong_FromUnsignedLong) &&
              PUT_FIELD(tile_uses_subgroup_shuffle, PyBool_FromLong) &&
              PUT_FIELD(max_keys, PyLong_FromUnsignedLongLong) &&
              PUT_FIELD(device_addresses, PyBool_FromLong) &&
              PUT_FIELD(bound_max_keys, PyLong_FromUnsignedLongLong) &&
              PUT_FIELD(timestamp_period_ns, PyFloat_FromDouble) &&
              PUT_FIELD(validation_messages, PyLong_FromUnsignedLongLong) &&
              PUT_FIELD(last_vk_result, PyLong_FromLong) &&
              PUT_FIELD(gles_max_texture_size, PyLong_FromUnsignedLong) &&
              PUT_FIELD(gles_timer_query, PyBool_FromLong) &&
              PUT_FIELD(pipeline_cache_path, PyUnicode_DecodeFSDefault) &&
              PUT_FIELD(pipeline_cache_loaded_bytes, PyLong_FromUnsignedLongLong) &&
              PUT_FIELD(cache_directory, PyUnicode_DecodeFSDefault) &&
              PUT_FIELD(crossover_keys, PyLong_FromUnsignedLongLong);
#undef PUT_FIELD
    if (!ok) {
        Py_XDECREF(dict);
        return NULL;
    }
    return dict;
}

static PyObject *context_info(PyObject *object, PyObject *unused)
{
    (void)unused;
    bitonic_context *context = bitonic_py_begin_call(object);
    if (!context)
        return NULL;
    bitonic_context_info info;
    bitonic_status status;
    Py_BEGIN_ALLOW_THREADS
    status = bitonic_context_get_info(context, &info);
    Py_END_ALLOW_THREADS
    bitonic_py_end_call(object);
    return status == BITONIC_SUCCESS ? info_dict(&info) : bitonic_py_raise(status);
}

static PyObject *context_last_timing(PyObject *object, PyObject *unused)
{
    (void)unused;
    bitonic_context *context = bitonic_py_begin_call(object);
    if (!context)
        return NULL;
    bitonic_host_timing timing;
    bitonic_status status;
    Py_BEGIN_ALLOW_THREADS
    status = bitonic_context_last_host_timing(context, &timing);
    Py_END_ALLOW_THREADS
    bitonic_py_end_call(object);
    if (status != BITONIC_SUCCESS)
        Py_RETURN_NONE;
    PyObject *dict = PyDict_New();
    bool ok = dict && bitonic_py_put(dict, "ran_on", PyUnicode_FromString(backend_name(timing.ran_on))) &&
              bitonic_py_put(dict, "count", PyLong_FromSize_t(timing.count)) &&
              bitonic_py_put(dict, "imported", PyBool_FromLong(timing.imported)) &&
              bitonic_py_put(dict, "pinned", PyBool_FromLong(timing.pinned)) &&
              bitonic_py_put(dict, "total_ms", PyFloat_FromDouble(timing.total_ms)) &&
              bitonic_py_put(dict, "prepare_ms", PyFloat_FromDouble(timing.prepare_ms)) &&
              bitonic_py_put(dict, "upload_ms", PyFloat_FromDouble(timing.upload_ms)) &&
              bitonic_py_put(dict, "sort_ms", PyFloat_FromDouble(timing.sort_ms)) &&
              bitonic_py_put(dict, "download_ms", PyFloat_FromDouble(timing.download_ms)) &&
              bitonic_py_put(dict, "finish_ms", PyFloat_FromDouble(timing.finish_ms)) &&
              bitonic_py_put(dict, "chunks", PyLong_FromUnsignedLong(timing.chunks));
    if (!ok) {
        Py_XDECREF(dict);
        return NULL;
    }
    return dict;
}

static PyObject *context_validation_messages(PyObject *object, PyObject *unused)
{
    (void)unused;
    validation_log *log = ((context_object *)object)->messages;
    PyObject *list = PyList_New(0);
    if (!list || !log)
        return list;
    /* Copy out under the lock; build Python strings after it. */
    char *kept[BITONIC_PY_KEPT_MESSAGES];
    size_t kept_count = 0;
    uint64_t count;
    pthread_mutex_lock(&log->lock);
    count = log->count;
    for (size_t i = 0; i < log->kept_count; ++i) {
        kept[kept_count] = strdup(log->kept[i]);
        kept_count += kept[kept_count] != NULL;
    }
    pthread_mutex_unlock(&log->lock);
    bool ok = true;
    for (size_t i = 0; i < kept_count; ++i) {
        PyObject *text = ok ? PyUnicode_DecodeUTF8(kept[i], (Py_ssize_t)strlen(kept[i]), "replace") : NULL;
        ok = text && PyList_Append(list, text) == 0;
        Py_XDECREF(text);
        free(kept[i]);
    }
    if (ok && count > kept_count) {
        PyObject *more = PyUnicode_FromFormat("(and %llu more)", (unsigned long long)(count - kept_count));
        ok = more && PyList_Append(list, more) == 0;
        Py_XDECREF(more);
    }
    if (!ok) {
        Py_DECREF(list);
        return NULL;
    }
    return list;
}

/* HostBlock: bitonic_host_alloc memory exported through the buffer protocol. */
typedef struct host_block_object {
    PyObject_HEAD
    PyObject *owner;                 /* the context_object the block came from */
    void *memory;
    Py_ssize_t bytes;
} host_block_object;

static PyObject *context_host_alloc(PyObject *object, PyObject *arg)
{
    Py_ssize_t bytes = PyLong_AsSsize_t(arg);
    if (bytes < 0) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "a block takes a size of at least 0 bytes");
        return NULL;
    }
    host_block_object *block = PyObject_New(host_block_object, &bitonic_py_host_block_type);
    if (!block)
        return NULL;
    block->owner = NULL;
    block->memory = NULL;
    block->bytes = bytes;
    bitonic_context *context = bitonic_py_begin_call(object);
    if (!context) {
        Py_DECREF(block);
        return NULL;
    }
    void *memory = NULL;
    bitonic_status status;
    size_t asked = bytes > 0 ? (size_t)bytes : 64;   /* the library takes no empty block */
    Py_BEGIN_ALLOW_THREADS
    status = bitonic_host_alloc(context, asked, &memory);
    Py_END_ALLOW_THREADS
    if (status == BITONIC_SUCCESS) {
        block->memory = memory;
        block->owner = Py_NewRef(object);
        ++((context_object *)object)->live_blocks;
    }
    bitonic_py_end_call(object);
    if (status != BITONIC_SUCCESS) {
        Py_DECREF(block);
        return bitonic_py_raise(status);
    }
    return (PyObject *)block;
}

static void host_block_dealloc(PyObject *object)
{
    host_block_object *block = (host_block_object *)object;
    if (block->owner) {
        context_object *owner = (context_object *)block->owner;
        /* Without the GIL: the free takes the context's lock, which a sort on
         * another thread may hold for a while. */
        bitonic_context *context = owner->context;
        void *memory = block->memory;
        Py_BEGIN_ALLOW_THREADS
        bitonic_host_free(context, memory);
        Py_END_ALLOW_THREADS
        --owner->live_blocks;
        destroy_when_unused(owner);
        Py_DECREF(block->owner);
    }
    PyObject_Free(object);
}

static int host_block_get_buffer(PyObject *object, Py_buffer *view, int flags)
{
    host_block_object *block = (host_block_object *)object;
    return PyBuffer_FillInfo(view, object, block->memory, block->bytes, 0, flags);
}

static PyBufferProcs host_block_buffer = {.bf_getbuffer = host_block_get_buffer};

PyTypeObject bitonic_py_host_block_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "bitonic._bitonic.HostBlock",
    .tp_doc = PyDoc_STR("Host memory of bitonic_host_alloc, freed when the last array on it is gone."),
    .tp_basicsize = sizeof(host_block_object),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_dealloc = host_block_dealloc,
    .tp_as_buffer = &host_block_buffer,
};

static PyMethodDef context_methods[] = {
    {"close", context_close, METH_NOARGS,
     PyDoc_STR("close()\n--\n\nClose the context. Calls after it raise ValueError; the library context is "
               "destroyed once running calls have returned and arrays of its host memory are gone.")},
    {"info", context_info, METH_NOARGS,
     PyDoc_STR("info()\n--\n\nThe context's bitonic_context_info as a dict: backend, device, subgroup_size, "
               "tile_keys, max_keys, validation_messages and the rest (docs/API.md).")},
    {"last_timing", context_last_timing, METH_NOARGS,
     PyDoc_STR("last_timing()\n--\n\nWhere the last host sort ran and what its stages took "
               "(bitonic_context_last_host_timing) as a dict, or None before the first.")},
    {"validation_messages", context_validation_messages, METH_NOARGS,
     PyDoc_STR("validation_messages()\n--\n\nThe validation layer's messages so far (the first 16 whole, then "
               "a count); empty unless the context was made with validation=True.")},
    {"_host_alloc", context_host_alloc, METH_O, PyDoc_STR("A HostBlock of the given size in bytes.")},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef context_getset[] = {
    {"closed", context_closed, NULL, PyDoc_STR("True once close() was called."), NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject bitonic_py_context_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "bitonic._bitonic.Context",
    .tp_doc = PyDoc_STR("One bitonic_context: a device (Vulkan, GLES) or the CPU path."),
    .tp_basicsize = sizeof(context_object),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_new = PyType_GenericNew,
    .tp_init = context_init,
    .tp_dealloc = context_dealloc,
    .tp_methods = context_methods,
    .tp_getset = context_getset,
    .tp_weaklistoffset = offsetof(context_object, weakrefs),
};
