/* test_device_addresses.c: the device-address ("wide") kernels, which take
 * merge sorts past the largest storage-buffer binding (4 GiB on NVIDIA). Such
 * sizes do not fit a test, so force_device_addresses sends small sorts down the
 * same path: every key type, keys and pairs, both orders, at sizes around the
 * tile and the merge levels (powers of two, one off them, and odd ones), with
 * the split pass, the in-merge split search, two merge shapes and both tile
 * kernels. Each result must equal the CPU path's bit for bit (pairs are ordered
 * by key, then value, on every backend). Validation is on. */
#define _POSIX_C_SOURCE 200809L  /* setenv, unsetenv, strdup */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bitonic.h"
#include "bitonic_tuning_overrides.h"
#include "test_util.h"
#include "vulkan_test_device.h"

static const char *type_names[] = {"u32", "i32", "f32", "u64", "i64", "f64"};

static bool is_key64(bitonic_key_type type)
{
    return type >= BITONIC_KEY_U64;
}

/* Random bits with many duplicates, and the float specials (NaNs of both
 * signs, infinities, both zeros) where the type is a float. */
static void fill_keys(bitonic_key_type type, void *keys, size_t n, uint64_t *seed)
{
    static const uint32_t special32[] = {0x7fc00000u, 0xffc00000u, 0x7f800000u, 0xff800000u, 0x00000000u,
                                         0x80000000u, 0x00000001u, 0x3f800000u};
    static const uint64_t special64[] = {0x7ff8000000000000ull, 0xfff8000000000000ull, 0x7ff0000000000000ull,
                                         0xfff0000000000000ull, 0x0000000000000000ull, 0x8000000000000000ull,
                                         0x0000000000000001ull, 0x3ff0000000000000ull};
    for (size_t i = 0; i < n; ++i) {
        uint64_t r = test_random_u64(seed);
        bool special = (type == BITONIC_KEY_F32 || type == BITONIC_KEY_F64) && (r & 7u) == 0;
        bool duplicate = (r & 3u) == 1;
        if (is_key64(type)) {
            uint64_t key = special ? special64[(r >> 8) % 8u] : duplicate ? (r >> 8) % 5u : test_random_u64(seed);
            memcpy((unsigned char *)keys + 8 * i, &key, 8);
        } else {
            uint32_t key = special ? special32[(r >> 8) % 8u] : duplicate ? (uint32_t)((r >> 8) % 5u)
                                                                          : (uint32_t)test_random_u64(seed);
            memcpy((unsigned char *)keys + 4 * i, &key, 4);
        }
    }
}

/* Where a wrong result first differs, and the keys (and values) around it on
 * both sides: the pattern says which pass went wrong (a merge's slice, a split,
 * a tile's store). */
static void print_difference(const unsigned char *gpu_keys, const unsigned char *cpu_keys, const uint32_t *gpu_values,
                             const uint32_t *cpu_values, bool pairs, size_t n, size_t key_bytes)
{
    size_t first = 0;
    while (first < n && memcmp(gpu_keys + first * key_bytes, cpu_keys + first * key_bytes, key_bytes) == 0 &&
           (!pairs || gpu_values[first] == cpu_values[first]))
        ++first;
    size_t wrong = 0;
    for (size_t i = first; i < n; ++i)
        wrong += memcmp(gpu_keys + i * key_bytes, cpu_keys + i * key_bytes, key_bytes) != 0 ||
                 (pairs && gpu_values[i] != cpu_values[i]);
    printf("  first difference at %zu of %zu, %zu positions differ; index: gpu | cpu\n", first, n, wrong);
    size_t from = first > 4 ? first - 4 : 0, to = first + 12 < n ? first + 12 : n;
    for (size_t i = from; i < to; ++i) {
        uint64_t g = 0, c = 0;
        memcpy(&g, gpu_keys + i * key_bytes, key_bytes);
        memcpy(&c, cpu_keys + i * key_bytes, key_bytes);
        if (pairs)
            printf("    %zu: %016" PRIx64 ",%u | %016" PRIx64 ",%u\n", i, g, gpu_values[i], c, cpu_values[i]);
        else
            printf("    %zu: %016" PRIx64 " | %016" PRIx64 "\n", i, g, c);
    }
}

/* One sort on both contexts (the same input), compared bit for bit. */
static bool check_one(bitonic_context *gpu, bitonic_context *cpu, bitonic_key_type type, bitonic_order order,
                      bool pairs, size_t n, uint64_t *seed)
{
    size_t key_bytes = is_key64(type) ? 8u : 4u;
    size_t bytes = (n ? n : 1) * key_bytes;
    unsigned char *gpu_keys = malloc(bytes), *cpu_keys = malloc(bytes);
    uint32_t *gpu_values = malloc((n ? n : 1) * 4u), *cpu_values = malloc((n ? n : 1) * 4u);
    bool ok = gpu_keys && cpu_keys && gpu_values && cpu_values;
    if (ok) {
        fill_keys(type, gpu_keys, n, seed);
        memcpy(cpu_keys, gpu_keys, n * key_bytes);
        for (size_t i = 0; i < n; ++i)
            gpu_values[i] = cpu_values[i] = (uint32_t)(test_random_u64(seed) % (n + 1u));
        bitonic_sort_options options = {.order = order, .key_type = type};
        bitonic_status gpu_status = pairs ? bitonic_sort_pairs(gpu, gpu_keys, gpu_values, n, &options)
                                          : bitonic_sort(gpu, gpu_keys, n, &options);
        bitonic_status cpu_status = pairs ? bitonic_sort_pairs(cpu, cpu_keys, cpu_values, n, &options)
                                          : bitonic_sort(cpu, cpu_keys, n, &options);
        ok = gpu_status == BITONIC_SUCCESS && cpu_status == BITONIC_SUCCESS &&
             memcmp(gpu_keys, cpu_keys, n * key_bytes) == 0 &&
             (!pairs || memcmp(gpu_values, cpu_values, n * 4u) == 0);
        if (gpu_status != BITONIC_SUCCESS)
            printf("  gpu: %s\n", bitonic_status_string(gpu_status));
        else if (!ok)
            print_difference(gpu_keys, cpu_keys, gpu_values, cpu_values, pairs, n, key_bytes);
    }
    free(gpu_keys);
    free(cpu_keys);
    free(gpu_values);
    free(cpu_values);
    return ok;
}

/* Every type, keys and pairs, at sizes around a tile of tile_keys keys and the
 * merge levels above it (the order alternates with the size). */
static void run_shape(test_counter *t, bitonic_context_desc desc, bitonic_tuning_overrides tuning,
                      bitonic_context *cpu, int shape_number, const char *label)
{
    desc.next = &tuning;
    /* BITONIC_TEST_SHAPE=N runs only shape N, so a slow device (validation on
     * a GPU) can give each shape its own time limit. */
    const char *only = getenv("BITONIC_TEST_SHAPE");
    if (only && *only && atoi(only) != shape_number)
        return;
    printf("shape %d: %s\n", shape_number, label);
    fflush(stdout);
    /* BITONIC_TEST_BOUND=1: the same shapes with bound buffers, a control for
     * a failure of the wide path on one device. */
    const char *bound = getenv("BITONIC_TEST_BOUND");
    bool control = bound && strcmp(bound, "1") == 0;
    if (control)
        tuning.force_device_addresses = false;
    bitonic_context *gpu;
    bitonic_status status = bitonic_context_create(&desc, &gpu);
    if (!TEST_CHECK(t, status == BITONIC_SUCCESS, "%s: context (%s)", label, bitonic_status_string(status)))
        return;
    bitonic_context_info info;
    bitonic_context_get_info(gpu, &info);
    if (!control &&
        !TEST_CHECK(t, info.device_addresses, "%s: the device has no device addresses (bufferDeviceAddress, "
                                              "shaderInt64): the wide path cannot be tested", label)) {
        bitonic_context_destroy(gpu);
        return;
    }
    size_t tile = info.tile_keys;
    size_t sizes[] = {2, 3, tile - 1, tile, tile + 1, 2 * tile - 3, 2 * tile, 3 * tile + 5, 4 * tile,
                      4 * tile + 1, 7 * tile - 11, 16 * tile + 3};
    uint64_t seed = 1234;
    for (int type = BITONIC_KEY_U32; type <= BITONIC_KEY_F64; ++type)
        for (int pairs = 0; pairs <= 1; ++pairs)
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
                bitonic_order order = (s + (size_t)type) % 2 ? BITONIC_ORDER_DESCENDING : BITONIC_ORDER_ASCENDING;
                TEST_CHECK(t, check_one(gpu, cpu, (bitonic_key_type)type, order, pairs, sizes[s], &seed),
                           "%s: %s %s %s, %zu keys (tile %zu)", label, type_names[type], pairs ? "pairs" : "keys",
                           order == BITONIC_ORDER_DESCENDING ? "descending" : "ascending", sizes[s], tile);
            }
    bitonic_context_get_info(gpu, &info);
    TEST_CHECK(t, info.validation_messages == 0, "%s: %" PRIu64 " validation messages", label,
               info.validation_messages);
    bitonic_context_destroy(gpu);
}

int main(void)
{
    test_counter t = {0};
    unsigned printed = 0;
    bitonic_context *cpu;
    if (!TEST_CHECK(&t, bitonic_context_create(&(bitonic_context_desc){.device = "cpu"}, &cpu) == BITONIC_SUCCESS,
                    "cpu context"))
        return test_finish(&t);
    /* On by default where the device has the features (every device the tests
     * run on); BITONIC_DEVICE_ADDRESSES=0 keeps the binding's limit. Both
     * contexts are checked, the environment set for each and restored. */
    if (!getenv("BITONIC_TEST_SHAPE")) {
        const char *asked = getenv("BITONIC_DEVICE_ADDRESSES");
        char *saved = asked ? strdup(asked) : NULL;
        for (int off = 0; off <= 1; ++off) {
            if (off)
                setenv("BITONIC_DEVICE_ADDRESSES", "0", 1);
            else
                unsetenv("BITONIC_DEVICE_ADDRESSES");
            bitonic_context *plain;
            if (!TEST_CHECK(&t, bitonic_context_create(&(bitonic_context_desc){.device = test_device_selector(),
                                                                               .no_disk_cache = true},
                                                       &plain) == BITONIC_SUCCESS,
                            "plain context"))
                continue;
            bitonic_context_info info;
            bitonic_context_get_info(plain, &info);
            if (off)
                TEST_CHECK(&t, !info.device_addresses && info.max_keys == info.bound_max_keys,
                           "BITONIC_DEVICE_ADDRESSES=0: device addresses %d, max_keys %" PRIu64
                           " against the binding's %" PRIu64,
                           (int)info.device_addresses, info.max_keys, info.bound_max_keys);
            else
                TEST_CHECK(&t, info.device_addresses && info.max_keys > info.bound_max_keys,
                           "by default: device addresses %d, max_keys %" PRIu64 " against the binding's %" PRIu64,
                           (int)info.device_addresses, info.max_keys, info.bound_max_keys);
            bitonic_context_destroy(plain);
        }
        if (saved)
            setenv("BITONIC_DEVICE_ADDRESSES", saved, 1);
        else
            unsetenv("BITONIC_DEVICE_ADDRESSES");
        free(saved);
    }
    bitonic_context_desc desc = {.device = test_device_selector(), .validation = test_validation(),
                                 .on_validation_message = test_print_validation_message,
                                 .message_user_data = &printed, .crossover_keys = 1, .no_disk_cache = true};
    bitonic_tuning_overrides tuning = {.type = BITONIC_STRUCTURE_TYPE_TUNING_OVERRIDES, .force_device_addresses = true,
                                       .tile_keys = 64, .merge_chunk_keys = 32};
    /* Many chunks a merge: every merge finds its splits in a pass of its own. */
    tuning.merge_split_pass_min_chunks = 2;
    run_shape(&t, desc, tuning, cpu, 0, "wide, split pass");
    /* Guessing split searches asked for: the wide path searches by plain
     * rounds anyway (the guessing build gave wrong splits on the H100). */
    tuning.merge_split_guided_min_chunks = 1;
    run_shape(&t, desc, tuning, cpu, 6, "wide, guided split pass asked for");
    tuning.merge_split_guided_min_chunks = 0;
    /* Few: the merge workgroups search their splits themselves. */
    tuning.merge_split_pass_min_chunks = 1u << 20;
    run_shape(&t, desc, tuning, cpu, 1, "wide, splits in the merge");
    /* Another merge shape: chunks of 128 keys. */
    tuning.merge_split_pass_min_chunks = 2;
    tuning.merge_chunk_keys = 128;
    run_shape(&t, desc, tuning, cpu, 2, "wide, 128-key chunks");
    tuning.merge_chunk_keys = 32;
    /* Asking for the shared-memory merge changes nothing: the device-address
     * merge is always the direct one (sorter/device_address.c, sorter_create_wide_variants). */
    tuning.merge_kernel = BITONIC_MERGE_KERNEL_SHARED;
    tuning.merge_scalar_io = true;
    run_shape(&t, desc, tuning, cpu, 3, "wide, shared merge asked for");
    tuning.merge_scalar_io = false;
    tuning.no_subgroup_shuffle = true;  /* the shared-memory tile kernel */
    run_shape(&t, desc, tuning, cpu, 4, "wide, shared-memory tile");
    /* The device's own shapes (its tile, chunk and kernels). */
    run_shape(&t, desc,
              (bitonic_tuning_overrides){.type = BITONIC_STRUCTURE_TYPE_TUNING_OVERRIDES, .force_device_addresses = true},
              cpu, 5, "wide, device shapes");
    bitonic_context_destroy(cpu);
    TEST_CHECK(&t, printed == 0, "no validation message");
    return test_finish(&t);
}
