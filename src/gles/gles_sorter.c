/* gles_sorter.c: the bitonic network as OpenGL ES 3.0 render passes. Each pass
 * of the schedule (src/core/schedule.h with no tile: every pass a step group of
 * 1 to 3 steps of one phase) is one draw of a triangle covering the rows that
 * hold keys. A fragment at index i reads the 2^steps texels of its step group
 * (bitonic_group_key_index's addressing), runs the group's comparators on them
 * and writes the one that lands at i: with one step, its texel and its
 * partner's, keeping the smaller when i is the lower index. Every fragment of a
 * group computes the same network on the same texels, so every texel survives
 * exactly once. Keys are compared as the ordered bits of key_transform.h,
 * computed in the shader, so results match the other backends bit for bit. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gles_api.h"
#include "gles_internal.h"
#include "schedule.h"

/* One fragment program (a step count, with or without the flip, for one
 * texel kind), with its uniforms' locations. */
typedef struct gles_program {
    GLuint program;
    GLint u_width, u_count, u_last, u_stride_log, u_order_xor;
} gles_program;

/* The rank() of a program is fixed when it is compiled (its texel kind, key
 * type and record component): rank() runs for every member, and branches on
 * uniforms there made SwiftShader's draws three times slower (perf-log entry
 * 111). One set per texel kind of
 * bitonic_gles_sort_info: 4 kinds of keys and pairs by 3 key types, and
 * records by 3 key types and 4 components; built on first use. */
#define GLES_PROGRAM_SETS 24u

typedef struct gles_program_set {
    /* programs[0][0] copies; programs[flip][s] runs a step group of s steps,
     * opening with the flip or not (write_main). */
    gles_program programs[2][BITONIC_GLES_MAX_STEPS_PER_DRAW + 1u];
    bool built;
} gles_program_set;

struct bitonic_gles_sorter {
    bitonic_gl gl;                   /* the entry points, loaded at creation */
    gles_program_set sets[GLES_PROGRAM_SETS];
    GLuint vertex_array;             /* empty: the vertices come from gl_VertexID */
    GLuint sampler;                  /* nearest, so integer textures are complete whatever their parameters */
    GLuint framebuffers[2];
    GLuint scratch;                  /* the ping-pong partner of the caller's texture */
    GLenum scratch_format;
    uint32_t scratch_width, scratch_height;
    uint32_t max_size;
    uint32_t steps_per_draw;         /* 1..BITONIC_GLES_MAX_STEPS_PER_DRAW */
    bool check_every_pass;
};

/* A triangle that covers the viewport, from gl_VertexID alone. */
static const char vertex_source[] =
    "void main() {\n"
    "    vec2 corner = vec2(float((gl_VertexID & 1) << 2), float((gl_VertexID & 2) << 1)) - 1.0;\n"
    "    gl_Position = vec4(corner, 0.0, 1.0);\n"
    "}\n";

/* KIND: 0 keys (32-bit), 1 keys (64-bit), 2 pairs (32-bit key), 3 pairs
 * (64-bit key), 4 records; KEY_TYPE a bitonic_key_type, COMPONENT the
 * record's key component (all three defined ahead of this source). A texel's
 * rank (RANK) is compared word by word, most significant first; 64-bit keys
 * are (high, low) word pairs, since ES 3.0 has no 64-bit integers. The ordered maps are those of key_transform.h: its
 * select for negative NaNs, ~x + 0xff800001, equals the other arm,
 * (x ^ 0xffffffff) - 0x007fffff, modulo 2^32, so one expression serves. */
static const char fragment_source[] =
    "precision highp float;\n"
    "precision highp int;\n"
    "precision highp usampler2D;\n"
    "uniform usampler2D u_source;\n"
    "uniform uint u_width;\n"
    "uniform uint u_count;\n"
    "uniform uint u_last;\n"
    "uniform uint u_stride_log;\n"
    "const int kind = KIND;\n"
    "const int key_type = KEY_TYPE;\n"
    "uniform uint u_order_xor;\n"
    "const int component = COMPONENT;\n"
    "out uvec4 o_texel;\n"
    "uvec4 fetch(uint index) {\n"
    "    index = min(index, u_last);\n"
    "    return texelFetch(u_source, ivec2(int(index % u_width), int(index / u_width)), 0);\n"
    "}\n"
    "uint ordered32(uint x) {\n"
    "    if (key_type == 1) return x ^ 0x80000000u;\n"
    "    if (key_type == 2) {\n"
    "        uint sign_mask = 0u - (x >> 31);\n"
    "        return (x ^ (sign_mask | 0x80000000u)) - 0x007fffffu;\n"
    "    }\n"
    "    return x;\n"
    "}\n"
    "uvec2 sub64(uvec2 a, uvec2 b) {\n"
    "    return uvec2(a.x - b.x - (a.y < b.y ? 1u : 0u), a.y - b.y);\n"
    "}\n"
    "uvec2 ordered64(uvec2 x) {\n"
    "    if (key_type == 4) return uvec2(x.x ^ 0x80000000u, x.y);\n"
    "    if (key_type == 5) {\n"
    "        uint sign_mask = 0u - (x.x >> 31);\n"
    "        return sub64(uvec2(x.x ^ (sign_mask | 0x80000000u), x.y ^ sign_mask), uvec2(0x000fffffu, 0xffffffffu));\n"
    "    }\n"
    "    return x;\n"
    "}\n"
    /* TEXEL: the words of a texel that the format holds (a member's variables
     * are no wider than they need be); RANK: its key as ordered bits, then
     * what breaks ties, compared most significant word first. */
    "#if KIND == 0\n"
    "#define TEXEL uint\n"
    "#define RANK uint\n"
    "TEXEL texel_of(uvec4 t) { return t.x; }\n"
    "uvec4 output_of(TEXEL t) { return uvec4(t, 0u, 0u, 0u); }\n"
    "RANK rank(TEXEL t) { return ordered32(t) ^ u_order_xor; }\n"
    "#elif KIND == 1 || KIND == 2\n"
    "#define TEXEL uvec2\n"
    "#define RANK uvec2\n"
    "TEXEL texel_of(uvec4 t) { return t.xy; }\n"
    "uvec4 output_of(TEXEL t) { return uvec4(t, 0u, 0u); }\n"
    "#if KIND == 1\n"
    "RANK rank(TEXEL t) { return ordered64(t.yx) ^ uvec2(u_order_xor); }\n"
    "#else\n"
    "RANK rank(TEXEL t) { return uvec2(ordered32(t.x) ^ u_order_xor, t.y); }\n"
    "#endif\n"
    "#else\n"
    "#define TEXEL uvec4\n"
    "#define RANK uvec4\n"
    "TEXEL texel_of(uvec4 t) { return t; }\n"
    "uvec4 output_of(TEXEL t) { return t; }\n"
    "RANK rank(TEXEL t) {\n"
    "    if (kind == 3) return uvec4(ordered64(t.yx) ^ uvec2(u_order_xor), t.z, 0u);\n"
    "    if (component == 0) return uvec4(ordered32(t.x) ^ u_order_xor, t.y, t.z, t.w);\n"
    "    if (component == 1) return uvec4(ordered32(t.y) ^ u_order_xor, t.x, t.z, t.w);\n"
    "    if (component == 2) return uvec4(ordered32(t.z) ^ u_order_xor, t.x, t.y, t.w);\n"
    "    return uvec4(ordered32(t.w) ^ u_order_xor, t.x, t.y, t.z);\n"
    "}\n"
    "#endif\n"
    "bool less(uint a, uint b) { return a < b; }\n"
    "bool less(uvec2 a, uvec2 b) { return a.x < b.x || (a.x == b.x && a.y < b.y); }\n"
    "bool less(uvec4 a, uvec4 b) {\n"
    "    bvec4 lower = lessThan(a, b), same = equal(a, b);\n"
    "    return lower.x || (same.x && (lower.y || (same.y && (lower.z || (same.z && lower.w)))));\n"
    "}\n"
    "void exchange(bool upper_is_key, inout TEXEL lower_texel, inout RANK lower_rank, inout TEXEL upper_texel,\n"
    "              inout RANK upper_rank) {\n"
    "    bool swap = upper_is_key && less(upper_rank, lower_rank);\n"
    "    TEXEL texel = lower_texel;\n"
    "    RANK rank_of = lower_rank;\n"
    "    lower_texel = swap ? upper_texel : lower_texel;\n"
    "    lower_rank = swap ? upper_rank : lower_rank;\n"
    "    upper_texel = swap ? texel : upper_texel;\n"
    "    upper_rank = swap ? rank_of : upper_rank;\n"
    "}\n";

/* Appends printf-style text to a shader being written; false once it no longer fits. */
static bool append(char *text, size_t capacity, size_t *length, const char *format, ...)
{
    va_list arguments;
    va_start(arguments, format);
    int written = *length < capacity ? vsnprintf(text + *length, capacity - *length, format, arguments) : -1;
    va_end(arguments);
    if (written < 0 || (size_t)written >= capacity - *length) {
        *length = capacity;
        return false;
    }
    *length += (size_t)written;
    return true;
}

/* The main() of a step group of 2^steps members, written out with every
 * member in variables of its own (t3, k3: member 3's texel and rank) and every
 * comparator a line of its own: no loops and no arrays indexed at run time,
 * which a shader compiler may keep in memory and which software rasterisers
 * (SwiftShader's JIT) run many times slower than straight-line code. The group
 * is addressed as bitonic_group_key_index() does: ascending indices in member
 * order, the upper half mirrored when the group opens with the flip (flip is a
 * program of its own, so this is decided here and not per fragment). A
 * comparator whose upper member is at or past u_count is skipped (+infinity);
 * fetch() clamps the addresses of such members to the last texel of the
 * viewport, so they read a texel of the texture and nothing moves them. The
 * fragment writes its own member: a fragment past u_count is one of those and
 * keeps its texel. steps 0 is the copy (each fragment its own texel). */
static bool write_main(char *text, size_t capacity, size_t *length, uint32_t steps, bool flip)
{
    bool fits = append(text, capacity, length,
                       "void main() {\n"
                       "    uint index = uint(gl_FragCoord.y) * u_width + uint(gl_FragCoord.x);\n");
    if (steps == 0)
        return fits && append(text, capacity, length, "    o_texel = fetch(index);\n}\n");
    uint32_t size = 1u << steps;
    fits = fits && append(text, capacity, length,
                          "    uint low_log = u_stride_log + 1u - %uu;\n"
                          "    uint low_mask = (1u << low_log) - 1u;\n"
                          "    uint own = (index >> low_log) & %uu;\n"
                          "    uint low = index & low_mask;\n",
                          steps, size - 1u);
    if (flip)
        fits = fits && append(text, capacity, length, "    if (own >= %uu) low = low_mask - low;\n", size / 2u);
    fits = fits && append(text, capacity, length,
                          "    uint base = (index >> (low_log + %uu)) << (low_log + %uu);\n"
                          "    uint mirrored = low_mask - low;\n",
                          steps, steps);
    for (uint32_t r = 0; r < size; ++r) {
        bool mirrored = flip && r >= size / 2u;
        fits = fits && append(text, capacity, length,
                              "    uint m%u = base + (%uu << low_log) + %s;\n"
                              "    TEXEL t%u = texel_of(fetch(m%u));\n"
                              "    RANK k%u = rank(t%u);\n",
                              r, r, mirrored ? "mirrored" : "low", r, r, r, r);
    }
    for (uint32_t step = 0; step < steps; ++step) {
        uint32_t partner_xor = step == 0 && flip ? size - 1u : size >> (step + 1u);
        for (uint32_t r = 0; r < size; ++r) {
            uint32_t partner = r ^ partner_xor;
            if (partner > r)
                fits = fits && append(text, capacity, length, "    exchange(m%u < u_count, t%u, k%u, t%u, k%u);\n",
                                      partner, r, r, partner, partner);
        }
    }
    fits = fits && append(text, capacity, length, "    TEXEL chosen = t%u;\n", size - 1u);
    for (uint32_t r = size - 1u; r-- > 0;)
        fits = fits && append(text, capacity, length, "    chosen = own == %uu ? t%u : chosen;\n", r, r);
    fits = fits && append(text, capacity, length, "    o_texel = output_of(chosen);\n");
    return fits && append(text, capacity, length, "}\n");
}

GLenum bitonic_gles_texel_format(bitonic_gles_texels texels, bitonic_key_type key_type)
{
    switch (bitonic_gles_texel_words(texels, key_type)) {
    case 1: return GL_R32UI;
    case 2: return GL_RG32UI;
    default: return GL_RGBA32UI;
    }
}

uint32_t bitonic_gles_texel_words(bitonic_gles_texels texels, bitonic_key_type key_type)
{
    bool key64 = key_type >= BITONIC_KEY_U64;
    if (texels == BITONIC_GLES_TEXELS_KEYS)
        return key64 ? 2u : 1u;
    if (texels == BITONIC_GLES_TEXELS_PAIRS)
        return key64 ? 4u : 2u;
    return 4u;
}

uint32_t bitonic_gles_network_pass_count(uint64_t count)
{
    uint32_t log = bitonic_ceil_log2(count);
    return log * (log + 1u) / 2u;
}

uint32_t bitonic_gles_draw_count(uint64_t count, uint32_t steps_per_draw)
{
    if (steps_per_draw == 0)
        steps_per_draw = 1;
    if (steps_per_draw > BITONIC_GLES_MAX_STEPS_PER_DRAW || count > ((uint64_t)1 << 32))
        return 0;
    bitonic_schedule_params params = {.tile_log = 0, .max_global_steps = steps_per_draw};
    bitonic_pass passes[BITONIC_SCHEDULE_MAX_PASSES];
    uint32_t draws = bitonic_schedule_build(count, &params, passes, BITONIC_SCHEDULE_MAX_PASSES);
    return draws == UINT32_MAX ? 0 : draws;
}

bitonic_status bitonic_gles_texture_size(uint64_t count, bitonic_gles_layout layout, uint32_t max_texture_size,
                                         uint32_t *out_width, uint32_t *out_height)
{
    if (!out_width || !out_height || (unsigned)layout > BITONIC_GLES_LAYOUT_2D)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    if (count == 0)
        count = 1;
    if (layout == BITONIC_GLES_LAYOUT_AUTO)
        layout = count <= max_texture_size ? BITONIC_GLES_LAYOUT_1D : BITONIC_GLES_LAYOUT_2D;
    uint64_t width = count;
    if (layout == BITONIC_GLES_LAYOUT_2D) {
        /* A power of two keeps rows aligned with the network's blocks; at least
         * sqrt(count), so the texture is about square. */
        width = (uint64_t)1 << ((bitonic_ceil_log2(count) + 1u) / 2u);
        if (width > max_texture_size)
            width = max_texture_size;
    }
    uint64_t height = (count + width - 1u) / width;
    if (width > max_texture_size || height > max_texture_size)
        return BITONIC_ERROR_TOO_LARGE;
    *out_width = (uint32_t)width;
    *out_height = (uint32_t)height;
    return BITONIC_SUCCESS;
}

static int kind_of(const bitonic_gles_sort_info *info)
{
    bool key64 = info->key_type >= BITONIC_KEY_U64;
    if (info->texels == BITONIC_GLES_TEXELS_KEYS)
        return key64 ? 1 : 0;
    if (info->texels == BITONIC_GLES_TEXELS_PAIRS)
        return key64 ? 3 : 2;
    return 4;
}

static GLuint compile_shader(const bitonic_gl *gl, GLenum type, const char *defines, const char *functions,
                             const char *main_source)
{
    GLuint shader = gl->glCreateShader(type);
    if (!shader)
        return 0;
    const char *sources[] = {"#version 300 es\n", defines, functions, main_source};
    gl->glShaderSource(shader, 4, sources, NULL);
    gl->glCompileShader(shader);
    GLint compiled = GL_FALSE;
    gl->glGetShaderiv(shader, GL_COMPILE_STATUS, &compiled);
    if (!compiled) {
        gl->glDeleteShader(shader);
        return 0;
    }
    return shader;
}

static GLuint link_program(const bitonic_gl *gl, const bitonic_gles_sort_info *info, uint32_t steps, bool flip)
{
    char defines[96], main_source[8192];
    size_t length = 0;
    snprintf(defines, sizeof defines, "#define KIND %d\n#define KEY_TYPE %d\n#define COMPONENT %d\n", kind_of(info),
             (int)info->key_type, (int)info->record_component);
    if (!write_main(main_source, sizeof main_source, &length, steps, flip))
        return 0;
    GLuint vertex = compile_shader(gl, GL_VERTEX_SHADER, "", "", vertex_source);
    GLuint fragment = compile_shader(gl, GL_FRAGMENT_SHADER, defines, fragment_source, main_source);
    GLuint program = vertex && fragment ? gl->glCreateProgram() : 0;
    if (program) {
        gl->glAttachShader(program, vertex);
        gl->glAttachShader(program, fragment);
        gl->glLinkProgram(program);
        GLint linked = GL_FALSE;
        gl->glGetProgramiv(program, GL_LINK_STATUS, &linked);
        if (!linked) {
            gl->glDeleteProgram(program);
            program = 0;
        }
    }
    gl->glDeleteShader(vertex);  /* flagged for deletion; freed with the program */
    gl->glDeleteShader(fragment);
    return program;
}

/* The program and its uniforms' locations; false when it does not build. */
static bool make_program(const bitonic_gl *gl, gles_program *program, const bitonic_gles_sort_info *info,
                         uint32_t steps, bool flip)
{
    program->program = link_program(gl, info, steps, flip);
    if (!program->program)
        return false;
    GLuint name = program->program;
    program->u_width = gl->glGetUniformLocation(name, "u_width");
    program->u_count = gl->glGetUniformLocation(name, "u_count");
    program->u_last = gl->glGetUniformLocation(name, "u_last");
    program->u_stride_log = gl->glGetUniformLocation(name, "u_stride_log");
    program->u_order_xor = gl->glGetUniformLocation(name, "u_order_xor");
    return true;
}

/* The index of info's program set in sorter->sets. */
static uint32_t set_index(const bitonic_gles_sort_info *info)
{
    int kind = kind_of(info);
    if (kind < 4)
        return (uint32_t)kind * 3u + (uint32_t)info->key_type % 3u;
    return 12u + (uint32_t)info->key_type * 4u + info->record_component;
}

/* The programs of info's texel kind, built on first use; NULL when one does
 * not build. info must have passed check_info. */
static const gles_program_set *program_set(bitonic_gles_sorter *sorter, const bitonic_gles_sort_info *info)
{
    gles_program_set *set = &sorter->sets[set_index(info)];
    if (set->built)
        return set;
    const bitonic_gl *gl = &sorter->gl;
    bool built = make_program(gl, &set->programs[0][0], info, 0, false);
    for (uint32_t steps = 1; steps <= sorter->steps_per_draw && built; ++steps)
        built = make_program(gl, &set->programs[0][steps], info, steps, false) &&
                make_program(gl, &set->programs[1][steps], info, steps, true);
    set->built = built;
    return built ? set : NULL;
}

/* The major version in a GL_VERSION string of an ES context ("OpenGL ES 3.2 ..."), 0 if it is not one. */
static int es_major_version(const char *version)
{
    int major = 0, minor = 0;
    if (!version || sscanf(version, "OpenGL ES %d.%d", &major, &minor) != 2)
        return 0;
    return major;
}

void bitonic_gles_sorter_destroy(bitonic_gles_sorter *sorter)
{
    if (!sorter)
        return;
    const bitonic_gl *gl = &sorter->gl;
    if (gl->library) {
        for (uint32_t set = 0; set < GLES_PROGRAM_SETS; ++set)
            for (uint32_t flip = 0; flip < 2; ++flip)
                for (uint32_t steps = 0; steps <= BITONIC_GLES_MAX_STEPS_PER_DRAW; ++steps)
                    gl->glDeleteProgram(sorter->sets[set].programs[flip][steps].program);
        gl->glDeleteVertexArrays(1, &sorter->vertex_array);
        gl->glDeleteSamplers(1, &sorter->sampler);
        gl->glDeleteFramebuffers(2, sorter->framebuffers);
        gl->glDeleteTextures(1, &sorter->scratch);
    }
    bitonic_gl_unload(&sorter->gl);
    free(sorter);
}

bitonic_status bitonic_gles_sorter_create(const bitonic_gles_sorter_desc *desc, bitonic_gles_sorter **out_sorter)
{
    if (!out_sorter)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    *out_sorter = NULL;
    if (desc && desc->steps_per_draw > BITONIC_GLES_MAX_STEPS_PER_DRAW)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    bitonic_gles_sorter *sorter = calloc(1, sizeof *sorter);
    if (!sorter)
        return BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    bitonic_status status = bitonic_gl_load(&sorter->gl);
    const bitonic_gl *gl = &sorter->gl;
    const char *version = status == BITONIC_SUCCESS ? (const char *)gl->glGetString(GL_VERSION) : NULL;
    if (status == BITONIC_SUCCESS && !version)
        status = BITONIC_ERROR_GLES_UNAVAILABLE;  /* no current context */
    else if (status == BITONIC_SUCCESS && es_major_version(version) < 3)
        status = BITONIC_ERROR_UNSUPPORTED;
    if (status != BITONIC_SUCCESS) {
        bitonic_gl_unload(&sorter->gl);
        free(sorter);
        return status;
    }
    while (gl->glGetError() != GL_NO_ERROR) {
        /* errors the caller left behind are not ours to report */
    }
#ifdef NDEBUG
    sorter->check_every_pass = desc && desc->check_every_pass;
#else
    sorter->check_every_pass = true;  /* debug builds stop at the first draw that raises a GL error */
#endif
    GLint texture_size = 0, viewport[2] = {0, 0};
    gl->glGetIntegerv(GL_MAX_TEXTURE_SIZE, &texture_size);
    gl->glGetIntegerv(GL_MAX_VIEWPORT_DIMS, viewport);
    GLint size = texture_size;
    size = viewport[0] < size ? viewport[0] : size;
    size = viewport[1] < size ? viewport[1] : size;
    sorter->max_size = size > 0 ? (uint32_t)size : 0u;
    sorter->steps_per_draw = desc && desc->steps_per_draw ? desc->steps_per_draw : 1u;
    /* The set of 32-bit keys now, so a context whose compiler rejects the
     * shaders fails here rather than at its first sort. */
    if (!program_set(sorter, &(bitonic_gles_sort_info){.texels = BITONIC_GLES_TEXELS_KEYS})) {
        bitonic_gles_sorter_destroy(sorter);
        return BITONIC_ERROR_GL;
    }
    gl->glGenVertexArrays(1, &sorter->vertex_array);
    gl->glGenSamplers(1, &sorter->sampler);
    gl->glSamplerParameteri(sorter->sampler, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    gl->glSamplerParameteri(sorter->sampler, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    gl->glGenFramebuffers(2, sorter->framebuffers);
    if (gl->glGetError() != GL_NO_ERROR) {
        bitonic_gles_sorter_destroy(sorter);
        return BITONIC_ERROR_GL;
    }
    *out_sorter = sorter;
    return BITONIC_SUCCESS;
}

uint32_t bitonic_gles_sorter_max_size(const bitonic_gles_sorter *sorter)
{
    return sorter->max_size;
}

const bitonic_gl *bitonic_gles_sorter_gl(const bitonic_gles_sorter *sorter)
{
    return &sorter->gl;
}

/* The GL state a sort sets, saved before and restored after (the contract in
 * bitonic_gles.h). */
typedef struct saved_state {
    GLint program, draw_framebuffer, read_framebuffer, viewport[4], active_texture, texture, sampler, vertex_array;
    GLboolean color_mask[4];
    GLboolean enabled[6];
} saved_state;

static const GLenum toggled_caps[6] = {GL_BLEND,        GL_DEPTH_TEST, GL_STENCIL_TEST,
                                       GL_SCISSOR_TEST, GL_CULL_FACE,  GL_RASTERIZER_DISCARD};

static void save_state(const bitonic_gl *gl, saved_state *state)
{
    gl->glGetIntegerv(GL_CURRENT_PROGRAM, &state->program);
    gl->glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &state->draw_framebuffer);
    gl->glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &state->read_framebuffer);
    gl->glGetIntegerv(GL_VIEWPORT, state->viewport);
    gl->glGetIntegerv(GL_ACTIVE_TEXTURE, &state->active_texture);
    gl->glActiveTexture(GL_TEXTURE0);
    gl->glGetIntegerv(GL_TEXTURE_BINDING_2D, &state->texture);
    gl->glGetIntegerv(GL_SAMPLER_BINDING, &state->sampler);
    gl->glGetIntegerv(GL_VERTEX_ARRAY_BINDING, &state->vertex_array);
    gl->glGetBooleanv(GL_COLOR_WRITEMASK, state->color_mask);
    for (int i = 0; i < 6; ++i)
        state->enabled[i] = gl->glIsEnabled(toggled_caps[i]);
}

static void restore_state(const bitonic_gl *gl, const saved_state *state)
{
    gl->glUseProgram((GLuint)state->program);
    gl->glBindFramebuffer(GL_DRAW_FRAMEBUFFER, (GLuint)state->draw_framebuffer);
    gl->glBindFramebuffer(GL_READ_FRAMEBUFFER, (GLuint)state->read_framebuffer);
    gl->glViewport(state->viewport[0], state->viewport[1], state->viewport[2], state->viewport[3]);
    gl->glBindTexture(GL_TEXTURE_2D, (GLuint)state->texture);
    gl->glBindSampler(0, (GLuint)state->sampler);
    gl->glActiveTexture((GLenum)state->active_texture);
    gl->glBindVertexArray((GLuint)state->vertex_array);
    gl->glColorMask(state->color_mask[0], state->color_mask[1], state->color_mask[2], state->color_mask[3]);
    for (int i = 0; i < 6; ++i) {
        if (state->enabled[i])
            gl->glEnable(toggled_caps[i]);
        else
            gl->glDisable(toggled_caps[i]);
    }
}

static bitonic_status check_info(const bitonic_gles_sorter *sorter, const bitonic_gles_sort_info *info)
{
    if ((unsigned)info->texels > BITONIC_GLES_TEXELS_RECORDS || (unsigned)info->key_type > BITONIC_KEY_F64 ||
        (info->order != BITONIC_ORDER_ASCENDING && info->order != BITONIC_ORDER_DESCENDING) ||
        info->texture == 0 || info->width == 0 || info->height == 0)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    if (info->texels == BITONIC_GLES_TEXELS_RECORDS && (info->record_component > 3u || info->key_type > BITONIC_KEY_F32))
        return BITONIC_ERROR_INVALID_ARGUMENT;
    if ((uint64_t)info->width * info->height < info->count)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    if (info->width > sorter->max_size || info->height > sorter->max_size)
        return BITONIC_ERROR_TOO_LARGE;
    return BITONIC_SUCCESS;
}

static bool attach(const bitonic_gl *gl, GLuint framebuffer, GLuint texture)
{
    gl->glBindFramebuffer(GL_DRAW_FRAMEBUFFER, framebuffer);
    gl->glFramebufferTexture2D(GL_DRAW_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, texture, 0);
    return gl->glCheckFramebufferStatus(GL_DRAW_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
}

/* One pass: reads source, renders the used rows into the framebuffer of target. */
static bitonic_status draw_pass(const bitonic_gles_sorter *sorter, const gles_program_set *set, GLuint source,
                                int target, const bitonic_pass *pass)
{
    const bitonic_gl *gl = &sorter->gl;
    gl->glBindFramebuffer(GL_DRAW_FRAMEBUFFER, sorter->framebuffers[target]);
    gl->glBindTexture(GL_TEXTURE_2D, source);
    bool flip = pass->step_count > 0 && pass->stride_log + 1u == pass->phase;
    const gles_program *program = &set->programs[flip][pass->step_count];
    gl->glUseProgram(program->program);
    gl->glUniform1ui(program->u_stride_log, pass->stride_log);
    gl->glDrawArrays(GL_TRIANGLES, 0, 3);
    if (sorter->check_every_pass && gl->glGetError() != GL_NO_ERROR)
        return BITONIC_ERROR_GL;
    return BITONIC_SUCCESS;
}

/* Saves the caller's state and sets up the draws of one sort: program,
 * uniforms, sampler, and a viewport of the rows that hold keys, so the rest of
 * both textures is never touched. */
static void begin_passes(const bitonic_gles_sorter *sorter, const gles_program_set *set,
                         const bitonic_gles_sort_info *info, saved_state *saved)
{
    const bitonic_gl *gl = &sorter->gl;
    save_state(gl, saved);
    for (int i = 0; i < 6; ++i)
        gl->glDisable(toggled_caps[i]);
    gl->glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);

    gl->glBindVertexArray(sorter->vertex_array);
    gl->glActiveTexture(GL_TEXTURE0);
    gl->glBindSampler(0, sorter->sampler);
    uint32_t rows = (info->count + info->width - 1u) / info->width;
    for (uint32_t p = 0; p < 2u * (BITONIC_GLES_MAX_STEPS_PER_DRAW + 1u); ++p) {
        const gles_program *program = &set->programs[p & 1u][p >> 1];
        if (!program->program)
            continue;  /* the flip of no steps, or more steps than this sorter runs */
        gl->glUseProgram(program->program);
        gl->glUniform1ui(program->u_width, info->width);
        gl->glUniform1ui(program->u_count, info->count);
        gl->glUniform1ui(program->u_last, rows * info->width - 1u);
        gl->glUniform1ui(program->u_order_xor, info->order == BITONIC_ORDER_DESCENDING ? 0xffffffffu : 0u);
    }
    gl->glViewport(0, 0, (GLsizei)info->width, (GLsizei)rows);
}

/* Restores the caller's state; a GL error raised by the sort fails it. */
static bitonic_status end_passes(const bitonic_gl *gl, const saved_state *saved, bitonic_status status)
{
    restore_state(gl, saved);
    if (status == BITONIC_SUCCESS && gl->glGetError() != GL_NO_ERROR)
        status = BITONIC_ERROR_GL;
    return status;
}

bitonic_status bitonic_gles_run_network(bitonic_gles_sorter *sorter, const bitonic_gles_sort_info *info,
                                        GLuint other_texture, bool *out_in_other, bitonic_gles_sort_result *result)
{
    *out_in_other = false;
    if (result)
        *result = (bitonic_gles_sort_result){0};
    bitonic_status status = check_info(sorter, info);
    if (status != BITONIC_SUCCESS || info->count <= 1)
        return status;
    bitonic_pass passes[BITONIC_SCHEDULE_MAX_PASSES];
    bitonic_schedule_params params = {.tile_log = 0, .max_global_steps = sorter->steps_per_draw};
    uint32_t pass_count = bitonic_schedule_build(info->count, &params, passes, BITONIC_SCHEDULE_MAX_PASSES);
    if (pass_count == UINT32_MAX)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    const gles_program_set *set = program_set(sorter, info);
    if (!set)
        return BITONIC_ERROR_GL;

    const bitonic_gl *gl = &sorter->gl;
    saved_state saved;
    begin_passes(sorter, set, info, &saved);
    GLuint textures[2] = {info->texture, other_texture};
    if (!attach(gl, sorter->framebuffers[0], textures[0]) || !attach(gl, sorter->framebuffers[1], textures[1])) {
        GLenum error = gl->glGetError();  /* an error here means a bad texture name, not a bad format */
        return end_passes(gl, &saved, error != GL_NO_ERROR ? BITONIC_ERROR_GL : BITONIC_ERROR_UNSUPPORTED);
    }
    int source = 0;
    for (uint32_t p = 0; p < pass_count && status == BITONIC_SUCCESS; ++p) {
        status = draw_pass(sorter, set, textures[source], 1 - source, &passes[p]);
        source = 1 - source;
    }
    status = end_passes(gl, &saved, status);
    *out_in_other = source == 1;
    if (result)
        *result = (bitonic_gles_sort_result){.network_passes = pass_count, .draws = pass_count};
    return status;
}

/* The scratch texture, remade when the size or format differs from the last sort's. */
static bitonic_status ensure_scratch(bitonic_gles_sorter *sorter, GLenum format, uint32_t width, uint32_t height)
{
    const bitonic_gl *gl = &sorter->gl;
    if (sorter->scratch && sorter->scratch_format == format && sorter->scratch_width == width &&
        sorter->scratch_height == height)
        return BITONIC_SUCCESS;
    GLint bound = 0;
    gl->glGetIntegerv(GL_TEXTURE_BINDING_2D, &bound);
    gl->glDeleteTextures(1, &sorter->scratch);
    sorter->scratch = 0;
    gl->glGenTextures(1, &sorter->scratch);
    gl->glBindTexture(GL_TEXTURE_2D, sorter->scratch);
    gl->glTexStorage2D(GL_TEXTURE_2D, 1, format, (GLsizei)width, (GLsizei)height);
    gl->glBindTexture(GL_TEXTURE_2D, (GLuint)bound);
    GLenum error = gl->glGetError();
    if (error != GL_NO_ERROR) {
        gl->glDeleteTextures(1, &sorter->scratch);
        sorter->scratch = 0;
        return error == GL_OUT_OF_MEMORY ? BITONIC_ERROR_OUT_OF_DEVICE_MEMORY : BITONIC_ERROR_GL;
    }
    sorter->scratch_format = format;
    sorter->scratch_width = width;
    sorter->scratch_height = height;
    return BITONIC_SUCCESS;
}

/* An odd number of passes left the keys in the scratch: one more draw of no
 * steps (every fragment keeps its own texel) copies them home, through the
 * framebuffer that run_network attached the caller's texture to. */
static bitonic_status copy_home(bitonic_gles_sorter *sorter, const bitonic_gles_sort_info *info,
                                bitonic_gles_sort_result *result)
{
    const gles_program_set *set = program_set(sorter, info);  /* built by run_network */
    if (!set)
        return BITONIC_ERROR_GL;
    saved_state saved;
    begin_passes(sorter, set, info, &saved);
    bitonic_pass copy = {.kind = BITONIC_PASS_GLOBAL, .phase = 1, .stride_log = 0, .step_count = 0};
    bitonic_status status = end_passes(&sorter->gl, &saved, draw_pass(sorter, set, sorter->scratch, 0, &copy));
    if (result)
        result->draws += 1u;
    return status;
}

/* The framebuffer lets go of the caller's texture, so deleting it frees it. */
static void detach_caller_texture(const bitonic_gles_sorter *sorter)
{
    const bitonic_gl *gl = &sorter->gl;
    GLint bound = 0;
    gl->glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &bound);
    gl->glBindFramebuffer(GL_DRAW_FRAMEBUFFER, sorter->framebuffers[0]);
    gl->glFramebufferTexture2D(GL_DRAW_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, 0, 0);
    gl->glBindFramebuffer(GL_DRAW_FRAMEBUFFER, (GLuint)bound);
}

bitonic_status bitonic_gles_record_sort(bitonic_gles_sorter *sorter, const bitonic_gles_sort_info *info,
                                        bitonic_gles_sort_result *result)
{
    if (!sorter || !info)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    if (result)
        *result = (bitonic_gles_sort_result){0};
    bitonic_status status = check_info(sorter, info);
    if (status != BITONIC_SUCCESS || info->count <= 1)
        return status;
    while (sorter->gl.glGetError() != GL_NO_ERROR) {
        /* errors raised before the call are the caller's, not the sort's */
    }
    status = ensure_scratch(sorter, bitonic_gles_texel_format(info->texels, info->key_type), info->width,
                            info->height);
    bool in_scratch = false;
    if (status == BITONIC_SUCCESS)
        status = bitonic_gles_run_network(sorter, info, sorter->scratch, &in_scratch, result);
    if (status == BITONIC_SUCCESS && in_scratch)
        status = copy_home(sorter, info, result);
    detach_caller_texture(sorter);
    return status;
}
