/* web_sort.c: the browser's host layer over gles_sorter.c, the functions that
 * web/src/bitonic.mjs calls. The JavaScript side makes the WebGL2 context
 * current (its own, or the caller's) before every call; this file sorts host
 * texels through the textures of src/gles/gles_host.c and the network of
 * src/gles/gles_sorter.c, the same sources as the native gles backend's host
 * sorts, so the same order bit for bit. Every call returns a bitonic_status. */
#include <stdlib.h>
#include <string.h>

#include <emscripten.h>

#include "gles_internal.h"

typedef struct web_sorter {
    bitonic_gles_sorter *sorter;
    bitonic_gles_host_textures host;  /* the ping-pong pair of host sorts */
} web_sorter;

EMSCRIPTEN_KEEPALIVE int bw_create(uint32_t steps_per_draw, uint32_t check_every_pass, web_sorter **out)
{
    *out = NULL;
    web_sorter *web = calloc(1, sizeof *web);
    if (!web)
        return BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    bitonic_gles_sorter_desc desc = {.check_every_pass = check_every_pass != 0, .steps_per_draw = steps_per_draw};
    bitonic_status status = bitonic_gles_sorter_create(&desc, &web->sorter);
    if (status == BITONIC_SUCCESS)
        status = bitonic_gles_host_textures_create(bitonic_gles_sorter_gl(web->sorter), &web->host);
    if (status != BITONIC_SUCCESS) {
        if (web->sorter) {
            bitonic_gles_host_textures_destroy(bitonic_gles_sorter_gl(web->sorter), &web->host);
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
    bitonic_gles_host_textures_destroy(bitonic_gles_sorter_gl(web->sorter), &web->host);
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
    status = bitonic_gles_host_upload(gl, &web->host, &info, texels);
    bool in_other = false;
    bitonic_gles_sort_result result = {0};
    if (status == BITONIC_SUCCESS)
        status = bitonic_gles_run_network(web->sorter, &info, web->host.textures[1], &in_other, &result);
    if (status == BITONIC_SUCCESS)
        status = bitonic_gles_host_download(gl, &web->host, &info, in_other, texels);
    if (status == BITONIC_SUCCESS && gl->glGetError() != GL_NO_ERROR)
        status = BITONIC_ERROR_GL;
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
