/* web_sort.c: the browser's host layer over gles_sorter.c, the functions that
 * web/src/bitonic.mjs calls. The JavaScript side makes the WebGL2 context
 * current (its own, or the caller's) before every call; this file uploads host
 * texels into an integer texture, runs the network of gles_sorter.c (the same
 * source as the native gles backend, so the same order bit for bit) and reads
 * the result back. Every call returns a bitonic_status. */
#include <stdlib.h>
#include <string.h>

#include <emscripten.h>

#include "gles_internal.h"

typedef struct web_sorter {
    bitonic_gles_sorter *sorter;
    /* The ping-pong pair of host sorts, remade when the size or format changes. */
    GLuint textures[2];
    GLenum format;
    uint32_t width, height;
    GLuint read_framebuffer;
} web_sorter;

EMSCRIPTEN_KEEPALIVE int bw_create(uint32_t steps_per_draw, uint32_t check_every_pass, web_sorter **out)
{
    *out = NULL;
    web_sorter *web = calloc(1, sizeof *web);
    if (!web)
        return BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    bitonic_gles_sorter_desc desc = {.check_every_pass = check_every_pass != 0, .steps_per_draw = steps_per_draw};
    bitonic_status status = bitonic_gles_sorter_create(&desc, &web->sorter);
    if (status == BITONIC_SUCCESS) {
        const bitonic_gl *gl = bitonic_gles_sorter_gl(web->sorter);
        gl->glGenTextures(2, web->textures);
        gl->glGenFramebuffers(1, &web->read_framebuffer);
        if (gl->glGetError() != GL_NO_ERROR)
            status = BITONIC_ERROR_GL;
    }
    if (status != BITONIC_SUCCESS) {
        if (web->sorter) {
            const bitonic_gl *gl = bitonic_gles_sorter_gl(web->sorter);
            gl->glDeleteTextures(2, web->textures);
            gl->glDeleteFramebuffers(1, &web->read_framebuffer);
            bitonic_gles_sorter_destroy(web->sorter);
        }
        free(web);
        return status;
    }
    *out = web;
    return BITONIC_SUCCESS;
}

EMSCRIPTEN_KEEPALIVE void bw_destroy(web_sorter *web)
{
    if (!web)
        return;
    const bitonic_gl *gl = bitonic_gles_sorter_gl(web->sorter);
    gl->glDeleteTextures(2, web->textures);
    gl->glDeleteFramebuffers(1, &web->read_framebuffer);
    bitonic_gles_sorter_destroy(web->sorter);
    free(web);
}

EMSCRIPTEN_KEEPALIVE uint32_t bw_max_size(const web_sorter *web)
{
    return bitonic_gles_sorter_max_size(web->sorter);
}

/* The texture a host sort of count texels uses; TOO_LARGE past the context's limit. */
EMSCRIPTEN_KEEPALIVE int bw_texture_size(const web_sorter *web, uint32_t count, uint32_t layout, uint32_t *out_size)
{
    return bitonic_gles_texture_size(count, (bitonic_gles_layout)layout, bitonic_gles_sorter_max_size(web->sorter),
                                     &out_size[0], &out_size[1]);
}

EMSCRIPTEN_KEEPALIVE uint32_t bw_draw_count(uint32_t count, uint32_t steps_per_draw)
{
    return bitonic_gles_draw_count(count, steps_per_draw);
}

static bitonic_status ensure_textures(web_sorter *web, GLenum format, uint32_t width, uint32_t height)
{
    const bitonic_gl *gl = bitonic_gles_sorter_gl(web->sorter);
    if (web->format == format && web->width == width && web->height == height)
        return BITONIC_SUCCESS;
    gl->glDeleteTextures(2, web->textures);
    gl->glGenTextures(2, web->textures);
    for (int t = 0; t < 2; ++t) {
        gl->glBindTexture(GL_TEXTURE_2D, web->textures[t]);
        gl->glTexStorage2D(GL_TEXTURE_2D, 1, format, (GLsizei)width, (GLsizei)height);
    }
    gl->glBindTexture(GL_TEXTURE_2D, 0);
    GLenum error = gl->glGetError();
    web->format = error == GL_NO_ERROR ? format : 0;
    web->width = width;
    web->height = height;
    if (error == GL_OUT_OF_MEMORY)
        return BITONIC_ERROR_OUT_OF_DEVICE_MEMORY;
    return error == GL_NO_ERROR ? BITONIC_SUCCESS : BITONIC_ERROR_GL;
}

static GLenum pixel_format(uint32_t words)
{
    return words == 1 ? GL_RED_INTEGER : words == 2 ? GL_RG_INTEGER : GL_RGBA_INTEGER;
}

/* Full rows in one upload, the last partial row in a second. */
static void upload(const web_sorter *web, const uint32_t *texels, uint32_t words, uint32_t count, uint32_t width)
{
    const bitonic_gl *gl = bitonic_gles_sorter_gl(web->sorter);
    gl->glBindTexture(GL_TEXTURE_2D, web->textures[0]);
    uint32_t full_rows = count / width, rest = count % width;
    if (full_rows > 0)
        gl->glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, (GLsizei)width, (GLsizei)full_rows, pixel_format(words),
                            GL_UNSIGNED_INT, texels);
    if (rest > 0)
        gl->glTexSubImage2D(GL_TEXTURE_2D, 0, 0, (GLint)full_rows, (GLsizei)rest, 1, pixel_format(words),
                            GL_UNSIGNED_INT, texels + (size_t)full_rows * width * words);
    gl->glBindTexture(GL_TEXTURE_2D, 0);
}

/* WebGL2 reads an unsigned integer target only as RGBA_INTEGER / UNSIGNED_INT
 * for certain, so rows come through a staging block of four words a texel, a
 * few rows at a time, and are packed to words each. */
static bitonic_status download(web_sorter *web, GLuint texture, uint32_t *texels, uint32_t words, uint32_t count,
                               uint32_t width)
{
    const bitonic_gl *gl = bitonic_gles_sorter_gl(web->sorter);
    gl->glBindFramebuffer(GL_READ_FRAMEBUFFER, web->read_framebuffer);
    gl->glFramebufferTexture2D(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, texture, 0);
    uint32_t rows_per_block = (1u << 18) / width > 0 ? (1u << 18) / width : 1u;
    uint32_t *block = malloc((size_t)rows_per_block * width * 4u * sizeof *block);
    bitonic_status status = block ? BITONIC_SUCCESS : BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    uint32_t rows = (count + width - 1u) / width;
    for (uint32_t row = 0; row < rows && status == BITONIC_SUCCESS; row += rows_per_block) {
        uint32_t block_rows = rows - row < rows_per_block ? rows - row : rows_per_block;
        gl->glReadPixels(0, (GLint)row, (GLsizei)width, (GLsizei)block_rows, GL_RGBA_INTEGER, GL_UNSIGNED_INT, block);
        uint32_t first = row * width;
        uint32_t block_count = count - first < block_rows * width ? count - first : block_rows * width;
        for (uint32_t i = 0; i < block_count; ++i)
            memcpy(texels + (size_t)(first + i) * words, block + (size_t)i * 4u, words * sizeof *texels);
    }
    free(block);
    gl->glFramebufferTexture2D(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, 0, 0);
    gl->glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
    if (status == BITONIC_SUCCESS && gl->glGetError() != GL_NO_ERROR)
        status = BITONIC_ERROR_GL;
    return status;
}

/* Sorts count packed texels in wasm memory in place: keys (one word) or pairs
 * (key, value), the key read as key_type (u32, i32, f32). out_draws gets the
 * draws of the network. */
EMSCRIPTEN_KEEPALIVE int bw_sort_host(web_sorter *web, uint32_t *texels, uint32_t count, uint32_t texel_kind,
                                      uint32_t key_type, uint32_t descending, uint32_t layout, uint32_t *out_draws)
{
    *out_draws = 0;
    if (texel_kind > BITONIC_GLES_TEXELS_PAIRS || key_type > BITONIC_KEY_F32)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    bitonic_gles_sort_info info = {.count = count, .texels = (bitonic_gles_texels)texel_kind,
                                   .key_type = (bitonic_key_type)key_type,
                                   .order = descending ? BITONIC_ORDER_DESCENDING : BITONIC_ORDER_ASCENDING};
    bitonic_status status = bitonic_gles_texture_size(count, (bitonic_gles_layout)layout,
                                                      bitonic_gles_sorter_max_size(web->sorter), &info.width,
                                                      &info.height);
    if (status != BITONIC_SUCCESS || count <= 1)
        return status;
    const bitonic_gl *gl = bitonic_gles_sorter_gl(web->sorter);
    while (gl->glGetError() != GL_NO_ERROR) {
        /* errors raised before the call are not the sort's */
    }
    uint32_t words = bitonic_gles_texel_words(info.texels, info.key_type);
    gl->glActiveTexture(GL_TEXTURE0);
    status = ensure_textures(web, bitonic_gles_texel_format(info.texels, info.key_type), info.width, info.height);
    bool in_other = false;
    bitonic_gles_sort_result result = {0};
    if (status == BITONIC_SUCCESS) {
        upload(web, texels, words, count, info.width);
        info.texture = web->textures[0];
        status = bitonic_gles_run_network(web->sorter, &info, web->textures[1], &in_other, &result);
    }
    if (status == BITONIC_SUCCESS)
        status = download(web, web->textures[in_other ? 1 : 0], texels, words, count, info.width);
    *out_draws = result.draws;
    return status;
}

/* A texture the caller owns, sorted in place (bitonic_gles_record_sort). */
EMSCRIPTEN_KEEPALIVE int bw_sort_texture(web_sorter *web, GLuint texture, uint32_t width, uint32_t height,
                                         uint32_t count, uint32_t texel_kind, uint32_t key_type, uint32_t descending,
                                         uint32_t component, uint32_t *out_draws)
{
    bitonic_gles_sort_info info = {.texture = texture, .width = width, .height = height, .count = count,
                                   .texels = (bitonic_gles_texels)texel_kind, .key_type = (bitonic_key_type)key_type,
                                   .order = descending ? BITONIC_ORDER_DESCENDING : BITONIC_ORDER_ASCENDING,
                                   .record_component = component};
    bitonic_gles_sort_result result = {0};
    bitonic_status status = bitonic_gles_record_sort(web->sorter, &info, &result);
    *out_draws = result.draws;
    return status;
}
