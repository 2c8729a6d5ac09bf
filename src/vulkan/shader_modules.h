/* shader_modules.h: the SPIR-V modules the library embeds, one per kernel
 * build (shaders/CMakeLists.txt names them: kernel, form, keys a thread),
 * compressed in a table sorted by name (cmake/embed_spirv.cmake), and the
 * call that finds one and inflates it for vkCreateShaderModule. */
#ifndef BITONIC_SHADER_MODULES_H
#define BITONIC_SHADER_MODULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct bitonic_shader_module {
    const char *name;          /* for example "tile_sort_lanes_pass_values_i64_r3" */
    const uint8_t *deflated;   /* raw DEFLATE stream (RFC 1951) */
    uint32_t deflated_size;
    uint32_t size;             /* bytes of SPIR-V it inflates to, a multiple of 4 */
    uint32_t crc32;            /* of those bytes */
} bitonic_shader_module;

/* Generated (bitonic_shaders.c), sorted by strcmp of their names. */
extern const bitonic_shader_module bitonic_shader_modules[];
extern const size_t bitonic_shader_module_count;

/* The module of that name, or NULL where it is not built. */
const bitonic_shader_module *bitonic_shader_module_find(const char *name);

/* Inflates a module into code, which holds module->size bytes (4-byte
 * aligned for SPIR-V). False where the stream or its CRC-32 is wrong. */
bool bitonic_shader_module_inflate(const bitonic_shader_module *module, uint32_t *code);

#endif /* BITONIC_SHADER_MODULES_H */
