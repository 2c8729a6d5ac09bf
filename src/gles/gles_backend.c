/* gles_backend.c: the GLES backend's host layer and table of operations
 * (backend.h). It makes a headless OpenGL ES 3 context of its own through EGL
 * (the surfaceless Mesa platform, then the EGL device platform, then the
 * default display), and sorts host arrays by uploading them into an integer
 * texture, running the network of gles_sorter.c and reading the texels back.
 * Every call makes the library's context current and puts back whatever context
 * the calling thread had, so it can sit beside a caller's own GL code. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "bitonic_tuning_overrides.h"
#include "backend.h"
#include "context_backend.h"  /* bitonic_gles_sort_records: the caller's context's state, if it is ours */
#include "host_buffer.h"
#include "gles_internal.h"

/* GL_EXT_disjoint_timer_query, from its specification (GLES2/gl2ext.h does not
 * build beside GLES3/gl3.h). */
#define GL_TIME_ELAPSED_EXT 0x88BF
#define GL_GPU_DISJOINT_EXT 0x8FBB
typedef void(GL_APIENTRYP PFNGLGETQUERYOBJECTUI64VEXTPROC)(GLuint id, GLenum pname, GLuint64 *params);

typedef struct gles_state {
    bitonic_egl egl;                 /* loaded at creation; GL's entry points are the sorter's */
    EGLDisplay display;
    EGLContext context;
    EGLSurface surface;              /* EGL_NO_SURFACE with EGL_KHR_surfaceless_context, else a 1x1 pbuffer */
    bitonic_gles_sorter *sorter;
    bitonic_gles_layout layout;
    uint32_t max_size;
    /* GL_EXT_disjoint_timer_query: time the draws on the GPU. */
    bool timer_query;
    GLuint query;
    PFNGLGETQUERYOBJECTUI64VEXTPROC get_query_u64;
    char name[256];
    bitonic_gles_host_textures host;  /* the ping-pong textures of host sorts */
} gles_state;

/* A resident buffer is host words (host_buffer.h), sorted through a texture on
 * each sort: the texel format depends on the sort's key type and values, known
 * only then. */

/* A first timed sort, so a timer query that measures something else is found
 * (timed_network turns it off) before anyone reads the context's info. */
static bitonic_status calibrate_timer(gles_state *gles);

/* The calling thread's current EGL context, put back after each call. */
typedef struct current_context {
    EGLDisplay display;
    EGLSurface draw, read;
    EGLContext context;
} current_context;

static bool make_current(const gles_state *gles, current_context *previous)
{
    const bitonic_egl *egl = &gles->egl;
    previous->display = egl->eglGetCurrentDisplay();
    previous->draw = egl->eglGetCurrentSurface(EGL_DRAW);
    previous->read = egl->eglGetCurrentSurface(EGL_READ);
    previous->context = egl->eglGetCurrentContext();
    return egl->eglMakeCurrent(gles->display, gles->surface, gles->surface, gles->context) == EGL_TRUE;
}

static void restore_current(const gles_state *gles, const current_context *previous)
{
    const bitonic_egl *egl = &gles->egl;
    if (previous->context != EGL_NO_CONTEXT)
        egl->eglMakeCurrent(previous->display, previous->draw, previous->read, previous->context);
    else
        egl->eglMakeCurrent(gles->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
}

static bool has_extension(const char *list, const char *name)
{
    size_t length = strlen(name);
    for (const char *at = list ? strstr(list, name) : NULL; at; at = strstr(at + length, name))
        if ((at == list || at[-1] == ' ') && (at[length] == ' ' || at[length] == '\0'))
            return true;
    return false;
}

/* An ES 3 context on display, current on this thread. UNSUPPORTED when the
 * display offers no ES 3 config or context; GLES_UNAVAILABLE when it does not
 * initialise. */
static bitonic_status open_display(gles_state *gles, EGLDisplay display)
{
    const bitonic_egl *egl = &gles->egl;
    EGLint major = 0, minor = 0;
    if (display == EGL_NO_DISPLAY || !egl->eglInitialize(display, &major, &minor))
        return BITONIC_ERROR_GLES_UNAVAILABLE;
    /* The display is never terminated: EGL displays are per process, and
     * terminating one would pull the contexts of every other user of it. */
    if (!egl->eglBindAPI(EGL_OPENGL_ES_API))
        return BITONIC_ERROR_UNSUPPORTED;
    const EGLint pbuffer_attributes[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_ES3_BIT, EGL_SURFACE_TYPE, EGL_PBUFFER_BIT,
                                         EGL_NONE};
    const EGLint any_attributes[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_ES3_BIT, EGL_SURFACE_TYPE, 0, EGL_NONE};
    EGLConfig config;
    EGLint config_count = 0;
    bool pbuffer = egl->eglChooseConfig(display, pbuffer_attributes, &config, 1, &config_count) && config_count > 0;
    if (!pbuffer && !(egl->eglChooseConfig(display, any_attributes, &config, 1, &config_count) && config_count > 0))
        return BITONIC_ERROR_UNSUPPORTED;
    const EGLint context_attributes[] = {EGL_CONTEXT_CLIENT_VERSION, 3, EGL_NONE};
    EGLContext context = egl->eglCreateContext(display, config, EGL_NO_CONTEXT, context_attributes);
    if (context == EGL_NO_CONTEXT)
        return BITONIC_ERROR_UNSUPPORTED;
    EGLSurface surface = EGL_NO_SURFACE;
    if (!has_extension(egl->eglQueryString(display, EGL_EXTENSIONS), "EGL_KHR_surfaceless_context")) {
        const EGLint size[] = {EGL_WIDTH, 1, EGL_HEIGHT, 1, EGL_NONE};
        surface = pbuffer ? egl->eglCreatePbufferSurface(display, config, size) : EGL_NO_SURFACE;
        if (surface == EGL_NO_SURFACE) {
            egl->eglDestroyContext(display, context);
            return BITONIC_ERROR_UNSUPPORTED;
        }
    }
    if (!egl->eglMakeCurrent(display, surface, surface, context)) {
        if (surface != EGL_NO_SURFACE)
            egl->eglDestroySurface(display, surface);
        egl->eglDestroyContext(display, context);
        return BITONIC_ERROR_UNSUPPORTED;
    }
    gles->display = display;
    gles->context = context;
    gles->surface = surface;
    return BITONIC_SUCCESS;
}

/* Tries the platforms in order; the first display that gives an ES 3 context
 * wins. A later failure does not hide an earlier, more telling one. */
static bitonic_status open_any_display(gles_state *gles)
{
    const bitonic_egl *egl = &gles->egl;
    const char *client = egl->eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    PFNEGLGETPLATFORMDISPLAYEXTPROC get_platform_display =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)egl->eglGetProcAddress("eglGetPlatformDisplayEXT");
    bitonic_status status = BITONIC_ERROR_GLES_UNAVAILABLE, tried;
    if (get_platform_display && has_extension(client, "EGL_MESA_platform_surfaceless")) {
        tried = open_display(gles, get_platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL));
        if (tried == BITONIC_SUCCESS)
            return tried;
        status = status == BITONIC_ERROR_GLES_UNAVAILABLE ? tried : status;
    }
    PFNEGLQUERYDEVICESEXTPROC query_devices = (PFNEGLQUERYDEVICESEXTPROC)egl->eglGetProcAddress("eglQueryDevicesEXT");
    if (get_platform_display && query_devices && has_extension(client, "EGL_EXT_platform_device")) {
        EGLDeviceEXT devices[16];
        EGLint device_count = 0;
        if (query_devices(16, devices, &device_count)) {
            for (EGLint d = 0; d < device_count; ++d) {
                tried = open_display(gles, get_platform_display(EGL_PLATFORM_DEVICE_EXT, devices[d], NULL));
                if (tried == BITONIC_SUCCESS)
                    return tried;
                status = status == BITONIC_ERROR_GLES_UNAVAILABLE ? tried : status;
            }
        }
    }
    tried = open_display(gles, egl->eglGetDisplay(EGL_DEFAULT_DISPLAY));
    if (tried == BITONIC_SUCCESS)
        return tried;
    return status == BITONIC_ERROR_GLES_UNAVAILABLE ? tried : status;
}

static void gles_destroy(void *opaque)
{
    gles_state *gles = opaque;
    const bitonic_egl *egl = &gles->egl;
    if (gles->context != EGL_NO_CONTEXT) {
        current_context previous;
        if (make_current(gles, &previous) && gles->sorter) {
            const bitonic_gl *gl = bitonic_gles_sorter_gl(gles->sorter);
            bitonic_gles_host_textures_destroy(gl, &gles->host);
            if (gles->query)
                gl->glDeleteQueries(1, &gles->query);
            bitonic_gles_sorter_destroy(gles->sorter);
        }
        restore_current(gles, &previous);
        if (gles->surface != EGL_NO_SURFACE)
            egl->eglDestroySurface(gles->display, gles->surface);
        egl->eglDestroyContext(gles->display, gles->context);
    }
    bitonic_egl_unload(&gles->egl);
    free(gles);
}

static bool gles_accepts(const bitonic_selector *selector)
{
    return selector->kind == BITONIC_SELECT_NAME && strcasecmp(selector->name, "gles") == 0;
}

static bitonic_status gles_create(const bitonic_context_desc *desc, const bitonic_selector *selector, void **out_state)
{
    if (desc->gles_layout > BITONIC_GLES_LAYOUT_2D)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    gles_state *gles = calloc(1, sizeof *gles);
    if (!gles)
        return BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    gles->display = EGL_NO_DISPLAY;
    gles->context = EGL_NO_CONTEXT;
    gles->surface = EGL_NO_SURFACE;
    gles->layout = (bitonic_gles_layout)desc->gles_layout;
    bitonic_status status = bitonic_egl_load(&gles->egl);
    if (status != BITONIC_SUCCESS) {
        free(gles);
        return status;
    }
    const bitonic_egl *egl = &gles->egl;
    current_context previous = {egl->eglGetCurrentDisplay(), egl->eglGetCurrentSurface(EGL_DRAW),
                                egl->eglGetCurrentSurface(EGL_READ), egl->eglGetCurrentContext()};
    /* The tuning override of steps per global pass is the steps per draw here, clamped as elsewhere. */
    uint32_t steps_override = bitonic_tuning_overrides_find(desc->next)->max_strides_per_global_pass;
    uint32_t steps_per_draw =
        steps_override < BITONIC_GLES_MAX_STEPS_PER_DRAW ? steps_override : BITONIC_GLES_MAX_STEPS_PER_DRAW;
    status = open_any_display(gles);
    if (status == BITONIC_SUCCESS)
        status = bitonic_gles_sorter_create(&(bitonic_gles_sorter_desc){.check_every_pass = desc->validation,
                                                                        .steps_per_draw = steps_per_draw},
                                            &gles->sorter);
    if (status == BITONIC_SUCCESS) {
        const bitonic_gl *gl = bitonic_gles_sorter_gl(gles->sorter);
        gles->max_size = bitonic_gles_sorter_max_size(gles->sorter);
        snprintf(gles->name, sizeof gles->name, "%s (%s)", (const char *)gl->glGetString(GL_RENDERER),
                 (const char *)gl->glGetString(GL_VERSION));
        const char *extensions = (const char *)gl->glGetString(GL_EXTENSIONS);
        gles->get_query_u64 = (PFNGLGETQUERYOBJECTUI64VEXTPROC)egl->eglGetProcAddress("glGetQueryObjectui64vEXT");
        gles->timer_query = has_extension(extensions, "GL_EXT_disjoint_timer_query") && gles->get_query_u64;
        if (gles->timer_query)
            gl->glGenQueries(1, &gles->query);
        status = bitonic_gles_host_textures_create(gl, &gles->host);
    }
    if (status == BITONIC_SUCCESS && gles->timer_query)
        status = calibrate_timer(gles);
    if (gles->context != EGL_NO_CONTEXT)
        restore_current(gles, &previous);
    if (status != BITONIC_SUCCESS) {
        gles_destroy(gles);
        return status;
    }
    *out_state = gles;
    return BITONIC_SUCCESS;
}

static void gles_fill_info(const void *opaque, bitonic_context_info *info)
{
    const gles_state *gles = opaque;
    snprintf(info->device_name, sizeof info->device_name, "%s", gles->name);
    info->vulkan_device_index = UINT32_MAX;
    info->max_keys = (uint64_t)gles->max_size * gles->max_size;
    info->gles_max_texture_size = gles->max_size;
    info->gles_timer_query = gles->timer_query;
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* Runs the network on the uploaded texels and times the draws alone. */
static bitonic_status timed_network(gles_state *gles, const bitonic_gles_sort_info *info, bool *in_other,
                                    bitonic_timing *timing)
{
    const bitonic_gl *gl = bitonic_gles_sorter_gl(gles->sorter);
    bitonic_gles_sort_result result;
    if (!timing)
        return bitonic_gles_run_network(gles->sorter, info, gles->host.textures[1], in_other, &result);
    gl->glFinish();  /* the upload is not part of the sort's time */
    double start = now_ms();
    if (gles->timer_query) {
        gl->glGetIntegerv(GL_GPU_DISJOINT_EXT, &(GLint){0});  /* clears the disjoint flag */
        gl->glBeginQuery(GL_TIME_ELAPSED_EXT, gles->query);
    }
    bitonic_status status = bitonic_gles_run_network(gles->sorter, info, gles->host.textures[1], in_other, &result);
    if (gles->timer_query)
        gl->glEndQuery(GL_TIME_ELAPSED_EXT);
    gl->glFinish();
    double wall_ms = now_ms() - start;
    GLint disjoint = 0;
    GLuint64 elapsed_ns = 0;
    if (gles->timer_query) {
        gles->get_query_u64(gles->query, GL_QUERY_RESULT, &elapsed_ns);
        gl->glGetIntegerv(GL_GPU_DISJOINT_EXT, &disjoint);
    }
    /* A disjoint period (a clock change, a context switch) spoils the query:
     * the wall time of that run stands in for it. A query longer than the wall
     * time around it is no elapsed time at all (llvmpipe in Mesa 22 answers
     * with a timestamp): the driver's timer is not used again. */
    double query_ms = (double)elapsed_ns * 1e-6;
    if (gles->timer_query && !disjoint && query_ms > wall_ms * 1.01 + 0.01)
        gles->timer_query = false;
    timing->sort_ms = gles->timer_query && !disjoint ? query_ms : wall_ms;
    timing->pass_count = result.draws;
    if (timing->pass_ms && timing->pass_capacity > 0)
        timing->pass_ms[0] = timing->sort_ms;  /* one time for all draws: they are not timed one by one */
    if (timing->pass_details && timing->pass_capacity > 0)
        timing->pass_details[0] = (bitonic_pass_detail){"draws", 0};
    if (status == BITONIC_SUCCESS && gl->glGetError() != GL_NO_ERROR)
        status = BITONIC_ERROR_GL;
    return status;
}

/* One sort of packed texels in host memory, in the library's context. */
static bitonic_status sort_texels(gles_state *gles, uint32_t *texels, uint32_t count,
                                  const bitonic_gles_sort_info *shape, bitonic_timing *timing)
{
    if (timing)
        bitonic_timing_reset(timing, 0);
    if (count <= 1)
        return BITONIC_SUCCESS;
    bitonic_gles_sort_info info = *shape;
    info.count = count;
    bitonic_status status = bitonic_gles_texture_size(count, gles->layout, gles->max_size, &info.width, &info.height);
    if (status != BITONIC_SUCCESS)
        return status;
    current_context previous;
    if (!make_current(gles, &previous))
        return BITONIC_ERROR_GLES_UNAVAILABLE;
    const bitonic_gl *gl = bitonic_gles_sorter_gl(gles->sorter);
    status = bitonic_gles_host_upload(gl, &gles->host, &info, texels);
    bool in_other = false;
    if (status == BITONIC_SUCCESS)
        status = timed_network(gles, &info, &in_other, timing);
    if (status == BITONIC_SUCCESS)
        status = bitonic_gles_host_download(gl, &gles->host, &info, in_other, texels);
    restore_current(gles, &previous);
    return status;
}

/* Keys, or keys with values interleaved into pairs, sorted as texels. */
static bitonic_status sort_array(gles_state *gles, void *keys, uint32_t *values, size_t count,
                                 const bitonic_sort_request *request, bitonic_timing *timing)
{
    if (count > UINT32_MAX)
        return BITONIC_ERROR_TOO_LARGE;
    bitonic_gles_sort_info shape = {.texels = values ? BITONIC_GLES_TEXELS_PAIRS : BITONIC_GLES_TEXELS_KEYS,
                                    .key_type = request->key_type, .order = request->order};
    if (!values)  /* keys already are texels: one or two words each */
        return sort_texels(gles, keys, (uint32_t)count, &shape, timing);
    size_t key_words = bitonic_key_words(request->key_type);
    uint32_t words = bitonic_gles_texel_words(shape.texels, shape.key_type);
    uint32_t *texels = calloc(count, words * sizeof *texels);
    if (!texels)
        return BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    const uint32_t *key_words_in = keys;
    for (size_t i = 0; i < count; ++i) {
        memcpy(texels + i * words, key_words_in + i * key_words, key_words * sizeof *texels);
        texels[i * words + key_words] = values[i];
    }
    bitonic_status status = sort_texels(gles, texels, (uint32_t)count, &shape, timing);
    if (status == BITONIC_SUCCESS) {
        uint32_t *key_words_out = keys;
        for (size_t i = 0; i < count; ++i) {
            memcpy(key_words_out + i * key_words, texels + i * words, key_words * sizeof *texels);
            values[i] = texels[i * words + key_words];
        }
    }
    free(texels);
    return status;
}

static bitonic_status calibrate_timer(gles_state *gles)
{
    uint32_t keys[1024];
    for (uint32_t i = 0; i < 1024; ++i)
        keys[i] = (i * 2654435761u) ^ 0x5bd1e995u;
    bitonic_gles_sort_info shape = {.texels = BITONIC_GLES_TEXELS_KEYS};
    bitonic_timing timing = {0};
    bitonic_status status = BITONIC_SUCCESS;
    for (int run = 0; run < 2 && status == BITONIC_SUCCESS && gles->timer_query; ++run)
        status = sort_texels(gles, keys, 1024, &shape, &timing);
    return status;
}

static bitonic_status gles_sort_host(void *opaque, void *keys, uint32_t *values, size_t count,
                                     const bitonic_sort_request *request, bitonic_timing *timing,
                                     bitonic_host_timing *stages)
{
    (void)stages;  /* the draws are timed as a whole */
    gles_state *gles = opaque;
    if (!request->row_length)
        return sort_array(gles, keys, values, count, request, timing);
    /* Rows one by one (the backend does not batch them); their times add up. */
    size_t row_length = request->row_length, row_bytes = row_length * bitonic_key_words(request->key_type) * 4u;
    bitonic_sort_request row_request = *request;
    row_request.row_length = 0;
    bitonic_timing total = {0}, row_timing = {0};
    bitonic_status status = BITONIC_SUCCESS;
    for (size_t row = 0; row < count / row_length && status == BITONIC_SUCCESS; ++row) {
        status = sort_array(gles, (unsigned char *)keys + row * row_bytes, values ? values + row * row_length : NULL,
                            row_length, &row_request, timing ? &row_timing : NULL);
        total.sort_ms += row_timing.sort_ms;
        total.pass_count += row_timing.pass_count;
    }
    if (timing) {
        timing->sort_ms = total.sort_ms;
        timing->pass_count = total.pass_count;
    }
    return status;
}

/* bitonic_gles_sort_records past the context check, under the context's lock. */
static bitonic_status sort_records(gles_state *gles, uint32_t *records, size_t count, uint32_t component,
                                   const bitonic_sort_options *options, bitonic_timing *timing)
{
    bitonic_gles_sort_info shape = {.texels = BITONIC_GLES_TEXELS_RECORDS, .record_component = component};
    if (options) {
        shape.key_type = options->key_type;
        shape.order = options->order;
    }
    if (component > 3u || (unsigned)shape.key_type > BITONIC_KEY_F32 ||
        (shape.order != BITONIC_ORDER_ASCENDING && shape.order != BITONIC_ORDER_DESCENDING))
        return BITONIC_ERROR_INVALID_ARGUMENT;
    if (count > UINT32_MAX)
        return BITONIC_ERROR_TOO_LARGE;
    if ((uintptr_t)records % sizeof *records != 0)
        return BITONIC_ERROR_INVALID_ARGUMENT;  /* natural alignment, as every call (bitonic.h) */
    return sort_texels(gles, records, (uint32_t)count, &shape, timing);
}

bitonic_status bitonic_gles_sort_records(bitonic_context *context, uint32_t *records, size_t count,
                                         uint32_t component, const bitonic_sort_options *options,
                                         bitonic_timing *timing)
{
    if (!context || (!records && count > 0))
        return BITONIC_ERROR_INVALID_ARGUMENT;
    gles_state *gles = bitonic_context_lock_backend(context, &bitonic_gles_backend);
    if (!gles)
        return BITONIC_ERROR_UNSUPPORTED;
    bitonic_status status = sort_records(gles, records, count, component, options, timing);
    bitonic_context_unlock_backend(context);
    return status;
}

static bitonic_status gles_buffer_sort(void *opaque, void *buffer_state, size_t count, bool with_values,
                                       const bitonic_sort_request *request, bitonic_timing *timing)
{
    bitonic_host_buffer *buffer = buffer_state;
    bitonic_status status = with_values ? bitonic_host_buffer_values(buffer) : BITONIC_SUCCESS;
    if (status != BITONIC_SUCCESS)
        return status;
    return gles_sort_host(opaque, buffer->keys, with_values ? buffer->values : NULL, count, request, timing, NULL);
}

const bitonic_backend_ops bitonic_gles_backend = {
    .kind = BITONIC_BACKEND_GLES,
    .accepts = gles_accepts,
    .create = gles_create,
    .destroy = gles_destroy,
    .fill_info = gles_fill_info,
    .pipeline_report = NULL,
    .sort_host = gles_sort_host,
    .batched_rows = false,
    .search_host = NULL,  /* no range search in fragment passes: the core runs it on the CPU path */
    .buffer_create = bitonic_host_buffer_create,
    .buffer_destroy = bitonic_host_buffer_destroy,
    .buffer_upload = bitonic_host_buffer_upload,
    .buffer_download = bitonic_host_buffer_download,
    .buffer_upload_values = bitonic_host_buffer_upload_values,
    .buffer_download_values = bitonic_host_buffer_download_values,
    .buffer_sort = gles_buffer_sort,
};
