/* pair_sort.c: the sort of pairs with 64-bit keys (and the argsort of 64-bit
 * keys), in (key, value) order, through the fast sort of 64-bit words, for
 * fewer pairs than the radix sort takes (stable_radix64.c, from 2^15 pairs
 * in cpu_backend.c). A (64-bit key, 32-bit value) pair does not fit one
 * word, so:
 * - If the keys span less than 2^32 (small integers, timestamps, any tied
 *   data), each pair is packed as ((key - smallest) << 32 | value) and sorted
 *   once, exactly as pairs with 32-bit keys are.
 * - Otherwise the pairs are sorted by the 32 bits below the top of their
 *   span, packed with each pair's position, moved to that order (a gather
 *   that stays in the caches at these sizes), and every run of equal top
 *   bits is then sorted by (the bits below, value). Random keys leave runs of
 *   one or two.
 * Scratch: count words and count values, the pairs' own size, in one block
 * (the caller's, when it keeps a buffer between calls). The quicksort that
 * moved each value with its key (AVX-512) and the buckets before the sort
 * for larger inputs gave way to the radix sort (docs/perf-log.md, entries
 * 115, 117 and 134). */
#include "pair_sort.h"

#include <string.h>

#include "pair_pack.h"

static unsigned bit_length(uint64_t value)
{
    unsigned length = 0;
    while (value) {
        value >>= 1;
        length++;
    }
    return length;
}

static void key_range(const uint64_t *keys, size_t count, uint64_t *smallest, uint64_t *largest)
{
    uint64_t low = keys[0], high = keys[0];
    for (size_t i = 1; i < count; i++) {
        low = keys[i] < low ? keys[i] : low;
        high = keys[i] > high ? keys[i] : high;
    }
    *smallest = low;
    *largest = high;
}

/* The threads of the passes over all pairs: the sort's, one slice of at least
 * BITONIC_CPU_PARALLEL_MIN_SLICE pairs each. */
static uint32_t pass_threads(size_t count, const bitonic_cpu_sort_config *config)
{
    uint32_t threads = bitonic_cpu_sort_threads(count, config);
    size_t most = count / BITONIC_CPU_PARALLEL_MIN_SLICE;
    if (threads > most)
        threads = most > 0 ? (uint32_t)most : 1u;
    return threads > BITONIC_CPU_MAX_THREADS ? BITONIC_CPU_MAX_THREADS : threads;
}

typedef struct range_job {
    const uint64_t *keys;
    size_t begin, end;
    uint64_t smallest, largest;
} range_job;

static void range_run(void *arg)
{
    range_job *job = arg;
    key_range(job->keys + job->begin, job->end - job->begin, &job->smallest, &job->largest);
}

static void parallel_key_range(const uint64_t *keys, size_t count, uint32_t threads, uint64_t *smallest,
                               uint64_t *largest)
{
    range_job jobs[BITONIC_CPU_MAX_THREADS];
    for (uint32_t t = 0; t < threads; t++)
        jobs[t] = (range_job){keys, count * t / threads, count * (t + 1) / threads, 0, 0};
    bitonic_cpu_run_jobs(range_run, jobs, sizeof jobs[0], threads);
    *smallest = jobs[0].smallest;
    *largest = jobs[0].largest;
    for (uint32_t t = 1; t < threads; t++) {
        *smallest = jobs[t].smallest < *smallest ? jobs[t].smallest : *smallest;
        *largest = jobs[t].largest > *largest ? jobs[t].largest : *largest;
    }
}

/* Keys that span under 2^32: ((key - smallest) << 32 | value) and back. */
typedef struct packed_pass {
    uint64_t *keys, *words;
    uint32_t *values;
    uint64_t smallest;
} packed_pass;

static void pack_slice(void *context, size_t begin, size_t end)
{
    const packed_pass *pass = context;
    for (size_t i = begin; i < end; i++)
        pass->words[i] = (pass->keys[i] - pass->smallest) << 32 | pass->values[i];
}

static void unpack_slice(void *context, size_t begin, size_t end)
{
    const packed_pass *pass = context;
    for (size_t i = begin; i < end; i++) {
        pass->keys[i] = pass->smallest + (pass->words[i] >> 32);
        pass->values[i] = (uint32_t)pass->words[i];
    }
}

/* Sorts a run of pairs whose (key - smallest) agree above bit `shift` (1..32)
 * by the bits below it, then by value; words: count scratch words. */
static bitonic_status sort_run(uint64_t *keys, uint32_t *values, uint64_t *words, size_t count, uint64_t smallest,
                               unsigned shift, const bitonic_cpu_sort_config *config)
{
    uint64_t low_mask = ((uint64_t)1 << shift) - 1;
    uint64_t base = smallest + ((keys[0] - smallest) & ~low_mask);
    for (size_t i = 0; i < count; i++)
        words[i] = ((keys[i] - smallest) & low_mask) << 32 | values[i];
    bitonic_status status = bitonic_cpu_sort_u64(words, count, BITONIC_ORDER_ASCENDING, config);
    for (size_t i = 0; i < count; i++) {
        keys[i] = base + (words[i] >> 32);
        values[i] = (uint32_t)words[i];
    }
    return status;
}

/* Sorts count pairs from in_keys and in_values, whose keys lie in [smallest,
 * largest], into keys and values, by (key, value). in_keys is scratch once its
 * pairs have been moved. */
static bitonic_status sort_spanned(uint64_t *keys, uint32_t *values, uint64_t *in_keys, const uint32_t *in_values,
                                   size_t count, uint64_t smallest, uint64_t largest,
                                   const bitonic_cpu_sort_config *config)
{
    bitonic_status status;
    if (largest - smallest <= UINT32_MAX) {
        for (size_t i = 0; i < count; i++)
            keys[i] = (in_keys[i] - smallest) << 32 | in_values[i];
        status = bitonic_cpu_sort_u64(keys, count, BITONIC_ORDER_ASCENDING, config);
        for (size_t i = 0; i < count; i++) {
            uint64_t word = keys[i];
            keys[i] = smallest + (word >> 32);
            values[i] = (uint32_t)word;
        }
        return status;
    }
    /* The span has 33 to 64 bits; (key - smallest) >> shift has 32. */
    unsigned shift = bit_length(largest - smallest) - 32;
    for (size_t i = 0; i < count; i++)
        keys[i] = ((in_keys[i] - smallest) >> shift) << 32 | (uint64_t)i;
    status = bitonic_cpu_sort_u64(keys, count, BITONIC_ORDER_ASCENDING, config);
    if (status != BITONIC_SUCCESS)
        return status;
    /* The gather notes whether any two neighbours share their top bits; when
     * none do (random keys, mostly), the pairs are in order and the scan for
     * runs is skipped. */
    uint64_t previous_top = UINT64_MAX, ties = 0;
    for (size_t i = 0; i < count; i++) {
        uint64_t word = keys[i];
        size_t from = (uint32_t)word;
        ties |= (word >> 32) == previous_top;
        previous_top = word >> 32;
        keys[i] = in_keys[from];
        values[i] = in_values[from];
    }
    for (size_t begin = 0; ties && begin < count && status == BITONIC_SUCCESS;) {
        uint64_t top = (keys[begin] - smallest) >> shift;
        size_t end = begin + 1;
        while (end < count && (keys[end] - smallest) >> shift == top)
            end++;
        if (end - begin == 2) {
            /* The common tie of random keys, without a call. */
            uint64_t a = keys[begin], b = keys[begin + 1];
            if (a > b || (a == b && values[begin] > values[begin + 1])) {
                keys[begin] = b;
                keys[begin + 1] = a;
                uint32_t swap = values[begin];
                values[begin] = values[begin + 1];
                values[begin + 1] = swap;
            }
        } else if (end - begin > 2) {
            status = sort_run(keys + begin, values + begin, in_keys, end - begin, smallest, shift, config);
        }
        begin = end;
    }
    return status;
}

bitonic_status bitonic_cpu_sort_pairs_u64(uint64_t *keys, uint32_t *values, size_t count, uint64_t *scratch,
                                          const bitonic_cpu_sort_config *config)
{
    if (count < 2)
        return BITONIC_SUCCESS;
    uint32_t threads = pass_threads(count, config);
    uint64_t smallest, largest;
    parallel_key_range(keys, count, threads, &smallest, &largest);
    if (largest - smallest > UINT32_MAX && count > UINT32_MAX)
        return BITONIC_ERROR_TOO_LARGE; /* a position would not fit the low half */
    uint64_t *words = scratch ? scratch : malloc(BITONIC_CPU_PAIRS_U64_SCRATCH_WORDS(count) * sizeof *words);
    if (!words)
        return BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    /* The values' scratch follows the words' (both 8-byte aligned). */
    uint32_t *moved_values = (uint32_t *)(words + count);
    bitonic_status status;
    if (largest - smallest <= UINT32_MAX) {
        packed_pass pass = {keys, words, values, smallest};
        bitonic_cpu_run_slices(pack_slice, &pass, count, threads);
        status = bitonic_cpu_sort_u64(words, count, BITONIC_ORDER_ASCENDING, config);
        bitonic_cpu_run_slices(unpack_slice, &pass, count, threads);
    } else {
        /* Sorted into the scratch (the keys are its scratch once moved), then
         * copied back while the scratch is in the caches. */
        status = sort_spanned(words, moved_values, keys, values, count, smallest, largest, config);
        memcpy(keys, words, count * sizeof *keys);
        memcpy(values, moved_values, count * sizeof *values);
    }
    if (!scratch)
        free(words);
    return status;
}

bitonic_status bitonic_cpu_sort_stable_pairs_u64(uint64_t *keys, uint32_t *values, size_t count, uint64_t *scratch,
                                                 const bitonic_cpu_sort_config *config)
{
    if (count < 2)
        return BITONIC_SUCCESS;
    uint32_t threads = bitonic_cpu_sort_threads(count, config);
    uint32_t *positions = (uint32_t *)(scratch + BITONIC_CPU_PAIRS_U64_SCRATCH_WORDS(count));
    bitonic_cpu_fill_positions(positions, count, threads);
    bitonic_status status = bitonic_cpu_sort_pairs_u64(keys, positions, count, scratch, config);
    if (status == BITONIC_SUCCESS) {
        bitonic_cpu_gather_values(positions, values, count, threads);
        bitonic_cpu_copy_values(values, positions, count, threads);
    }
    return status;
}
