/* gles_tour.c: every call of bitonic_gles.h in one short program; each block
 * is quoted in docs/API.md ("Fragment-shader sorting"), and the test suite
 * builds and runs it (gles_tour) on Mesa's llvmpipe through EGL, checking the
 * results the comments state, so the documentation compiles and is true. */
#include <stdio.h>
#include <string.h>

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <bitonic_gles.h>

#define CHECK(call)                                                                  \
    do {                                                                             \
        bitonic_status status_ = (call);                                             \
        if (status_ != BITONIC_SUCCESS) {                                            \
            fprintf(stderr, "%s: %s\n", #call, bitonic_status_string(status_));      \
            return 1;                                                                \
        }                                                                            \
    } while (0)

#define EXPECT(condition)                                                            \
    do {                                                                             \
        if (!(condition)) {                                                          \
            fprintf(stderr, "line %d: expected %s\n", __LINE__, #condition);         \
            return 1;                                                                \
        }                                                                            \
    } while (0)

static uint32_t float_bits(float value)
{
    uint32_t bits;
    memcpy(&bits, &value, sizeof bits);
    return bits;
}

/* The caller's own context, as an application would have one: headless here. */
static int make_current_es3_context(void)
{
    PFNEGLGETPLATFORMDISPLAYEXTPROC get_platform_display =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    EGLDisplay display = get_platform_display
                             ? get_platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL)
                             : eglGetDisplay(EGL_DEFAULT_DISPLAY);
    EGLint major, minor, count = 0;
    EGLConfig config;
    const EGLint attributes[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_ES3_BIT, EGL_SURFACE_TYPE, 0, EGL_NONE};
    const EGLint version[] = {EGL_CONTEXT_CLIENT_VERSION, 3, EGL_NONE};
    if (!eglInitialize(display, &major, &minor) || !eglBindAPI(EGL_OPENGL_ES_API) ||
        !eglChooseConfig(display, attributes, &config, 1, &count) || count == 0)
        return 0;
    EGLContext context = eglCreateContext(display, config, EGL_NO_CONTEXT, version);
    return context != EGL_NO_CONTEXT && eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context);
}

int main(void)
{
    /* [gles context] */
    bitonic_context *ctx;
    CHECK(bitonic_context_create(&(bitonic_context_desc){.device = "gles"}, &ctx));
    int64_t big[] = {5, -3, 9000000000, -3};
    CHECK(bitonic_sort(ctx, big, 4, &(bitonic_sort_options){.key_type = BITONIC_KEY_I64}));
    /* -3 -3 5 9000000000 */
    EXPECT(big[0] == -3 && big[1] == -3 && big[2] == 5 && big[3] == 9000000000);

    /* [gles records] */
    uint32_t particles[4][4] = {  /* r, g, b: colour; a: depth as f32 bits */
        {1, 0, 0, float_bits(2.5f)}, {0, 1, 0, float_bits(-1.0f)},
        {0, 0, 1, float_bits(7.0f)}, {1, 1, 1, float_bits(0.0f)}};
    bitonic_timing timing = {0};
    CHECK(bitonic_gles_sort_records(ctx, &particles[0][0], 4, 3,
                                    &(bitonic_sort_options){.key_type = BITONIC_KEY_F32,
                                                            .order = BITONIC_ORDER_DESCENDING},
                                    &timing));
    /* far to near: depths 7 2.5 0 -1; timing.pass_count == 3 draws */
    EXPECT(particles[0][3] == float_bits(7.0f) && particles[1][3] == float_bits(2.5f) && particles[0][2] == 1);
    EXPECT(particles[3][1] == 1 && timing.pass_count == 3);

    /* [gles layout] */
    uint32_t width, height;
    CHECK(bitonic_gles_texture_size(1000000, BITONIC_GLES_LAYOUT_AUTO, 16384, &width, &height));
    /* 1024 x 977: past one row, rows of a power of two at or above sqrt(n) */
    uint32_t draws = bitonic_gles_network_pass_count(1000000);        /* 20 * 21 / 2 = 210 */
    EXPECT(width == 1024 && height == 977 && draws == 210);
    bitonic_context_destroy(ctx);

    if (!make_current_es3_context()) {
        fprintf(stderr, "no ES 3 context of our own\n");
        return 1;
    }
    uint32_t records[200][4];
    for (uint32_t i = 0; i < 200; ++i) {
        records[i][0] = i;
        records[i][1] = records[i][2] = 0;
        records[i][3] = float_bits((float)((i * 37u) % 200u) - 100.0f);
    }
    GLuint texture;
    glGenTextures(1, &texture);
    glBindTexture(GL_TEXTURE_2D, texture);
    glTexStorage2D(GL_TEXTURE_2D, 1, bitonic_gles_texel_format(BITONIC_GLES_TEXELS_RECORDS, BITONIC_KEY_F32), 200, 1);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, 200, 1, GL_RGBA_INTEGER, GL_UNSIGNED_INT, records);

    /* [gles interop] */
    bitonic_gles_sorter *sorter;
    CHECK(bitonic_gles_sorter_create(NULL, &sorter));                  /* in the current ES 3.0 context */
    bitonic_gles_sort_result result;
    CHECK(bitonic_gles_record_sort(sorter,
                                   &(bitonic_gles_sort_info){.texture = texture, .width = 200, .height = 1,
                                                             .count = 200, .texels = BITONIC_GLES_TEXELS_RECORDS,
                                                             .key_type = BITONIC_KEY_F32, .record_component = 3},
                                   &result));
    /* 36 draws (N = 256: 8 * 9 / 2); an odd count would add one copy home. The texture holds the result. */
    bitonic_gles_sorter_destroy(sorter);

    EXPECT(result.network_passes == 36 && result.draws == 36);
    GLuint framebuffer;
    glGenFramebuffers(1, &framebuffer);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, framebuffer);
    glFramebufferTexture2D(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, texture, 0);
    glReadPixels(0, 0, 200, 1, GL_RGBA_INTEGER, GL_UNSIGNED_INT, records);
    for (uint32_t i = 0; i < 200; ++i)
        EXPECT(records[i][3] == float_bits((float)i - 100.0f));
    EXPECT(glGetError() == GL_NO_ERROR);
    puts("gles tour: every result as documented");
    return 0;
}
