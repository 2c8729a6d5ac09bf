/* test_gles.c: the OpenGL ES fragment-shader backend on whatever EGL gives
 * (Mesa llvmpipe through the surfaceless platform in CI), against the CPU
 * backend and a C reference: every n from 0 to 300 and the neighbours of
 * powers of two, all six key types, both orders, pairs, RGBA records by each
 * component and type, both texture layouts; the interop call in an EGL context
 * the test makes itself, with the GL state around it checked; the error
 * statuses. Contexts run with validation, so a GL error after any draw fails
 * the sort, and the test checks glGetError itself after the interop calls. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include <EGL/egl.h>
#include <EGL/eglext.h>

#include "bitonic.h"
#include "bitonic_gles.h"
#include "bitonic_tuning_overrides.h"
#include "key_transform.h"
#include "test_util.h"

static const uint32_t special_f32[] = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u,
                                       0xffc00000u, 0x7f800001u, 0xffffffffu, 0x00000001u, 0x80000001u,
                                       0x3f800000u, 0xbf800000u};
static const uint64_t special_f64[] = {0, 0x8000000000000000ull, 0x7ff0000000000000ull, 0xfff0000000000000ull,
                                       0x7ff8000000000000ull, 0xfff8000000000000ull, 0x7ff0000000000001ull,
                                       0xffffffffffffffffull, 1, 0x8000000000000001ull, 0x3ff0000000000000ull,
                                       0xfff0000000000001ull, 0x00000000ffffffffull, 0x80000000ffffffffull};

/* Keys with duplicates and, for floats, the special values. */
static void fill_keys(void *keys, size_t count, bitonic_key_type type, uint64_t *seed)
{
    for (size_t i = 0; i < count; ++i) {
        uint64_t r = test_random_u64(seed), bits = test_random_u64(seed);
        if (r % 4 == 0)
            bits %= 7;  /* duplicates */
        if (type >= BITONIC_KEY_U64) {
            if (type == BITONIC_KEY_F64 && r % 5 == 1)
                bits = special_f64[(r >> 8) % (sizeof special_f64 / sizeof special_f64[0])];
            ((uint64_t *)keys)[i] = bits;
        } else {
            uint32_t word = (uint32_t)bits;
            if (type == BITONIC_KEY_F32 && r % 5 == 1)
                word = special_f32[(r >> 8) % (sizeof special_f32 / sizeof special_f32[0])];
            ((uint32_t *)keys)[i] = word;
        }
    }
}

static size_t key_bytes(bitonic_key_type type)
{
    return type >= BITONIC_KEY_U64 ? 8u : 4u;
}

static const char *type_name(bitonic_key_type type)
{
    static const char *names[] = {"u32", "i32", "f32", "u64", "i64", "f64"};
    return names[type];
}

/* GLES contexts: by layout (auto, 1D, 2D) at one step per draw, then the
 * multi-step forms: 2 steps per draw in one row, 3 steps per draw in rows. */
enum { GLES_AUTO, GLES_1D, GLES_2D, GLES_1D_2STEPS, GLES_2D_3STEPS, GLES_CONTEXTS };
static const uint32_t context_layout[GLES_CONTEXTS] = {0, 1, 2, 1, 2};
static const uint32_t context_steps[GLES_CONTEXTS] = {1, 1, 1, 2, 3};

typedef struct fixture {
    bitonic_context *cpu;
    bitonic_context *gles[GLES_CONTEXTS];
} fixture;

/* One array of keys, and keys with values, on a GLES context against the CPU. */
static bool check_keys(test_counter *t, fixture *f, int layout, size_t n, bitonic_key_type type, bitonic_order order,
                       uint64_t *seed)
{
    size_t bytes = key_bytes(type);
    unsigned char *keys = malloc(n * bytes + 8), *expected = malloc(n * bytes + 8);
    uint32_t *values = malloc(n * 4 + 4), *expected_values = malloc(n * 4 + 4);
    fill_keys(keys, n, type, seed);
    for (size_t i = 0; i < n; ++i)
        values[i] = (uint32_t)test_random_u64(seed) % 5u;  /* equal pairs too */
    memcpy(expected, keys, n * bytes);
    memcpy(expected_values, values, n * 4);
    bitonic_sort_options options = {.order = order, .key_type = type};
    bitonic_status status = bitonic_sort(f->gles[layout], keys, n, &options);
    bitonic_status reference = bitonic_sort(f->cpu, expected, n, &options);
    bool ok = TEST_CHECK(t, status == BITONIC_SUCCESS && reference == BITONIC_SUCCESS &&
                                memcmp(keys, expected, n * bytes) == 0,
                         "keys: layout %d n %zu %s %s: %s", layout, n, type_name(type),
                         order ? "descending" : "ascending", bitonic_status_string(status));
    fill_keys(keys, n, type, seed);
    memcpy(expected, keys, n * bytes);
    status = bitonic_sort_pairs(f->gles[layout], keys, values, n, &options);
    reference = bitonic_sort_pairs(f->cpu, expected, expected_values, n, &options);
    ok &= TEST_CHECK(t, status == BITONIC_SUCCESS && reference == BITONIC_SUCCESS &&
                            memcmp(keys, expected, n * bytes) == 0 && memcmp(values, expected_values, n * 4) == 0,
                     "pairs: layout %d n %zu %s %s: %s", layout, n, type_name(type),
                     order ? "descending" : "ascending", bitonic_status_string(status));
    free(keys);
    free(expected);
    free(values);
    free(expected_values);
    return ok;
}

/* The C reference for records: the chosen component's ordered bits, then the
 * other components as u32 in r, g, b, a order (the tie rule of bitonic_gles.h). */
static bitonic_key_type record_type;
static bitonic_order record_order;
static uint32_t record_component;

static int compare_records(const void *a, const void *b)
{
    const uint32_t *x = a, *y = b;
    uint32_t flip = record_order == BITONIC_ORDER_DESCENDING ? UINT32_MAX : 0u;
    uint32_t kx = bitonic_ordered_from_key(x[record_component], record_type, flip);
    uint32_t ky = bitonic_ordered_from_key(y[record_component], record_type, flip);
    if (kx != ky)
        return kx < ky ? -1 : 1;
    for (uint32_t c = 0; c < 4; ++c)
        if (c != record_component && x[c] != y[c])
            return x[c] < y[c] ? -1 : 1;
    return 0;
}

static bool check_records(test_counter *t, bitonic_context *gles, uint32_t steps, size_t n, uint32_t component,
                          bitonic_key_type type, bitonic_order order, uint64_t *seed)
{
    uint32_t *records = malloc(n * 16 + 16), *expected = malloc(n * 16 + 16);
    for (size_t i = 0; i < n; ++i) {
        fill_keys(records + 4 * i, 4, type, seed);
        if (i % 3 == 0)  /* equal keys with different payloads */
            records[4 * i + component] = 42u;
    }
    memcpy(expected, records, n * 16);
    record_type = type;
    record_order = order;
    record_component = component;
    qsort(expected, n, 16, compare_records);
    bitonic_sort_options options = {.order = order, .key_type = type};
    bitonic_timing timing = {0};
    bitonic_status status = bitonic_gles_sort_records(gles, records, n, component, &options, &timing);
    bool ok = TEST_CHECK(t, status == BITONIC_SUCCESS && memcmp(records, expected, n * 16) == 0,
                         "records: n %zu component %u %s %s: %s", n, component, type_name(type),
                         order ? "descending" : "ascending", bitonic_status_string(status));
    uint32_t draws = n > 1 ? bitonic_gles_draw_count(n, steps) : 0u;
    ok &= TEST_CHECK(t, timing.pass_count == draws && (steps > 1 || draws == bitonic_gles_network_pass_count(n)),
                     "records n %zu, %u steps a draw: %u passes, expected %u", n, steps, timing.pass_count, draws);
    free(records);
    free(expected);
    return ok;
}

static void test_small_counts(test_counter *t, fixture *f, uint64_t *seed)
{
    /* Both layouts at one step a draw: every n and every type. The multi-step
     * forms: every n with the types in turn (their addressing does not depend
     * on the type), so the suite stays within minutes on llvmpipe. */
    for (int config = GLES_1D; config < GLES_CONTEXTS; ++config) {
        unsigned failures = t->failed;
        for (size_t n = 0; n <= 300 && t->failed - failures < 5; ++n)
            for (int type = BITONIC_KEY_U32; type <= BITONIC_KEY_F64; ++type)
                if (context_steps[config] == 1 || (size_t)type == n % 6)
                    check_keys(t, f, config, n, (bitonic_key_type)type,
                               (n + (size_t)type) % 2 ? BITONIC_ORDER_DESCENDING : BITONIC_ORDER_ASCENDING, seed);
    }
}

static void test_powers_of_two(test_counter *t, fixture *f, uint64_t *seed)
{
    /* Every context up to 2^13 + 1 keys (one row fits: the largest side is at least 16384 on
     * llvmpipe and NVIDIA), then rows, at one and at three steps a draw. */
    for (uint32_t log = 9; log <= 17; ++log)
        for (size_t n = ((size_t)1 << log) - 1; n <= ((size_t)1 << log) + 1; ++n)
            for (int type = BITONIC_KEY_U32; type <= BITONIC_KEY_F64; ++type)
                if (log <= 12 || type == BITONIC_KEY_U32 || (log <= 16 && type == BITONIC_KEY_F64))
                    check_keys(t, f, log <= 13 ? (int)((n + type) % GLES_CONTEXTS) : (n % 2 ? GLES_2D : GLES_2D_3STEPS),
                               n, (bitonic_key_type)type, log % 2 ? BITONIC_ORDER_DESCENDING : BITONIC_ORDER_ASCENDING,
                               seed);
}

static void test_records(test_counter *t, fixture *f, uint64_t *seed)
{
    static const size_t counts[] = {0, 1, 2, 3, 5, 17, 100, 255, 256, 257, 1000, 4099};
    for (int config = GLES_1D; config < GLES_CONTEXTS; ++config)
        for (uint32_t component = 0; component < 4; ++component)
            for (int type = BITONIC_KEY_U32; type <= BITONIC_KEY_F32; ++type)
                for (size_t c = 0; c < sizeof counts / sizeof counts[0]; ++c)
                    check_records(t, f->gles[config], context_steps[config], counts[c], component,
                                  (bitonic_key_type)type,
                                  (c + component) % 2 ? BITONIC_ORDER_DESCENDING : BITONIC_ORDER_ASCENDING, seed);
    bitonic_sort_options bad = {.key_type = BITONIC_KEY_U64};
    uint32_t record[8] = {0};
    TEST_CHECK(t, bitonic_gles_sort_records(f->gles[0], record, 2, 0, &bad, NULL) == BITONIC_ERROR_INVALID_ARGUMENT,
               "records by a 64-bit key are refused");
    TEST_CHECK(t, bitonic_gles_sort_records(f->gles[0], record, 2, 4, NULL, NULL) == BITONIC_ERROR_INVALID_ARGUMENT,
               "a fifth component is refused");
    TEST_CHECK(t, bitonic_gles_sort_records(f->cpu, record, 2, 0, NULL, NULL) == BITONIC_ERROR_UNSUPPORTED,
               "records through bitonic_gles_sort_records need a GLES context");
}

/* The other host calls reach the backend through the core: rows, segments,
 * argsort, records by the core's (key, index) sort, resident buffers. */
static void test_host_calls(test_counter *t, fixture *f, uint64_t *seed)
{
    enum { N = 600 };
    uint32_t keys[N], expected[N], indices[N], expected_indices[N];
    fill_keys(keys, N, BITONIC_KEY_I32, seed);
    memcpy(expected, keys, sizeof keys);
    bitonic_sort_options options = {.key_type = BITONIC_KEY_I32};
    TEST_CHECK(t, bitonic_sort_rows(f->gles[0], keys, 6, 100, &options) == BITONIC_SUCCESS &&
                      bitonic_sort_rows(f->cpu, expected, 6, 100, &options) == BITONIC_SUCCESS &&
                      memcmp(keys, expected, sizeof keys) == 0,
               "rows match the CPU");
    size_t offsets[] = {0, 3, 3, 200, 201, 600};
    fill_keys(keys, N, BITONIC_KEY_F32, seed);
    memcpy(expected, keys, sizeof keys);
    options.key_type = BITONIC_KEY_F32;
    TEST_CHECK(t, bitonic_sort_segments(f->gles[0], keys, offsets, 5, &options) == BITONIC_SUCCESS &&
                      bitonic_sort_segments(f->cpu, expected, offsets, 5, &options) == BITONIC_SUCCESS &&
                      memcmp(keys, expected, sizeof keys) == 0,
               "segments match the CPU");
    TEST_CHECK(t, bitonic_argsort(f->gles[2], keys, N, indices, &options) == BITONIC_SUCCESS &&
                      bitonic_argsort(f->cpu, keys, N, expected_indices, &options) == BITONIC_SUCCESS &&
                      memcmp(indices, expected_indices, sizeof indices) == 0,
               "argsort matches the CPU");
    /* Range search (on the CPU path for this backend) gives the CPU's bounds. */
    uint32_t sorted[N], lows[3] = {0, 1000, 0x80000000u}, highs[3] = {0xffffffffu, 5000, 0x80000fffu};
    uint32_t first[3], end[3], cpu_first[3], cpu_end[3];
    fill_keys(sorted, N, BITONIC_KEY_U32, seed);
    TEST_CHECK(t, bitonic_sort_u32(f->cpu, sorted, N, NULL) == BITONIC_SUCCESS &&
                      bitonic_search_range(f->gles[0], sorted, N, lows, highs, 3, first, end, NULL) ==
                          BITONIC_SUCCESS &&
                      bitonic_search_range(f->cpu, sorted, N, lows, highs, 3, cpu_first, cpu_end, NULL) ==
                          BITONIC_SUCCESS &&
                      memcmp(first, cpu_first, sizeof first) == 0 && memcmp(end, cpu_end, sizeof end) == 0 &&
                      first[0] == 0 && end[0] == N,
               "range search matches the CPU");

    bitonic_buffer *buffer = NULL;
    fill_keys(keys, N, BITONIC_KEY_U32, seed);
    memcpy(expected, keys, sizeof keys);
    bitonic_timing timing = {0};
    bitonic_status status = bitonic_buffer_create(f->gles[1], N, &buffer);
    if (status == BITONIC_SUCCESS)
        status = bitonic_buffer_upload(buffer, keys, N);
    if (status == BITONIC_SUCCESS)
        status = bitonic_buffer_sort(buffer, N, NULL, &timing);
    if (status == BITONIC_SUCCESS)
        status = bitonic_buffer_download(buffer, keys, N);
    bitonic_sort_u32(f->cpu, expected, N, NULL);
    TEST_CHECK(t, status == BITONIC_SUCCESS && memcmp(keys, expected, sizeof keys) == 0,
               "a resident buffer sorts: %s", bitonic_status_string(status));
    TEST_CHECK(t, timing.pass_count == bitonic_gles_network_pass_count(N) && timing.pass_count == 55 &&
                      timing.sort_ms > 0.0,
               "buffer timing: %u passes (formula %u), %.3f ms", timing.pass_count,
               bitonic_gles_network_pass_count(N), timing.sort_ms);
    bitonic_buffer_destroy(buffer);
}

static void test_limits(test_counter *t, fixture *f)
{
    bitonic_context_info info = {0};
    TEST_CHECK(t, bitonic_context_get_info(f->gles[0], &info) == BITONIC_SUCCESS &&
                      info.backend == BITONIC_BACKEND_GLES && info.gles_max_texture_size >= 2048,
               "info: backend %d, max texture side %u", info.backend, info.gles_max_texture_size);
    printf("GLES device: %s, max texture side %u, timer query %s\n", info.device_name, info.gles_max_texture_size,
           info.gles_timer_query ? "yes" : "no (glFinish wall time)");
    uint32_t width, height, max = info.gles_max_texture_size;
    TEST_CHECK(t, bitonic_gles_texture_size(max, BITONIC_GLES_LAYOUT_1D, max, &width, &height) == BITONIC_SUCCESS &&
                      width == max && height == 1,
               "1D up to the largest side");
    TEST_CHECK(t, bitonic_gles_texture_size((uint64_t)max + 1, BITONIC_GLES_LAYOUT_1D, max, &width, &height) ==
                      BITONIC_ERROR_TOO_LARGE,
               "1D beyond the largest side is too large");
    TEST_CHECK(t, bitonic_gles_texture_size((uint64_t)max + 1, BITONIC_GLES_LAYOUT_AUTO, max, &width, &height) ==
                          BITONIC_SUCCESS && height > 1 && (uint64_t)width * height >= (uint64_t)max + 1,
               "auto turns to 2D beyond one row");
    TEST_CHECK(t, bitonic_gles_texture_size((uint64_t)max * max + 1, BITONIC_GLES_LAYOUT_2D, max, &width, &height) ==
                      BITONIC_ERROR_TOO_LARGE,
               "2D beyond the texture is too large");
    TEST_CHECK(t, bitonic_gles_texture_size(300, BITONIC_GLES_LAYOUT_2D, max, &width, &height) == BITONIC_SUCCESS &&
                      width == 32 && height == 10,
               "2D of 300 keys is 32 x 10 (%u x %u)", width, height);
    size_t n = (size_t)max + 1;
    uint32_t *keys = calloc(n, sizeof *keys);
    TEST_CHECK(t, bitonic_sort_u32(f->gles[1], keys, n, NULL) == BITONIC_ERROR_TOO_LARGE,
               "a 1D sort past the largest texture side says too large");
    free(keys);
    TEST_CHECK(t, bitonic_gles_network_pass_count(1024) == 55 && bitonic_gles_network_pass_count(1025) == 66 &&
                      bitonic_gles_network_pass_count(1) == 0 && bitonic_gles_draw_count(1024, 1) == 55 &&
                      bitonic_gles_draw_count(1024, 0) == 55 && bitonic_gles_draw_count(1024, 4) == 0,
               "pass count formula");
    /* Phase p has p steps: ceil(p / s) draws with s steps a draw. */
    uint32_t two = 0, three = 0;
    for (uint32_t phase = 1; phase <= 10; ++phase) {
        two += (phase + 1) / 2;
        three += (phase + 2) / 3;
    }
    TEST_CHECK(t, bitonic_gles_draw_count(1024, 2) == two && bitonic_gles_draw_count(1024, 3) == three,
               "draws with 2 and 3 steps a draw: %u (expected %u), %u (expected %u)", bitonic_gles_draw_count(1024, 2),
               two, bitonic_gles_draw_count(1024, 3), three);
}

/* A context of the test's own, surfaceless; NULL display when none can be made. */
static EGLContext make_own_context(EGLDisplay *out_display)
{
    *out_display = EGL_NO_DISPLAY;
    PFNEGLGETPLATFORMDISPLAYEXTPROC get_platform_display =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    EGLDisplay display = get_platform_display
                             ? get_platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL)
                             : EGL_NO_DISPLAY;
    if (display == EGL_NO_DISPLAY)
        display = eglGetDisplay(EGL_DEFAULT_DISPLAY);
    EGLint major, minor, count = 0;
    EGLConfig config;
    const EGLint attributes[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_ES3_BIT, EGL_SURFACE_TYPE, 0, EGL_NONE};
    const EGLint context_attributes[] = {EGL_CONTEXT_CLIENT_VERSION, 3, EGL_NONE};
    if (!eglInitialize(display, &major, &minor) || !eglBindAPI(EGL_OPENGL_ES_API) ||
        !eglChooseConfig(display, attributes, &config, 1, &count) || count == 0)
        return EGL_NO_CONTEXT;
    EGLContext context = eglCreateContext(display, config, EGL_NO_CONTEXT, context_attributes);
    if (context == EGL_NO_CONTEXT || !eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context))
        return EGL_NO_CONTEXT;
    *out_display = display;
    return context;
}

static GLuint make_texture(GLenum format, GLenum pixel_format, uint32_t width, uint32_t height, const uint32_t *texels)
{
    GLuint texture;
    glGenTextures(1, &texture);
    glBindTexture(GL_TEXTURE_2D, texture);
    glTexStorage2D(GL_TEXTURE_2D, 1, format, (GLsizei)width, (GLsizei)height);
    if (texels)
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, (GLsizei)width, (GLsizei)height, pixel_format, GL_UNSIGNED_INT,
                        texels);
    return texture;
}

static void read_texture(GLuint texture, uint32_t width, uint32_t height, uint32_t *rgba)
{
    GLuint framebuffer;
    glGenFramebuffers(1, &framebuffer);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, framebuffer);
    glFramebufferTexture2D(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, texture, 0);
    glReadPixels(0, 0, (GLsizei)width, (GLsizei)height, GL_RGBA_INTEGER, GL_UNSIGNED_INT, rgba);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
    glDeleteFramebuffers(1, &framebuffer);
}

/* Records in the caller's RGBA32UI texture, width x height, count of them sorted. */
static void check_interop_records(test_counter *t, bitonic_gles_sorter *sorter, uint32_t steps, uint32_t width,
                                  uint32_t height, uint32_t count, uint64_t *seed)
{
    size_t texels = (size_t)width * height;
    uint32_t *records = malloc(texels * 16), *expected = malloc(texels * 16), *result = malloc(texels * 16);
    fill_keys(records, texels * 4, BITONIC_KEY_F32, seed);
    memcpy(expected, records, texels * 16);
    record_type = BITONIC_KEY_F32;
    record_order = BITONIC_ORDER_ASCENDING;
    record_component = 2;
    qsort(expected, count, 16, compare_records);
    GLuint texture = make_texture(GL_RGBA32UI, GL_RGBA_INTEGER, width, height, records);
    /* State the sort must leave as it found it. */
    glBindTexture(GL_TEXTURE_2D, 0);
    glViewport(3, 4, 5, 6);
    glEnable(GL_SCISSOR_TEST);
    glColorMask(GL_TRUE, GL_FALSE, GL_TRUE, GL_FALSE);
    bitonic_gles_sort_result result_info;
    bitonic_status status = bitonic_gles_record_sort(
        sorter,
        &(bitonic_gles_sort_info){.texture = texture, .width = width, .height = height, .count = count,
                                  .texels = BITONIC_GLES_TEXELS_RECORDS, .key_type = BITONIC_KEY_F32,
                                  .record_component = 2},
        &result_info);
    GLint viewport[4], bound_texture = -1;
    GLboolean mask[4];
    glGetIntegerv(GL_VIEWPORT, viewport);
    glGetIntegerv(GL_TEXTURE_BINDING_2D, &bound_texture);
    glGetBooleanv(GL_COLOR_WRITEMASK, mask);
    TEST_CHECK(t, viewport[0] == 3 && viewport[1] == 4 && viewport[2] == 5 && viewport[3] == 6 &&
                      glIsEnabled(GL_SCISSOR_TEST) && bound_texture == 0 && mask[0] && !mask[1] && mask[2] &&
                      !mask[3],
               "interop %ux%u: the GL state is restored", width, height);
    glDisable(GL_SCISSOR_TEST);
    glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
    glFinish();
    read_texture(texture, width, height, result);
    GLenum error = glGetError();
    TEST_CHECK(t, status == BITONIC_SUCCESS && error == GL_NO_ERROR && memcmp(result, expected, texels * 16) == 0,
               "interop records %u in %ux%u: %s, GL error 0x%x", count, width, height, bitonic_status_string(status),
               error);
    uint32_t passes = bitonic_gles_draw_count(count, steps);
    TEST_CHECK(t, result_info.network_passes == passes && result_info.draws == passes + (passes % 2),
               "interop %u, %u steps a draw: %u passes (expected %u), %u draws", count, steps,
               result_info.network_passes, passes, result_info.draws);
    glDeleteTextures(1, &texture);
    free(records);
    free(expected);
    free(result);
}

static void test_interop(test_counter *t, uint64_t *seed)
{
    bitonic_gles_sorter *sorter = NULL;
    eglMakeCurrent(eglGetCurrentDisplay(), EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    TEST_CHECK(t, bitonic_gles_sorter_create(NULL, &sorter) == BITONIC_ERROR_GLES_UNAVAILABLE && !sorter,
               "no current context: GLES unavailable");
    EGLDisplay display;
    EGLContext context = make_own_context(&display);
    if (!TEST_CHECK(t, context != EGL_NO_CONTEXT, "the test's own ES 3 context"))
        return;
    bitonic_status status = bitonic_gles_sorter_create(&(bitonic_gles_sorter_desc){.check_every_pass = true}, &sorter);
    if (!TEST_CHECK(t, status == BITONIC_SUCCESS, "sorter in the caller's context: %s", bitonic_status_string(status)))
        return;
    check_interop_records(t, sorter, 1, 2, 1, 2, seed);      /* one pass: the copy home */
    check_interop_records(t, sorter, 1, 8, 1, 8, seed);      /* six passes: no copy */
    check_interop_records(t, sorter, 1, 40, 1, 37, seed);    /* texels past count stay */
    check_interop_records(t, sorter, 1, 16, 9, 130, seed);   /* 2D, rows past the last key stay */
    check_interop_records(t, sorter, 1, 13, 7, 91, seed);    /* a width that is not a power of two */
    bitonic_gles_sorter *three_steps = NULL;
    TEST_CHECK(t, bitonic_gles_sorter_create(&(bitonic_gles_sorter_desc){.steps_per_draw = 4}, &three_steps) ==
                      BITONIC_ERROR_INVALID_ARGUMENT && !three_steps,
               "four steps a draw are refused");
    status = bitonic_gles_sorter_create(&(bitonic_gles_sorter_desc){.check_every_pass = true, .steps_per_draw = 3},
                                        &three_steps);
    if (TEST_CHECK(t, status == BITONIC_SUCCESS, "a sorter of three steps a draw")) {
        check_interop_records(t, three_steps, 3, 13, 7, 91, seed);
        check_interop_records(t, three_steps, 3, 64, 64, 4000, seed);
        bitonic_gles_sorter_destroy(three_steps);
    }

    /* u32 keys in an R32UI texture, descending. */
    enum { N = 1000 };
    uint32_t keys[N], expected[N], rgba[4 * N];
    fill_keys(keys, N, BITONIC_KEY_U32, seed);
    memcpy(expected, keys, sizeof keys);
    GLuint texture = make_texture(GL_R32UI, GL_RED_INTEGER, N, 1, keys);
    status = bitonic_gles_record_sort(sorter,
                                      &(bitonic_gles_sort_info){.texture = texture, .width = N, .height = 1,
                                                                .count = N, .order = BITONIC_ORDER_DESCENDING},
                                      NULL);
    read_texture(texture, N, 1, rgba);
    for (size_t i = 0; i < N; ++i)
        keys[i] = rgba[4 * i];
    for (size_t i = 0; i < N; ++i)  /* the reference: an insertion sort, descending */
        for (size_t j = i; j > 0 && expected[j - 1] < expected[j]; --j) {
            uint32_t swap = expected[j];
            expected[j] = expected[j - 1];
            expected[j - 1] = swap;
        }
    TEST_CHECK(t, status == BITONIC_SUCCESS && glGetError() == GL_NO_ERROR && memcmp(keys, expected, sizeof keys) == 0,
               "interop u32 keys descending: %s", bitonic_status_string(status));
    glDeleteTextures(1, &texture);

    /* RGB32UI is no render target in ES 3.0: a clear status, no GL error left. */
    texture = make_texture(GL_RGB32UI, GL_RGB_INTEGER, 4, 1, NULL);
    status = bitonic_gles_record_sort(sorter,
                                      &(bitonic_gles_sort_info){.texture = texture, .width = 4, .height = 1, .count = 4,
                                                                .texels = BITONIC_GLES_TEXELS_RECORDS},
                                      NULL);
    TEST_CHECK(t, status == BITONIC_ERROR_UNSUPPORTED && glGetError() == GL_NO_ERROR,
               "a texture that is no render target: %s", bitonic_status_string(status));
    glDeleteTextures(1, &texture);
    TEST_CHECK(t, bitonic_gles_record_sort(sorter,
                                           &(bitonic_gles_sort_info){.texture = 1, .width = 4, .height = 1, .count = 5},
                                           NULL) == BITONIC_ERROR_INVALID_ARGUMENT,
               "count above the texture is refused");
    TEST_CHECK(t, bitonic_gles_record_sort(sorter,
                                           &(bitonic_gles_sort_info){.texture = 1, .width = 1u << 30, .height = 1,
                                                                     .count = 5},
                                           NULL) == BITONIC_ERROR_TOO_LARGE,
               "a width past the limits is too large");
    bitonic_gles_sorter_destroy(sorter);
    TEST_CHECK(t, glGetError() == GL_NO_ERROR, "no GL error after the sorter is gone");
    eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(display, context);
}

int main(void)
{
    test_counter t = {0, 0};
    uint64_t seed = 12;
    fixture f = {0};
    bitonic_status status = bitonic_context_create(&(bitonic_context_desc){.device = "cpu"}, &f.cpu);
    TEST_CHECK(&t, status == BITONIC_SUCCESS, "CPU context");
    for (int config = 0; config < GLES_CONTEXTS && status == BITONIC_SUCCESS; ++config) {
        /* The steps a draw runs come through the tuning overrides. */
        bitonic_tuning_overrides steps = {.type = BITONIC_STRUCTURE_TYPE_TUNING_OVERRIDES,
                                          .max_strides_per_global_pass = context_steps[config]};
        status = bitonic_context_create(&(bitonic_context_desc){.next = &steps, .device = "gles", .validation = true,
                                                                .gles_layout = context_layout[config]},
                                        &f.gles[config]);
        TEST_CHECK(&t, status == BITONIC_SUCCESS, "GLES context %d: %s", config, bitonic_status_string(status));
    }
    if (status == BITONIC_SUCCESS) {
        test_limits(&t, &f);
        test_small_counts(&t, &f, &seed);
        test_powers_of_two(&t, &f, &seed);
        test_records(&t, &f, &seed);
        test_host_calls(&t, &f, &seed);
        test_interop(&t, &seed);
    }
    for (int config = 0; config < GLES_CONTEXTS; ++config)
        bitonic_context_destroy(f.gles[config]);
    bitonic_context_destroy(f.cpu);
    return test_finish(&t);
}
