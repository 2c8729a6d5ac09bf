/* reference_partition.c: the partition sort's steps on the CPU (see
 * reference_partition.h). Written for clarity, not speed: each step is the plain
 * loop its kernel would spread over workgroups. */
#include "reference_partition.h"

#include <stdlib.h>
#include <string.h>

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* splitmix64: the position of a sample within its stretch of keys. */
static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

uint64_t bitonic_partition_bucket(uint64_t key, const uint64_t *splitters, uint64_t m)
{
    uint64_t low = 0, high = m;  /* the first splitter not below key */
    while (low < high) {
        uint64_t mid = low + (high - low) / 2u;
        if (splitters[mid] < key)
            low = mid + 1u;
        else
            high = mid;
    }
    return 2u * low + (low < m && splitters[low] == key ? 1u : 0u);
}

uint64_t bitonic_reference_partition_splitters(const uint64_t *keys, uint64_t count,
                                               const bitonic_partition_plan *plan, uint64_t *splitters)
{
    if (count == 0)
        return 0;
    /* One sample from each of sample_count equal stretches, at a position of
     * its own: evenly spaced samples would all fall on the same phase of a
     * periodic input (a grid's rows, say) and see one value. */
    uint64_t samples = plan->sample_count < count ? plan->sample_count : count;
    for (uint64_t j = 0; j < samples; ++j) {
        uint64_t first = j * count / samples, end = (j + 1u) * count / samples;
        splitters[j] = keys[first + mix(plan->seed ^ j) % (end - first)];
    }
    qsort(splitters, samples, sizeof *splitters, compare_u64);
    uint64_t m = 0;
    for (uint64_t j = plan->samples_per_splitter - 1u; j < samples; j += plan->samples_per_splitter)
        if (m == 0 || splitters[m - 1u] != splitters[j])
            splitters[m++] = splitters[j];
    return m;
}

/* Merges sorted keys[first .. middle-1] and keys[middle .. end-1] in place
 * through scratch. */
static void merge_halves(uint64_t *keys, uint64_t first, uint64_t middle, uint64_t end, uint64_t *scratch)
{
    uint64_t a = first, b = middle, out = 0;
    while (a < middle && b < end)
        scratch[out++] = keys[b] < keys[a] ? keys[b++] : keys[a++];
    while (a < middle)
        scratch[out++] = keys[a++];
    while (b < end)
        scratch[out++] = keys[b++];
    memcpy(keys + first, scratch, (end - first) * sizeof *keys);
}

bool bitonic_reference_partition_sort_with(uint64_t *keys, uint64_t count, uint64_t window_keys,
                                           const uint64_t *splitters, uint64_t m, bitonic_partition_report *report)
{
    uint64_t window = window_keys;
    if (window < 2u || window % 2u != 0)
        return false;
    bitonic_partition_report local = {0};
    uint64_t *scratch = malloc((count + 1u) * sizeof *scratch);
    uint64_t *bucket_first = malloc((2u * m + 2u) * sizeof *bucket_first);
    bool ok = scratch && bucket_first;
    if (ok) {
        /* Step 2: count, scan, scatter (stable). */
        memset(bucket_first, 0, (2u * m + 2u) * sizeof *bucket_first);
        for (uint64_t i = 0; i < count; ++i)
            ++bucket_first[bitonic_partition_bucket(keys[i], splitters, m) + 1u];
        for (uint64_t b = 0; b < 2u * m + 1u; ++b) {
            uint64_t keys_in = bucket_first[b + 1u];
            if (b % 2u == 0 && keys_in > local.longest_open_bucket)
                local.longest_open_bucket = keys_in;
            if (b % 2u == 1 && keys_in > local.longest_equal_bucket)
                local.longest_equal_bucket = keys_in;
            bucket_first[b + 1u] += bucket_first[b];
        }
        for (uint64_t i = 0; i < count; ++i)
            scratch[bucket_first[bitonic_partition_bucket(keys[i], splitters, m)]++] = keys[i];
        memcpy(keys, scratch, count * sizeof *keys);
        local.splitters = m;
        local.fell_back = local.longest_open_bucket > window / 2u;

        /* Step 3: aligned runs of W sorted; in the fallback the merge levels go
         * on until one run holds every key. */
        for (uint64_t r = 0; r < count; r += window)
            qsort(keys + r, count - r < window ? count - r : window, sizeof *keys, compare_u64);
        for (uint64_t run = window; local.fell_back && run < count; run *= 2u)
            for (uint64_t first = 0; first + run < count; first += 2u * run)
                merge_halves(keys, first, first + run, count - first < 2u * run ? count : first + 2u * run, scratch);

        /* Step 4: the halves of every window that starts half a window past an
         * aligned run. */
        for (uint64_t first = window / 2u; first + window / 2u < count; first += window) {
            uint64_t end = count - first < window ? count : first + window;
            merge_halves(keys, first, first + window / 2u, end, scratch);
        }
    }
    if (report)
        *report = local;
    free(scratch);
    free(bucket_first);
    return ok;
}

bool bitonic_reference_partition_sort(uint64_t *keys, uint64_t count, const bitonic_partition_plan *plan,
                                      bitonic_partition_report *report)
{
    if (plan->sample_count == 0 || plan->samples_per_splitter == 0)
        return false;
    uint64_t *splitters = malloc(plan->sample_count * sizeof *splitters);
    if (!splitters)
        return false;
    uint64_t m = bitonic_reference_partition_splitters(keys, count, plan, splitters);
    bool ok = bitonic_reference_partition_sort_with(keys, count, plan->window_keys, splitters, m, report);
    free(splitters);
    return ok;
}
