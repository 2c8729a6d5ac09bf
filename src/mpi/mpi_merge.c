/* mpi_merge.c: the host merge of the sorted runs a rank received, one from
 * each rank, lying back to back in rank order.
 *
 * A tree of two-way merges: each level merges neighbouring runs into the other
 * buffer, so ceil(log2(runs)) passes over the data, each a branch-light loop
 * on ordered bits (keys are mapped once before and once after). A heap would
 * read the data once but pay a log(runs) sift per element with unpredictable
 * branches; with the few ranks of a node or a small cluster the tree is
 * simpler and as fast. Ties take the left run first, which keeps rank order. */
#include <string.h>

#include "mpi_internal.h"

/* Two-way merges for one key width: keys alone, pairs ordered by key then value
 * (unstable pairs), and pairs ordered by key alone (stable: left run first). */
#define DEFINE_MERGE_TWO(name, key_t)                                                                                \
    static void name(const key_t *a, const uint32_t *a_values, size_t a_count, const key_t *b,                     \
                     const uint32_t *b_values, size_t b_count, key_t *out, uint32_t *out_values, bool value_ties)  \
    {                                                                                                              \
        size_t i = 0, j = 0, o = 0;                                                                                \
        if (!a_values) {                                                                                           \
            while (i < a_count && j < b_count) {                                                                   \
                key_t x = a[i], y = b[j];                                                                          \
                bool take_b = y < x;                                                                               \
                out[o++] = take_b ? y : x;                                                                         \
                j += take_b;                                                                                       \
                i += !take_b;                                                                                      \
            }                                                                                                      \
        } else {                                                                                                   \
            while (i < a_count && j < b_count) {                                                                   \
                key_t x = a[i], y = b[j];                                                                          \
                uint32_t u = a_values[i], v = b_values[j];                                                         \
                bool take_b = y < x || (value_ties && y == x && v < u);                                            \
                out[o] = take_b ? y : x;                                                                           \
                out_values[o++] = take_b ? v : u;                                                                  \
                j += take_b;                                                                                       \
                i += !take_b;                                                                                      \
            }                                                                                                      \
            memcpy(out_values + o, a_values + i, (a_count - i) * sizeof *out_values);                            \
            memcpy(out_values + o + (a_count - i), b_values + j, (b_count - j) * sizeof *out_values);            \
        }                                                                                                          \
        memcpy(out + o, a + i, (a_count - i) * sizeof *out);                                                       \
        memcpy(out + o + (a_count - i), b + j, (b_count - j) * sizeof *out);                                       \
    }

DEFINE_MERGE_TWO(merge_two32, uint32_t)
DEFINE_MERGE_TWO(merge_two64, uint64_t)

static void to_ordered(const mpi_sort_shape *shape, void *keys, size_t count)
{
    if (shape->key_bytes == 8)
        bitonic_keys64_to_ordered(keys, count, shape->key_type, shape->flip);
    else
        bitonic_keys_to_ordered(keys, count, shape->key_type, (uint32_t)shape->flip);
}

static void from_ordered(const mpi_sort_shape *shape, void *keys, size_t count)
{
    if (shape->key_bytes == 8)
        bitonic_keys64_from_ordered(keys, count, shape->key_type, shape->flip);
    else
        bitonic_keys_from_ordered(keys, count, shape->key_type, (uint32_t)shape->flip);
}

bool mpi_merge_runs(const mpi_sort_shape *shape, void *keys, uint32_t *values, void *scratch_keys,
                    uint32_t *scratch_values, const uint64_t *run_starts, uint32_t runs)
{
    size_t total = (size_t)run_starts[runs];
    if (total == 0)
        return false;
    to_ordered(shape, keys, total);
    unsigned char *source = keys, *target = scratch_keys;
    uint32_t *source_values = values, *target_values = scratch_values;
    bool in_scratch = false;
    /* Level by level: runs [first, first + width) and [first + width, first + 2 width)
     * of the input become one run of the output, at the same place. */
    for (uint64_t width = 1; width < runs; width *= 2) {
        for (uint64_t first = 0; first < runs; first += 2 * width) {
            uint64_t begin = run_starts[first];
            uint64_t middle = run_starts[first + width < runs ? first + width : runs];
            uint64_t end = run_starts[first + 2 * width < runs ? first + 2 * width : runs];
            size_t a_count = (size_t)(middle - begin), b_count = (size_t)(end - middle);
            const uint32_t *a_values = shape->has_values ? source_values + begin : NULL;
            const uint32_t *b_values = shape->has_values ? source_values + middle : NULL;
            uint32_t *out_values = shape->has_values ? target_values + begin : NULL;
            if (shape->key_bytes == 8)
                merge_two64((const uint64_t *)source + begin, a_values, a_count, (const uint64_t *)source + middle,
                            b_values, b_count, (uint64_t *)target + begin, out_values, shape->value_ties);
            else
                merge_two32((const uint32_t *)source + begin, a_values, a_count, (const uint32_t *)source + middle,
                            b_values, b_count, (uint32_t *)target + begin, out_values, shape->value_ties);
        }
        unsigned char *swap = source;
        source = target;
        target = swap;
        uint32_t *swap_values = source_values;
        source_values = target_values;
        target_values = swap_values;
        in_scratch = !in_scratch;
    }
    from_ordered(shape, in_scratch ? scratch_keys : keys, total);
    return in_scratch;
}
