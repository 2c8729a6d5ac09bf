/* test_shader_modules.c: the embedded SPIR-V modules (shader_modules.h) are
 * sorted by name and each inflates to a SPIR-V module whose CRC-32 matches;
 * the decoder refuses damaged streams; and every build of a kernel that the
 * tuning takes on any device Vulkan allows is embedded (the names follow
 * src/vulkan/sorter/pipelines.c, which picks the builds). */
#include <stdlib.h>
#include <string.h>

#include "inflate.h"
#include "shader_modules.h"
#include "test_util.h"
#include "tuning.h"
#include "vk_internal.h"

/* "sorting networks sort sorting networks" as a stored block and as a block of
 * fixed codes (zlib, raw DEFLATE), and its CRC-32. */
static const char plain_text[] = "sorting networks sort sorting networks";
static const uint8_t stored_stream[] = {0x01, 0x26, 0x00, 0xd9, 0xff, 0x73, 0x6f, 0x72, 0x74, 0x69, 0x6e, 0x67, 0x20,
                                        0x6e, 0x65, 0x74, 0x77, 0x6f, 0x72, 0x6b, 0x73, 0x20, 0x73, 0x6f, 0x72, 0x74,
                                        0x20, 0x73, 0x6f, 0x72, 0x74, 0x69, 0x6e, 0x67, 0x20, 0x6e, 0x65, 0x74, 0x77,
                                        0x6f, 0x72, 0x6b, 0x73};
static const uint8_t fixed_stream[] = {0x2b, 0xce, 0x2f, 0x2a, 0xc9, 0xcc, 0x4b, 0x57, 0xc8, 0x4b, 0x2d, 0x29, 0xcf,
                                       0x2f, 0xca, 0x2e, 0x56, 0x28, 0x06, 0x0a, 0x80, 0x09, 0x64, 0x51, 0x00};
#define PLAIN_CRC32 0x6b207a2fu

static void check_decoder(test_counter *t)
{
    size_t size = sizeof plain_text - 1;
    uint8_t out[64];
    TEST_CHECK(t, bitonic_crc32((const uint8_t *)plain_text, size) == PLAIN_CRC32, "CRC-32 of a known text");
    memset(out, 0, sizeof out);
    TEST_CHECK(t, bitonic_inflate(stored_stream, sizeof stored_stream, out, size) && memcmp(out, plain_text, size) == 0,
               "a stored block inflates");
    memset(out, 0, sizeof out);
    TEST_CHECK(t, bitonic_inflate(fixed_stream, sizeof fixed_stream, out, size) && memcmp(out, plain_text, size) == 0,
               "a block of fixed codes inflates");
    TEST_CHECK(t, !bitonic_inflate(fixed_stream, sizeof fixed_stream, out, size - 1), "output one byte short: refused");
    TEST_CHECK(t, !bitonic_inflate(fixed_stream, sizeof fixed_stream, out, size + 1), "output one byte long: refused");
    uint32_t refused = 0, cuts = 0;
    for (size_t cut = 0; cut < sizeof fixed_stream; ++cut, ++cuts)
        refused += !bitonic_inflate(fixed_stream, cut, out, size);
    TEST_CHECK(t, refused == cuts, "every truncated stream refused (%u of %u)", refused, cuts);
    uint8_t damaged[sizeof stored_stream];
    memcpy(damaged, stored_stream, sizeof damaged);
    damaged[3] ^= 1u;  /* the length's complement */
    TEST_CHECK(t, !bitonic_inflate(damaged, sizeof damaged, out, size), "a stored block with a wrong complement");
    uint8_t reserved[] = {0x07, 0x00};  /* a last block of the reserved type 3 */
    TEST_CHECK(t, !bitonic_inflate(reserved, sizeof reserved, out, size), "the reserved block type refused");
    /* Every single bit flipped in the fixed stream: never past the output
     * (the buffer's guard bytes stay), and right or refused. */
    uint8_t flipped[sizeof fixed_stream];
    uint32_t guarded = 0, flips = 0;
    for (size_t bit = 0; bit < 8 * sizeof fixed_stream; ++bit, ++flips) {
        memcpy(flipped, fixed_stream, sizeof flipped);
        flipped[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        memset(out, 0xa5, sizeof out);
        (void)bitonic_inflate(flipped, sizeof flipped, out, size);
        bool guard = true;
        for (size_t i = size; i < sizeof out; ++i)
            guard = guard && out[i] == 0xa5;
        guarded += guard;
    }
    TEST_CHECK(t, guarded == flips, "bit flips never write past the output (%u of %u)", guarded, flips);
}

static void check_embedded(test_counter *t)
{
    uint32_t sorted = 0, inflated = 0;
    uint64_t deflated_bytes = 0, bytes = 0;
    for (size_t i = 0; i < bitonic_shader_module_count; ++i) {
        const bitonic_shader_module *module = &bitonic_shader_modules[i];
        sorted += i == 0 || strcmp(bitonic_shader_modules[i - 1].name, module->name) < 0;
        uint32_t *code = module->size % 4u == 0 ? malloc(module->size) : NULL;
        if (code && bitonic_shader_module_inflate(module, code) && code[0] == 0x07230203u &&
            bitonic_shader_module_find(module->name) == module)
            ++inflated;
        else
            TEST_CHECK(t, false, "module %s inflates to SPIR-V and is found by name", module->name);
        free(code);
        deflated_bytes += module->deflated_size;
        bytes += module->size;
    }
    TEST_CHECK(t, sorted == bitonic_shader_module_count, "the table is sorted by name");
    TEST_CHECK(t, inflated == bitonic_shader_module_count, "%u modules inflate, %llu bytes from %llu", inflated,
               (unsigned long long)bytes, (unsigned long long)deflated_bytes);
    TEST_CHECK(t, bitonic_shader_module_find("tile_pass_r1") == NULL && bitonic_shader_module_find("") == NULL,
               "a build that is not embedded is not found");
}

/* The builds a variant of one form with this tuning takes (pipelines.c:
 * sorter_ensure_pipeline), each looked up. */
static uint32_t missing_builds(const bitonic_tuning *tuning, bitonic_kernel_form form, bool wide, bool small,
                               char *first_missing)
{
    const char *kernels[16];
    uint32_t logs[16], count = 0;
    if (!wide) {
        kernels[count] = tuning->tile_uses_shuffle ? "tile_shuffle_pass" : "tile_pass";
        logs[count++] = tuning->tile_register_log;
    }
    const char *tile_sort = tuning->tile_sort_uses_shuffle && !wide ? "tile_sort_lanes_pass" : "tile_sort_pass";
    kernels[count] = tile_sort;
    logs[count++] = tuning->tile_sort_register_log;
    if (tuning->short_tile_log != 0 && !wide) {
        kernels[count] = tile_sort;
        logs[count++] = tuning->short_tile_register_log;
    }
    for (uint32_t steps = 1; steps <= tuning->max_global_steps && !wide; ++steps) {
        kernels[count] = "global_pass";
        logs[count++] = steps;
    }
    bool direct = tuning->merge_direct || wide || small;
    kernels[count] = direct ? "merge_direct" : tuning->merge_fused_split_by_subgroup ? "merge_lanes_pass" : "merge_pass";
    logs[count++] = tuning->merge_register_log;
    kernels[count] = "merge_direct";
    logs[count++] = tuning->merge_register_log;
    kernels[count] = "merge_split";
    logs[count++] = 1;
    if (!wide) {
        kernels[count] = "transpose_pass";
        logs[count++] = 1;
        kernels[count] = tuning->partition_scan_by_subgroup ? "partition_lanes_pass" : "partition_pass";
        logs[count++] = 1;
        if (!(form.key64 && form.with_values)) {
            kernels[count] = tuning->partition_scan_by_subgroup ? "partition_lanes_stored_pass" : "partition_stored_pass";
            logs[count++] = 1;
        }
    }
    uint32_t missing = 0;
    for (uint32_t i = 0; i < count; ++i) {
        char name[BITONIC_MODULE_NAME_CAPACITY];
        bitonic_kernel_module_name(name, kernels[i], form, wide, logs[i]);
        if (!bitonic_shader_module_find(name) && missing++ == 0)
            strcpy(first_missing, name);
    }
    /* Packed pairs' window merge: the pairs' merge built for 64-bit words. */
    if (form.with_values && !form.key64 && !wide && !small) {
        char name[BITONIC_MODULE_NAME_CAPACITY];
        snprintf(name, sizeof name, "%s_k64_unpack_r%u",
                 tuning->merge_fused_split_by_subgroup ? "merge_lanes_pass" : "merge_pass",
                 (unsigned)tuning->merge_register_log);
        if (!bitonic_shader_module_find(name) && missing++ == 0)
            strcpy(first_missing, name);
    }
    return missing;
}

static void check_builds_for_every_device(test_counter *t)
{
    static const uint32_t invocations[] = {128, 256, 512, 1024};
    static const uint32_t shared[] = {16384, 32768, 49152, 65536};
    static const uint32_t subgroups[] = {1, 4, 8, 16, 32, 64, 128};
    static const bitonic_kernel_form forms[] = {
        {false, false, false}, {true, false, false}, {true, false, true}, {false, true, false}, {true, true, false}};
    uint32_t checked = 0, failed = 0;
    for (size_t i = 0; i < sizeof invocations / sizeof *invocations; ++i)
        for (size_t m = 0; m < sizeof shared / sizeof *shared; ++m)
            for (size_t g = 0; g < sizeof subgroups / sizeof *subgroups; ++g)
                for (uint32_t features = 0; features < 8u; ++features)
                    for (size_t f = 0; f < sizeof forms / sizeof *forms; ++f)
                        for (int kind = 0; kind < 3; ++kind) {  /* bound, wide, small sorts */
                            bitonic_kernel_form form = forms[f];
                            bool wide = kind == 1, small = kind == 2;
                            if ((wide && form.pairs_as_int64) || (small && (form.with_values || form.key64)))
                                continue;
                            bitonic_device_limits limits = {invocations[i], invocations[i], shared[m], subgroups[g],
                                                            (features & 1u) != 0, (features & 2u) != 0,
                                                            (features & 4u) != 0, 0};
                            uint32_t bytes = (form.key64 ? 8u : 4u) + (form.with_values ? 4u : 0u);
                            bitonic_tuning tuning = {0};
                            uint64_t small_max = 0;
                            bool derived = small ? bitonic_tuning_derive_small(&limits, bytes, 0, 0, &tuning, &small_max)
                                                 : bitonic_tuning_derive(&limits, bytes, 0, 0, 0, &tuning);
                            char name[BITONIC_MODULE_NAME_CAPACITY] = "";
                            ++checked;
                            if (!derived || missing_builds(&tuning, form, wide, small, name) != 0) {
                                if (failed++ < 5)
                                    TEST_CHECK(t, false, "device %u invocations, %u bytes, subgroup %u, features %u: "
                                               "%s is embedded", limits.max_workgroup_invocations,
                                               limits.max_shared_memory_bytes, limits.subgroup_size, features,
                                               derived ? name : "(no tuning)");
                            }
                        }
    TEST_CHECK(t, failed == 0, "every build the tuning takes is embedded (%u of %u devices and variants)",
               checked - failed, checked);
}

int main(void)
{
    test_counter t = {0};
    check_decoder(&t);
    check_embedded(&t);
    check_builds_for_every_device(&t);
    return test_finish(&t);
}
