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

/* The merge path's split: how many keys of A = keys[a_first ..] (a_count of
 * them) the first `diagonal` outputs of its merge with B (b_count keys right
 * after A) hold, ties to A. */
static uint64_t merge_split(const uint64_t *keys, uint64_t a_first, uint64_t a_count, uint64_t b_count,
                            uint64_t diagonal)
{
    uint64_t low = diagonal > b_count ? diagonal - b_count : 0, high = diagonal < a_count ? diagonal : a_count;
    while (low < high) {
        uint64_t mid = low + (high - low) / 2u;
        if (!(keys[a_first + a_count + diagonal - 1u - mid] < keys[a_first + mid]))
            low = mid + 1u;
        else
            high = mid;
    }
    return low;
}

/* Where the window merge's output position q (in run r, or the end of the
 * keys) has got to in runs r - 1, r and r + 1: the first key of each not yet
 * output (see bitonic_partition_window_cursor in the header). straddle_first
 * and straddle_end: for each boundary k (position kW, k = 0 .. runs), the open
 * bucket around it, or kW twice (the last one, past the keys, the count). */
typedef struct window_cursor {
    uint64_t x, y, z;
} window_cursor;

static window_cursor window_cursor_at(const uint64_t *keys, uint64_t q, uint64_t r, uint64_t window,
                                      const uint64_t *straddle_first, const uint64_t *straddle_end)
{
    uint64_t run_first = r * window, next_run = run_first + window;
    window_cursor cursor = {run_first, q, next_run};
    bool at_start = q < straddle_end[r];  /* in the bucket around the run's start */
    if (at_start || q > straddle_first[r + 1u]) {
        /* The bucket's two pieces merged: [s, boundary) and [boundary, e). */
        uint64_t k = at_start ? r : r + 1u, boundary = at_start ? run_first : next_run;
        uint64_t s = straddle_first[k], d = q - s;
        uint64_t i = merge_split(keys, s, boundary - s, straddle_end[k] - boundary, d);
        if (at_start) {
            cursor.x = s + i;  /* runs r - 1 and r */
            cursor.y = boundary + (d - i);
        } else {
            cursor.y = s + i;  /* runs r and r + 1 */
            cursor.z = boundary + (d - i);
        }
    }
    return cursor;
}

/* The bucket that output position q (below the count) lies in: the last of
 * the 2m + 1 buckets to start at or before it (an empty one starts where the
 * next does). */
static uint64_t bucket_at(const uint64_t *bucket_start, uint64_t m, uint64_t q)
{
    uint64_t low = 0, high = 2u * m + 1u;  /* bucket_start[low] <= q < bucket_start[high] */
    while (high - low > 1u) {
        uint64_t middle = low + (high - low) / 2u;
        if (bucket_start[middle] <= q)
            low = middle;
        else
            high = middle;
    }
    return low;
}

bool bitonic_reference_partition_sort_with(uint64_t *keys, uint64_t count, uint64_t window_keys, uint64_t chunk_keys,
                                           const uint64_t *splitters, uint64_t m, bitonic_partition_report *report)
{
    uint64_t window = window_keys;
    if (window < 2u || window % 2u != 0 || chunk_keys == 0 || window % chunk_keys != 0)
        return false;
    bitonic_partition_report local = {0};
    uint64_t runs = (count + window - 1u) / window;
    uint64_t *scratch = malloc((count + 1u) * sizeof *scratch);
    uint64_t *bucket_first = malloc((2u * m + 2u) * sizeof *bucket_first);
    uint64_t *bucket_start = malloc((2u * m + 2u) * sizeof *bucket_start);
    uint64_t *straddle_first = malloc((runs + 2u) * sizeof *straddle_first);
    uint64_t *straddle_end = malloc((runs + 2u) * sizeof *straddle_end);
    uint64_t *span = malloc((count + 1u) * sizeof *span);
    bool ok = scratch && bucket_first && bucket_start && straddle_first && straddle_end && span;
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
        memcpy(bucket_start, bucket_first, (2u * m + 2u) * sizeof *bucket_start);
        for (uint64_t i = 0; i < count; ++i)
            scratch[bucket_first[bitonic_partition_bucket(keys[i], splitters, m)]++] = keys[i];
        memcpy(keys, scratch, count * sizeof *keys);
        local.splitters = m;
        local.fell_back = local.longest_open_bucket > window;

        /* The scan's table: each boundary kW inside the keys lies in one
         * bucket, which sets it (its start and end where it is open, at most
         * W long and starts before kW, else kW twice); the last, past the
         * keys, is the count twice. */
        for (uint64_t b = 0; b < 2u * m + 1u; ++b) {
            uint64_t start = bucket_start[b], end = bucket_start[b + 1u];
            for (uint64_t k = (start + window - 1u) / window; k * window < end; ++k) {
                bool straddles = b % 2u == 0 && end - start <= window && start < k * window;
                straddle_first[k] = straddles ? start : k * window;
                straddle_end[k] = straddles ? end : k * window;
            }
        }
        straddle_first[0] = straddle_end[0] = 0;
        straddle_first[runs] = straddle_end[runs] = count;

        /* Step 3: aligned runs of W sorted. */
        for (uint64_t r = 0; r < count; r += window)
            qsort(keys + r, count - r < window ? count - r : window, sizeof *keys, compare_u64);

        /* Step 4: the window merge, chunk by chunk as its workgroups take
         * them: each merges X ++ Z (pieces of runs r - 1 and r + 1, the
         * first all before the second) with Y (a piece of run r) into its
         * chunk. Its start is the split pass's cursor; its end the next
         * chunk's, or where the run's end leaves it, or the keys' end. */
        for (uint64_t q0 = 0; q0 < count && ok; q0 += chunk_keys) {
            uint64_t r = q0 / window, q1 = count - q0 < chunk_keys ? count : q0 + chunk_keys;
            window_cursor from = window_cursor_at(keys, q0, r, window, straddle_first, straddle_end), to;
            if (q1 == count) {
                to = (window_cursor){r * window, count, (r + 1u) * window};
            } else if (q1 < (r + 1u) * window) {
                to = window_cursor_at(keys, q1, r, window, straddle_first, straddle_end);
            } else {
                window_cursor next = window_cursor_at(keys, q1, r + 1u, window, straddle_first, straddle_end);
                to = (window_cursor){r * window, next.x, next.y};
            }
            ok = from.x <= to.x && from.y <= to.y && from.z <= to.z &&
                 (to.x - from.x) + (to.y - from.y) + (to.z - from.z) == q1 - q0;
            uint64_t a = from.x, a_end = to.x, b = from.y, out = q0;
            bool in_z = a == a_end;
            if (in_z) {
                a = from.z;
                a_end = to.z;
            }
            while (ok && out < q1) {
                bool take_a = a < a_end && (b >= to.y || !(keys[b] < keys[a]));
                scratch[out++] = take_a ? keys[a++] : keys[b++];
                if (take_a && a == a_end && !in_z) {
                    in_z = true;
                    a = from.z;
                    a_end = to.z;
                }
            }
        }

        /* Step 5, the fallback, where an open bucket is longer than W: each
         * chunk that such a bucket touches takes the keys ranked [q0, q1)
         * among the runs its buckets span (every key of an earlier run ranks
         * below them, every key of a later one above), which the GPU's
         * selection cuts from each run; here the span sorted whole. */
        uint64_t span_first = 0, span_end = 0;  /* the span that `span` holds sorted */
        for (uint64_t q0 = 0; q0 < count && ok && local.fell_back; q0 += chunk_keys) {
            uint64_t q1 = count - q0 < chunk_keys ? count : q0 + chunk_keys;
            uint64_t b0 = bucket_at(bucket_start, m, q0), b1 = bucket_at(bucket_start, m, q1 - 1u);
            bool touched = false;
            for (uint64_t b = b0; b <= b1; ++b)
                touched = touched || (b % 2u == 0 && bucket_start[b + 1u] - bucket_start[b] > window);
            if (!touched)
                continue;
            uint64_t first = bucket_start[b0] / window * window;
            uint64_t end = ((bucket_start[b1 + 1u] - 1u) / window + 1u) * window;
            end = end < count ? end : count;
            if (first != span_first || end != span_end) {
                memcpy(span, keys + first, (end - first) * sizeof *keys);
                qsort(span, end - first, sizeof *span, compare_u64);
                span_first = first;
                span_end = end;
            }
            memcpy(scratch + q0, span + (q0 - first), (q1 - q0) * sizeof *keys);
        }
        if (ok)
            memcpy(keys, scratch, count * sizeof *keys);
    }
    if (report)
        *report = local;
    free(scratch);
    free(bucket_first);
    free(bucket_start);
    free(straddle_first);
    free(straddle_end);
    free(span);
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
    bool ok = bitonic_reference_partition_sort_with(keys, count, plan->window_keys,
                                                    plan->chunk_keys ? plan->chunk_keys : plan->window_keys, splitters,
                                                    m, report);
    free(splitters);
    return ok;
}
