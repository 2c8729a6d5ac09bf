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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gles_api.h"
#include "gles_internal.h"
#include "schedule.h"

/* The fragment program for one step count, with its uniforms' locations. */
typedef struct gles_program {
    GLuint program;
    GLint u_width, u_count, u_phase, u_stride_log, u_copy, u_kind, u_key_type, u_order_xor, u_component;
} gles_program;

struct bitonic_gles_sorter {
    bitonic_gl gl;                   /* the entry points, loaded at creation */
    /* programs[s - 1] runs s steps a draw; the step count is a compile-time
     * constant, so the group's loops unroll and its texels stay in registers. */
    gles_program programs[BITONIC_GLES_MAX_STEPS_PER_DRAW];
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

/* u_kind: 0 keys (32-bit), 1 keys (64-bit), 2 pairs (32-bit key), 3 pairs
 * (64-bit key), 4 records. A texel's rank is a uvec4 compared word by word,
 * most significant first; 64-bit keys are (high, low) word pairs, since ES 3.0
 * has no 64-bit integers. The ordered maps are those of key_transform.h: its
 * select for negative NaNs, ~x + 0xff800001, equals the other arm,
 * (x ^ 0xffffffff) - 0x007fffff, modulo 2^32, so one expression serves. */
static const char fragment_source[] =
    "precision highp float;\n"
    "precision highp int;\n"
    "precision highp usampler2D;\n"
    "uniform usampler2D u_source;\n"
    "uniform uint u_width;\n"
    "uniform uint u_count;\n"
    "uniform uint u_phase;\n"
    "uniform uint u_stride_log;\n"
    "uniform uint u_copy;\n"
    "uniform int u_kind;\n"
    "uniform int u_key_type;\n"
    "uniform uint u_order_xor;\n"
    "uniform int u_component;\n"
    "out uvec4 o_texel;\n"
    "uvec4 fetch(uint index) {\n"
    "    return texelFetch(u_source, ivec2(int(index % u_width), int(index / u_width)), 0);\n"
    "}\n"
    "uint ordered32(uint x) {\n"
    "    if (u_key_type == 1) return x ^ 0x80000000u;\n"
    "    if (u_key_type == 2) {\n"
    "        uint sign_mask = 0u - (x >> 31);\n"
    "        return (x ^ (sign_mask | 0x80000000u)) - 0x007fffffu;\n"
    "    }\n"
    "    return x;\n"
    "}\n"
    "uvec2 sub64(uvec2 a, uvec2 b) {\n"
    "    return uvec2(a.x - b.x - (a.y < b.y ? 1u : 0u), a.y - b.y);\n"
    "}\n"
    "uvec2 ordered64(uvec2 x) {\n"
    "    if (u_key_type == 4) return uvec2(x.x ^ 0x80000000u, x.y);\n"
    "    if (u_key_type == 5) {\n"
    "        uint sign_mask = 0u - (x.x >> 31);\n"
    "        return sub64(uvec2(x.x ^ (sign_mask | 0x80000000u), x.y ^ sign_mask), uvec2(0x000fffffu, 0xffffffffu));\n"
    "    }\n"
    "    return x;\n"
    "}\n"
    "uvec4 rank(uvec4 t) {\n"
    "    if (u_kind == 0) return uvec4(ordered32(t.x) ^ u_order_xor, 0u, 0u, 0u);\n"
    "    if (u_kind == 1) return uvec4(ordered64(uvec2(t.y, t.x)) ^ uvec2(u_order_xor), 0u, 0u);\n"
    "    if (u_kind == 2) return uvec4(ordered32(t.x) ^ u_order_xor, t.y, 0u, 0u);\n"
    "    if (u_kind == 3) return uvec4(ordered64(uvec2(t.y, t.x)) ^ uvec2(u_order_xor), t.z, 0u);\n"
    "    if (u_component == 0) return uvec4(ordered32(t.x) ^ u_order_xor, t.y, t.z, t.w);\n"
    "    if (u_component == 1) return uvec4(ordered32(t.y) ^ u_order_xor, t.x, t.z, t.w);\n"
    "    if (u_component == 2) return uvec4(ordered32(t.z) ^ u_order_xor, t.x, t.y, t.w);\n"
    "    return uvec4(ordered32(t.w) ^ u_order_xor, t.x, t.y, t.z);\n"
    "}\n"
    "bool less(uvec4 a, uvec4 b) {\n"
    "    if (a.x != b.x) return a.x < b.x;\n"
    "    if (a.y != b.y) return a.y < b.y;\n"
    "    if (a.z != b.z) return a.z < b.z;\n"
    "    return a.w < b.w;\n"
    "}\n"
    /* The step group of this fragment, addressed as bitonic_group_key_index()
     * does: 2^steps members, ascending indices in register order, the upper
     * half mirrored when the group opens with the flip. Members at or past
     * u_count are never read; a comparator whose upper member is one of them is
     * skipped (+infinity). STEPS, 1 to 3, is defined ahead of this source;
     * u_copy makes the draw a copy. */
    "void main() {\n"
    "    uint index = uint(gl_FragCoord.y) * u_width + uint(gl_FragCoord.x);\n"
    "    const uint steps = STEPS;\n"
    "    if (u_copy != 0u || index >= u_count) {\n"
    "        o_texel = fetch(index);\n"
    "        return;\n"
    "    }\n"
    "    uint size = 1u << steps;\n"
    "    uint low_log = u_stride_log + 1u - steps;\n"
    "    uint low_mask = (1u << low_log) - 1u;\n"
    "    bool flip = u_stride_log + 1u == u_phase;\n"
    "    uint own = (index >> low_log) & (size - 1u);\n"
    "    uint low = index & low_mask;\n"
    "    if (flip && (own >> (steps - 1u)) != 0u) low = low_mask - low;\n"
    "    uint base = (index >> (low_log + steps)) << (low_log + steps);\n"
    "    uvec4 texels[8];\n"
    "    uvec4 ranks[8];\n"
    "    uint members[8];\n"
    "    for (uint r = 0u; r < size; ++r) {\n"
    "        bool mirrored = flip && (r >> (steps - 1u)) != 0u;\n"
    "        members[r] = base + (r << low_log) + (mirrored ? low_mask - low : low);\n"
    "        if (members[r] < u_count) {\n"
    "            texels[r] = fetch(members[r]);\n"
    "            ranks[r] = rank(texels[r]);\n"
    "        }\n"
    "    }\n"
    "    for (uint step = 0u; step < steps; ++step) {\n"
    "        uint partner_xor = step == 0u && flip ? size - 1u : size >> (step + 1u);\n"
    "        for (uint r = 0u; r < size; ++r) {\n"
    "            uint partner = r ^ partner_xor;\n"
    "            if (partner <= r || members[partner] >= u_count) continue;\n"
    "            if (less(ranks[partner], ranks[r])) {\n"
    "                uvec4 texel = texels[r]; texels[r] = texels[partner]; texels[partner] = texel;\n"
    "                uvec4 rank_of = ranks[r]; ranks[r] = ranks[partner]; ranks[partner] = rank_of;\n"
    "            }\n"
    "        }\n"
    "    }\n"
    "    o_texel = texels[own];\n"
    "}\n";

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

static GLuint compile_shader(const bitonic_gl *gl, GLenum type, const char *prefix, const char *source)
{
    GLuint shader = gl->glCreateShader(type);
    if (!shader)
        return 0;
    const char *sources[] = {"#version 300 es\n", prefix, source};
    gl->glShaderSource(shader, 3, sources, NULL);
    gl->glCompileShader(shader);
    GLint compiled = GL_FALSE;
    gl->glGetShaderiv(shader, GL_COMPILE_STATUS, &compiled);
    if (!compiled) {
        gl->glDeleteShader(shader);
        return 0;
    }
    return shader;
}

static GLuint link_program(const bitonic_gl *gl, uint32_t steps)
{
    char define[32];
    snprintf(define, sizeof define, "#define STEPS %uu\n", steps);
    GLuint vertex = compile_shader(gl, GL_VERTEX_SHADER, "", vertex_source);
    GLuint fragment = compile_shader(gl, GL_FRAGMENT_SHADER, define, fragment_source);
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
        for (uint32_t p = 0; p < BITONIC_GLES_MAX_STEPS_PER_DRAW; ++p)
            gl->glDeleteProgram(sorter->programs[p].program);
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
    for (uint32_t p = 0; p < sorter->steps_per_draw; ++p) {
        gles_program *program = &sorter->programs[p];
        program->program = link_program(gl, p + 1u);
        if (!program->program) {
            bitonic_gles_sorter_destroy(sorter);
            return BITONIC_ERROR_GL;
        }
        GLuint name = program->program;
        program->u_width = gl->glGetUniformLocation(name, "u_width");
        program->u_count = gl->glGetUniformLocation(name, "u_count");
        program->u_phase = gl->glGetUniformLocation(name, "u_phase");
        program->u_stride_log = gl->glGetUniformLocation(name, "u_stride_log");
        program->u_copy = gl->glGetUniformLocation(name, "u_copy");
        program->u_kind = gl->glGetUniformLocation(name, "u_kind");
        program->u_key_type = gl->glGetUniformLocation(name, "u_key_type");
        program->u_order_xor = gl->glGetUniformLocation(name, "u_order_xor");
        program->u_component = gl->glGetUniformLocation(name, "u_component");
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

static int kind_of(const bitonic_gles_sort_info *info)
{
    bool key64 = info->key_type >= BITONIC_KEY_U64;
    if (info->texels == BITONIC_GLES_TEXELS_KEYS)
        return key64 ? 1 : 0;
    if (info->texels == BITONIC_GLES_TEXELS_PAIRS)
        return key64 ? 3 : 2;
    return 4;
}

static bool attach(const bitonic_gl *gl, GLuint framebuffer, GLuint texture)
{
    gl->glBindFramebuffer(GL_DRAW_FRAMEBUFFER, framebuffer);
    gl->glFramebufferTexture2D(GL_DRAW_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, texture, 0);
    return gl->glCheckFramebufferStatus(GL_DRAW_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
}

/* One pass: reads source, renders the used rows into the framebuffer of target. */
static bitonic_status draw_pass(const bitonic_gles_sorter *sorter, GLuint source, int target, const bitonic_pass *pass)
{
    const bitonic_gl *gl = &sorter->gl;
    gl->glBindFramebuffer(GL_DRAW_FRAMEBUFFER, sorter->framebuffers[target]);
    gl->glBindTexture(GL_TEXTURE_2D, source);
    const gles_program *program = &sorter->programs[pass->step_count > 0 ? pass->step_count - 1u : 0u];
    gl->glUseProgram(program->program);
    gl->glUniform1ui(program->u_phase, pass->phase);
    gl->glUniform1ui(program->u_stride_log, pass->stride_log);
    gl->glUniform1ui(program->u_copy, pass->step_count == 0 ? 1u : 0u);
    gl->glDrawArrays(GL_TRIANGLES, 0, 3);
    if (sorter->check_every_pass && gl->glGetError() != GL_NO_ERROR)
        return BITONIC_ERROR_GL;
    return BITONIC_SUCCESS;
}

/* Saves the caller's state and sets up the draws of one sort: program,
 * uniforms, sampler, and a viewport of the rows that hold keys, so the rest of
 * both textures is never touched. */
static void begin_passes(const bitonic_gles_sorter *sorter, const bitonic_gles_sort_info *info, saved_state *saved)
{
    const bitonic_gl *gl = &sorter->gl;
    save_state(gl, saved);
    for (int i = 0; i < 6; ++i)
        gl->glDisable(toggled_caps[i]);
    gl->glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);

    gl->glBindVertexArray(sorter->vertex_array);
    gl->glActiveTexture(GL_TEXTURE0);
    gl->glBindSampler(0, sorter->sampler);
    for (uint32_t p = 0; p < sorter->steps_per_draw; ++p) {
        const gles_program *program = &sorter->programs[p];
        gl->glUseProgram(program->program);
        gl->glUniform1ui(program->u_width, info->width);
        gl->glUniform1ui(program->u_count, info->count);
        gl->glUniform1i(program->u_kind, kind_of(info));
        gl->glUniform1i(program->u_key_type, (GLint)info->key_type);
        gl->glUniform1ui(program->u_order_xor, info->order == BITONIC_ORDER_DESCENDING ? 0xffffffffu : 0u);
        gl->glUniform1i(program->u_component, (GLint)info->record_component);
    }
    uint32_t rows = (info->count + info->width - 1u) / info->width;
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

    const bitonic_gl *gl = &sorter->gl;
    saved_state saved;
    begin_passes(sorter, info, &saved);
    GLuint textures[2] = {info->texture, other_texture};
    if (!attach(gl, sorter->framebuffers[0], textures[0]) || !attach(gl, sorter->framebuffers[1], textures[1])) {
        GLenum error = gl->glGetError();  /* an error here means a bad texture name, not a bad format */
        return end_passes(gl, &saved, error != GL_NO_ERROR ? BITONIC_ERROR_GL : BITONIC_ERROR_UNSUPPORTED);
    }
    int source = 0;
    for (uint32_t p = 0; p < pass_count && status == BITONIC_SUCCESS; ++p) {
        status = draw_pass(sorter, textures[source], 1 - source, &passes[p]);
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
static bitonic_status copy_home(const bitonic_gles_sorter *sorter, const bitonic_gles_sort_info *info,
                                bitonic_gles_sort_result *result)
{
    saved_state saved;
    begin_passes(sorter, info, &saved);
    bitonic_pass copy = {.kind = BITONIC_PASS_GLOBAL, .phase = 1, .stride_log = 0, .step_count = 0};
    bitonic_status status = end_passes(&sorter->gl, &saved, draw_pass(sorter, sorter->scratch, 0, &copy));
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
