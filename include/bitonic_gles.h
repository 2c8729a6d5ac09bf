/* bitonic_gles.h: sorting in OpenGL ES 3.0 fragment-shader passes, for devices
 * and APIs with no compute shaders (ES 3.0 GPUs, WebGL2-class hardware).
 *
 * The keys live in an integer texture; each step of the bitonic network is one
 * draw that renders the whole used area into the other texture of a ping-pong
 * pair: a fragment reads its own texel and its partner's (texelFetch) and keeps
 * the smaller or the larger. A sort of n keys takes log2 N (log2 N + 1) / 2
 * draws, N the next power of two at or above n; positions at or past n act as
 * +infinity and are never read or written, so nothing is padded.
 *
 * Texels are stored row-major: key i sits at (i % width, i / width). A texture
 * of one row (n x 1) is the 1D layout; width x height with height > 1 the 2D
 * layout, for n above the largest texture side.
 *
 * Two ways in:
 *  - a context created with device "gles" (BITONIC_DEVICE=gles): every host call
 *    of bitonic.h runs here, in the library's own headless EGL context, plus
 *    bitonic_gles_sort_records() below for RGBA records;
 *  - bitonic_gles_record_sort(): sorts a texture the caller owns, in the
 *    caller's current ES 3.0 context.
 *
 * The library loads libEGL.so.1 and libGLESv2.so.2 (glvnd) when a GLES context
 * or sorter is created, so programs that never use this backend do not need
 * them; without them those calls return BITONIC_ERROR_GLES_UNAVAILABLE.
 */
#ifndef BITONIC_GLES_H
#define BITONIC_GLES_H

#include <GLES3/gl3.h>

#include "bitonic.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a texel holds, and so the texture's internal format. */
typedef enum bitonic_gles_texels {
    /* Keys alone: GL_R32UI for the 32-bit key types; GL_RG32UI (low word, high
     * word) for the 64-bit ones. */
    BITONIC_GLES_TEXELS_KEYS = 0,
    /* A key and its 32-bit value: GL_RG32UI (key, value) for 32-bit keys;
     * GL_RGBA32UI (key low, key high, value, unused) for 64-bit keys. Ordered by
     * key, then by value (as bitonic_sort_pairs). */
    BITONIC_GLES_TEXELS_PAIRS = 1,
    /* RGBA records, GL_RGBA32UI, ordered by the component record_component read
     * as u32, i32 or f32 (key_type); the whole texel moves with its key. Equal
     * keys are ordered by the other components, as u32 in r, g, b, a order, so
     * the result does not depend on the network. */
    BITONIC_GLES_TEXELS_RECORDS = 2,
} bitonic_gles_texels;

/* The internal format a texture of these texels must have. */
GLenum bitonic_gles_texel_format(bitonic_gles_texels texels, bitonic_key_type key_type);

/* How a host sort lays the keys out (bitonic_context_desc.gles_layout). */
typedef enum bitonic_gles_layout {
    BITONIC_GLES_LAYOUT_AUTO = 0,    /* 1D while n fits one row, else 2D */
    BITONIC_GLES_LAYOUT_1D = 1,      /* n x 1; n up to the largest texture side */
    BITONIC_GLES_LAYOUT_2D = 2,      /* width x height, width the power of two at or above sqrt(n) */
} bitonic_gles_layout;

/* The texture size a host sort of count keys uses with this layout, given the
 * largest texture side. BITONIC_ERROR_TOO_LARGE when they do not fit. */
BITONIC_API bitonic_status bitonic_gles_texture_size(uint64_t count, bitonic_gles_layout layout, uint32_t max_texture_size,
                                         uint32_t *out_width, uint32_t *out_height);

/* Steps of the network for count keys, and so its draws at one step per draw:
 * log2 N (log2 N + 1) / 2, N the next power of two at or above count (0 for
 * count <= 1). */
BITONIC_API uint32_t bitonic_gles_network_pass_count(uint64_t count);

/* The most steps one draw runs: each fragment then reads 2^steps texels. */
#define BITONIC_GLES_MAX_STEPS_PER_DRAW 3u

/* Draws of a sort of count keys with up to steps_per_draw steps of one phase
 * per draw (0 means 1); 0 for an invalid steps_per_draw. */
BITONIC_API uint32_t bitonic_gles_draw_count(uint64_t count, uint32_t steps_per_draw);

/* Programs, a scratch texture and two framebuffers, made in the context that is
 * current when it is created (the programs of 32-bit keys then, those of
 * another texel kind at its first sort); use and destroy it only with that
 * context (or one sharing its objects) current. */
typedef struct bitonic_gles_sorter bitonic_gles_sorter;

typedef struct bitonic_gles_sorter_desc {
    /* Call glGetError after every draw and fail with BITONIC_ERROR_GL at the
     * first error (costs a round trip per draw on some drivers). Without it the
     * error state is checked once, at the end of each sort; a debug build of
     * the library (no NDEBUG) always checks every draw. */
    bool check_every_pass;
    /* Steps of one phase run by one draw, 1..BITONIC_GLES_MAX_STEPS_PER_DRAW (0:
     * 1, the seed's one step per draw). With s steps a fragment reads the 2^s
     * texels of its group and the sort takes about 1/s of the draws. */
    uint32_t steps_per_draw;
} bitonic_gles_sorter_desc;

/* desc may be NULL. BITONIC_ERROR_INVALID_ARGUMENT for steps_per_draw above
 * BITONIC_GLES_MAX_STEPS_PER_DRAW. BITONIC_ERROR_GLES_UNAVAILABLE when no context is current;
 * BITONIC_ERROR_UNSUPPORTED when it is below OpenGL ES 3.0. */
BITONIC_API bitonic_status bitonic_gles_sorter_create(const bitonic_gles_sorter_desc *desc, bitonic_gles_sorter **out_sorter);
BITONIC_API void bitonic_gles_sorter_destroy(bitonic_gles_sorter *sorter);

typedef struct bitonic_gles_sort_info {
    /* The caller's texture: GL_TEXTURE_2D, level 0 of internal format
     * bitonic_gles_texel_format(texels, key_type), width x height texels, the
     * first count of them (row-major) to sort. Its texture parameters are not
     * read or changed (the sort reads texels with texelFetch and a sampler
     * object of its own). */
    GLuint texture;
    uint32_t width;
    uint32_t height;
    uint32_t count;
    bitonic_gles_texels texels;
    bitonic_key_type key_type;       /* RECORDS: u32, i32 or f32 */
    bitonic_order order;
    uint32_t record_component;       /* RECORDS: 0..3 (r, g, b, a) */
} bitonic_gles_sort_info;

typedef struct bitonic_gles_sort_result {
    uint32_t network_passes;         /* draws of the network: bitonic_gles_draw_count(count, steps_per_draw) */
    uint32_t draws;                  /* network passes, plus one copy when the result ended in the scratch */
} bitonic_gles_sort_result;

/* Issues the draws that sort the texture in place, in the current context; like
 * any GL command they run when the driver gets to them (glFinish or a fence
 * to wait). The sorted texels end in info->texture; texels at or past count,
 * and rows past the last one holding a key, are left as they were.
 *
 * GL state: the call saves and restores everything it sets: the current
 * program, GL_DRAW_FRAMEBUFFER and GL_READ_FRAMEBUFFER bindings, the viewport,
 * the active texture unit, the GL_TEXTURE_2D binding and sampler binding of
 * unit 0, the vertex array binding, and GL_BLEND, GL_DEPTH_TEST,
 * GL_STENCIL_TEST, GL_SCISSOR_TEST, GL_CULL_FACE, GL_RASTERIZER_DISCARD (turned
 * off while it draws) and the colour write mask. Before it, make the caller's
 * writes to the texture visible as for any texture read (in ES 3.0 they are,
 * in command order); after it, the texture is read as any render target.
 *
 * BITONIC_ERROR_INVALID_ARGUMENT for a bad description (count above
 * width x height, a component above 3, a 64-bit key type for records);
 * BITONIC_ERROR_TOO_LARGE when the size passes the context's texture or
 * viewport limits; BITONIC_ERROR_UNSUPPORTED when the texture cannot be a
 * render target (wrong format); BITONIC_ERROR_GL when a GL call failed (GL
 * errors pending before the call are cleared first, so only the sort's own
 * count). result may be NULL. */
BITONIC_API bitonic_status bitonic_gles_record_sort(bitonic_gles_sorter *sorter, const bitonic_gles_sort_info *info,
                                        bitonic_gles_sort_result *result);

/* Host call on a context created with device "gles": sorts count RGBA records
 * of four 32-bit words each, in place, by component (0..3) read as
 * options->key_type (u32, i32 or f32), ties as in BITONIC_GLES_TEXELS_RECORDS.
 * timing may be NULL; its sort_ms covers the draws alone (GL timer queries
 * where the driver has GL_EXT_disjoint_timer_query, else wall time between two
 * glFinish calls; bitonic_context_info.gles_timer_query says which).
 * BITONIC_ERROR_UNSUPPORTED on any other backend. */
BITONIC_API bitonic_status bitonic_gles_sort_records(bitonic_context *context, uint32_t *records, size_t count,
                                         uint32_t component, const bitonic_sort_options *options,
                                         bitonic_timing *timing);

#ifdef __cplusplus
}
#endif

#endif /* BITONIC_GLES_H */
