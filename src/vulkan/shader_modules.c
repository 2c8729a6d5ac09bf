/* shader_modules.c: finding an embedded SPIR-V module by name (a binary
 * search of the sorted table) and inflating it (shader_modules.h). */
#include "shader_modules.h"

#include <string.h>

#include "inflate.h"

const bitonic_shader_module *bitonic_shader_module_find(const char *name)
{
    size_t low = 0, high = bitonic_shader_module_count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        int order = strcmp(bitonic_shader_modules[middle].name, name);
        if (order == 0)
            return &bitonic_shader_modules[middle];
        if (order < 0)
            low = middle + 1;
        else
            high = middle;
    }
    return NULL;
}

bool bitonic_shader_module_inflate(const bitonic_shader_module *module, uint32_t *code)
{
    uint8_t *bytes = (uint8_t *)code;
    return bitonic_inflate(module->deflated, module->deflated_size, bytes, module->size) &&
           bitonic_crc32(bytes, module->size) == module->crc32;
}
