/* pair_sort.c: the sort of pairs with 64-bit keys (and the argsort of 64-bit
 * keys), in (key, value) order, through the fast sort of 64-bit words.
 * A (64-bit key, 32-bit value) pair does not fit one word, so:
 * - If the keys span less than 2^32 (small integers, timestamps, any tied
 *   data), each pair is packed as ((key - smallest) << 32 | value) and sorted
 *   once, exactly as pairs with 32-bit keys are.
 * - Otherwise, with AVX-512, from 2^17 pairs, a quicksort that moves each
 *   value with its key sorts them in place on the sort's threads
 *   (pair_sort_avx512.c): no packing, no gather, no scratch.
 * - Otherwise (AVX2 or the baseline, or fewer pairs), from 2^20 pairs, one
 *   counting pass moves the pairs into buckets by the top bits of (key -
 *   smallest), each bucket about 2^14 pairs, and the buckets are sorted
 *   alone, shared out among the sort's threads
 *   (fewer pairs are sorted as one bucket). A bucket whose keys span under
 *   2^32 is packed and sorted once; any other is sorted by the 32 bits below
 *   the top of its span, packed with each pair's position, moved to that order
 *   (a gather that stays in the caches, since a bucket is small), and every
 *   run of equal top bits is then sorted by (the bits below, value). Random
 *   keys leave runs of one or two. Without the buckets that gather ran over the
 *   whole input: from 2^20 pairs every move missed the caches, and it took
 *   most of the call (perf-log entries 112 and 114).
 * Scratch: count words and count values, the pairs' own size, in one block
 * (the caller's, when it keeps a buffer between calls). */
#include "pair_sort.h"

#include <string.h>

#include "pair_pack.h"

/* A bucket of 2^14 pairs holds 192 KiB of keys, values and words: in L2. Of
 * 2^12 to 2^16, 2^14 was the fastest at 2^20, 2^22 and 2^23 pairs and within
 * 2% at 2^21 on the 2-core development machine (perf-log entry 115). */
#define BUCKET_TARGET_LOG 14
/* At most 2^10 buckets (reached at 2^24 pairs): each is a stream of writes of
 * the counting pass. */
#define MAX_BUCKET_LOG 10
#define MAX_BUCKETS ((size_t)1 << MAX_BUCKET_LOG)
/* Below this many pairs (12 MiB of keys and values) the whole gather mostly
 * hits the caches (32 MiB of L3 on the 2-core development machine), and the
 * counting pass cost more than it saved: 12-18% slower with it at 2^18 and
 * 2^19 pairs there, 34-42% faster from 2^21 (perf-log entry 115). */
#define BUCKETS_MIN_PAIRS ((size_t)1 << 20)
/* From this many pairs (1.5 MiB of keys and values) the gather of the sort of
 * words and positions leaves the 1 MiB L2 of the development machine, and the
 * AVX-512 sort that moves the values with the keys wins (perf-log entry
 * 117); below it the gather stays in L2 and the sort of words is faster. */
#define MOVES_VALUES_MIN_PAIRS ((size_t)1 << 17)
/* Stable pairs move (position << 32 | value), 16 bytes a pair, with their
 * keys from this many pairs, where the gather of the values by positions
 * after the sort of (key, position) pairs leaves the caches: 2-8% faster at
 * 2^19 on the 2-core development machine, 4-14% from 2^20; at 2^17 7% slower
 * on two threads, at 2^18 within the spread (docs/perf-log.md, entry 124). */
#define STABLE_MOVES_VALUES_MIN_PAIRS ((size_t)1 << 19)

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

int bitonic_cpu_moves_values(const bitonic_cpu_sort_config *config)
{
#if defined(BITONIC_CPU_HAVE_X86)
    bitonic_cpu_target target = config ? config->target : BITONIC_CPU_TARGET_AUTO;
    if (target == BITONIC_CPU_TARGET_AUTO)
        target = bitonic_cpu_best_target();
    return target == BITONIC_CPU_TARGET_AVX512 && bitonic_cpu_target_supported(target);
#else
    (void)config;
    return 0;
#endif
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

/* The same for pairs whose key range is not known yet. */
static bitonic_status sort_bucket(uint64_t *keys, uint32_t *values, uint64_t *in_keys, const uint32_t *in_values,
                                  size_t count, const bitonic_cpu_sort_config *config)
{
    if (count < 2) {
        if (count == 1) {
            keys[0] = in_keys[0];
            values[0] = in_values[0];
        }
        return BITONIC_SUCCESS;
    }
    uint64_t smallest, largest;
    key_range(in_keys, count, &smallest, &largest);
    return sort_spanned(keys, values, in_keys, in_values, count, smallest, largest, config);
}

/* The buckets: the pairs in [starts[b], starts[b + 1]) of the scratch arrays
 * (words, moved_values) belong to bucket b. */
typedef struct bucketing {
    uint64_t *keys, *words;
    uint32_t *values, *moved_values;
    uint64_t smallest;
    unsigned shift;          /* the bucket of a key: (key - smallest) >> shift */
    size_t bucket_count;
    size_t *slice_counts;    /* bucket_count per job: its counts, then its write positions */
    size_t starts[MAX_BUCKETS + 1];
    size_t large;            /* buckets above this many pairs are sorted one by one on all threads */
    bitonic_cpu_sort_config one_thread;
} bucketing;

typedef struct bucket_job {
    bucketing *buckets;
    size_t *counts;                   /* this job's row of slice_counts */
    size_t begin, end;                /* this job's pairs in the counting pass */
    size_t first_bucket, end_bucket;  /* this job's buckets to sort */
    bitonic_status status;
} bucket_job;

static void count_slice(void *arg)
{
    bucket_job *job = arg;
    const bucketing *b = job->buckets;
    size_t *counts = job->counts;
    memset(counts, 0, b->bucket_count * sizeof *counts);
    for (size_t i = job->begin; i < job->end; i++)
        counts[(b->keys[i] - b->smallest) >> b->shift]++;
}

static void scatter_slice(void *arg)
{
    bucket_job *job = arg;
    const bucketing *b = job->buckets;
    size_t *next = job->counts;
    for (size_t i = job->begin; i < job->end; i++) {
        size_t to = next[(b->keys[i] - b->smallest) >> b->shift]++;
        b->words[to] = b->keys[i];
        b->moved_values[to] = b->values[i];
    }
}

static void sort_buckets(void *arg)
{
    bucket_job *job = arg;
    const bucketing *b = job->buckets;
    for (size_t k = job->first_bucket; k < job->end_bucket && job->status == BITONIC_SUCCESS; k++) {
        size_t begin = b->starts[k], count = b->starts[k + 1] - begin;
        if (count <= b->large)
            job->status = sort_bucket(b->keys + begin, b->values + begin, b->words + begin,
                                      b->moved_values + begin, count, &b->one_thread);
    }
}

/* Keys that span 2^32 or more: buckets, then each bucket alone. */
static bitonic_status sort_in_buckets(uint64_t *keys, uint32_t *values, size_t count, uint64_t *words,
                                      uint32_t *moved_values, uint64_t smallest, uint64_t largest,
                                      const bitonic_cpu_sort_config *config)
{
    uint32_t threads = pass_threads(count, config);
    /* At least two buckets, so shift stays below 64 (the span has 33 bits or more). */
    unsigned bucket_log = 1;
    while (bucket_log < MAX_BUCKET_LOG && count >> (BUCKET_TARGET_LOG + bucket_log) > 1)
        bucket_log++;
    bucketing *b = malloc(sizeof *b);
    size_t *slice_counts = malloc((size_t)threads * ((size_t)1 << bucket_log) * sizeof *slice_counts);
    if (!b || !slice_counts) {
        free(b);
        free(slice_counts);
        return BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    }
    *b = (bucketing){.keys = keys, .words = words, .values = values, .moved_values = moved_values,
                     .smallest = smallest, .shift = bit_length(largest - smallest) - bucket_log,
                     .bucket_count = (size_t)1 << bucket_log, .slice_counts = slice_counts,
                     .one_thread = {config ? config->target : BITONIC_CPU_TARGET_AUTO, 1}};
    bucket_job jobs[BITONIC_CPU_MAX_THREADS];
    for (uint32_t t = 0; t < threads; t++)
        jobs[t] = (bucket_job){b, slice_counts + t * b->bucket_count, count * t / threads,
                               count * (t + 1) / threads, 0, 0, BITONIC_SUCCESS};
    bitonic_cpu_run_jobs(count_slice, jobs, sizeof jobs[0], threads);
    /* Each job writes its pairs of bucket k after the earlier jobs' ones. */
    size_t position = 0;
    for (size_t k = 0; k < b->bucket_count; k++) {
        b->starts[k] = position;
        for (uint32_t t = 0; t < threads; t++) {
            size_t pairs = jobs[t].counts[k];
            jobs[t].counts[k] = position;
            position += pairs;
        }
    }
    b->starts[b->bucket_count] = position;
    bitonic_cpu_run_jobs(scatter_slice, jobs, sizeof jobs[0], threads);
    free(slice_counts);

    /* Contiguous runs of buckets of about count / threads pairs each; a bucket
     * too large for one thread's share (skewed keys) is sorted on all of them. */
    b->large = threads > 1 ? count / (2 * (size_t)threads) : count;
    bitonic_status status = BITONIC_SUCCESS;
    for (size_t k = 0; k < b->bucket_count && status == BITONIC_SUCCESS; k++) {
        size_t begin = b->starts[k], bucket_pairs = b->starts[k + 1] - begin;
        if (bucket_pairs > b->large)
            status = sort_bucket(keys + begin, values + begin, words + begin, moved_values + begin, bucket_pairs,
                                 config);
    }
    size_t bucket = 0;
    for (uint32_t t = 0; t < threads; t++) {
        jobs[t].first_bucket = bucket;
        while (bucket < b->bucket_count && (t + 1 == threads || b->starts[bucket] < count * (t + 1) / threads))
            bucket++;
        jobs[t].end_bucket = bucket;
    }
    if (status == BITONIC_SUCCESS)
        bitonic_cpu_run_jobs(sort_buckets, jobs, sizeof jobs[0], threads);
    for (uint32_t t = 0; t < threads && status == BITONIC_SUCCESS; t++)
        status = jobs[t].status;
    free(b);
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
#if defined(BITONIC_CPU_HAVE_X86)
    if (largest - smallest > UINT32_MAX && count >= MOVES_VALUES_MIN_PAIRS && bitonic_cpu_moves_values(config)) {
        /* In place, on the sort's threads: no scratch, no gather. */
        bitonic_cpu_sort_pairs_parallel_avx512_u64(keys, values, count, bitonic_cpu_sort_threads(count, config));
        return BITONIC_SUCCESS;
    }
#endif
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
    } else if (count < BUCKETS_MIN_PAIRS) {
        /* One bucket: sorted into the scratch (the keys are its scratch once
         * moved), then copied back while the scratch is in the caches. */
        status = sort_spanned(words, moved_values, keys, values, count, smallest, largest, config);
        memcpy(keys, words, count * sizeof *keys);
        memcpy(values, moved_values, count * sizeof *values);
    } else {
        status = sort_in_buckets(keys, values, count, words, moved_values, smallest, largest, config);
    }
    if (!scratch)
        free(words);
    return status;
}

#if defined(BITONIC_CPU_HAVE_X86)
/* Stable pairs that move (position << 32 | value) with each key: written
 * before the sort, the values read back after it. */
typedef struct tagged_pass {
    uint64_t *tagged;
    uint32_t *values;
} tagged_pass;

static void tag_slice(void *context, size_t begin, size_t end)
{
    const tagged_pass *pass = context;
    for (size_t i = begin; i < end; i++)
        pass->tagged[i] = (uint64_t)i << 32 | pass->values[i];
}

static void untag_slice(void *context, size_t begin, size_t end)
{
    const tagged_pass *pass = context;
    for (size_t i = begin; i < end; i++)
        pass->values[i] = (uint32_t)pass->tagged[i];
}
#endif

bitonic_status bitonic_cpu_sort_stable_pairs_u64(uint64_t *keys, uint32_t *values, size_t count, uint64_t *scratch,
                                                 const bitonic_cpu_sort_config *config)
{
    if (count < 2)
        return BITONIC_SUCCESS;
    uint32_t threads = bitonic_cpu_sort_threads(count, config);
#if defined(BITONIC_CPU_HAVE_X86)
    if (count >= STABLE_MOVES_VALUES_MIN_PAIRS && count <= UINT32_MAX && bitonic_cpu_moves_values(config)) {
        uint64_t smallest, largest;
        parallel_key_range(keys, count, pass_threads(count, config), &smallest, &largest);
        if (largest - smallest > UINT32_MAX) {
            tagged_pass pass = {scratch, values};
            bitonic_cpu_run_slices(tag_slice, &pass, count, threads);
            bitonic_cpu_sort_pairs_parallel_avx512_u64_u64(keys, scratch, count, threads);
            bitonic_cpu_run_slices(untag_slice, &pass, count, threads);
            return BITONIC_SUCCESS;
        }
    }
#endif
    uint32_t *positions = (uint32_t *)(scratch + BITONIC_CPU_PAIRS_U64_SCRATCH_WORDS(count));
    bitonic_cpu_fill_positions(positions, count, threads);
    bitonic_status status = bitonic_cpu_sort_pairs_u64(keys, positions, count, scratch, config);
    if (status == BITONIC_SUCCESS) {
        bitonic_cpu_gather_values(positions, values, count, threads);
        bitonic_cpu_copy_values(values, positions, count, threads);
    }
    return status;
}
