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
 * them) the first `diagonal` outputs of its merge with B = keys[b_first ..]
 * (b_count keys) hold, ties to A. */
static uint64_t merge_split(const uint64_t *keys, uint64_t a_first, uint64_t a_count, uint64_t b_first,
                            uint64_t b_count, uint64_t diagonal)
{
    uint64_t low = diagonal > b_count ? diagonal - b_count : 0, high = diagonal < a_count ? diagonal : a_count;
    while (low < high) {
        uint64_t mid = low + (high - low) / 2u;
        if (!(keys[b_first + diagonal - 1u - mid] < keys[a_first + mid]))
            low = mid + 1u;
        else
            high = mid;
    }
    return low;
}

/* The first `diagonal` outputs of the merge of three sorted pieces P =
 * keys[s .. b1 - 1], Q = keys[b1 .. b2 - 1] and R = keys[b2 .. e - 1], ties
 * in that order: how many of each (taken). A selection that discards: with
 * `rest` outputs still to place and `open` pieces not used up, each step
 * reads the key `step` = ceil(rest / open) into each open piece (or its last)
 * and takes those keys of the piece whose key goes first (ties to the earlier
 * piece). At most step - 1 keys of each other piece go before that key, so
 * it is among the rest (open x (step - 1) < rest), and so is every key taken
 * with it. The rest shrinks by a third a step: about log_1.5 of the diagonal
 * steps of three independent reads, in one thread and with no search inside
 * a search. The GPU's window split pass runs these steps from 2^24 keys
 * (shaders/merge_window_split.glsl, window_split_by_selection) and finds the same counts by
 * a workgroup's search of the middle piece below (window_split_three); three
 * reads a piece a step took fewer steps but more registers and time there
 * (docs/perf-log.md, entry 66). */
void bitonic_reference_three_piece_split(const uint64_t *keys, uint64_t s, uint64_t b1, uint64_t b2, uint64_t e,
                                         uint64_t diagonal, uint64_t taken[3])
{
    const uint64_t first[3] = {s, b1, b2}, end[3] = {b1, b2, e};
    uint64_t at[3] = {s, b1, b2}, rest = diagonal;
    while (rest > 0) {
        uint64_t open = (uint64_t)(at[0] < end[0]) + (at[1] < end[1]) + (at[2] < end[2]);
        uint64_t step = (rest + open - 1u) / open;
        int best = -1;
        uint64_t best_key = 0, best_count = 0;
        for (int i = 0; i < 3; ++i) {
            if (at[i] == end[i])
                continue;
            uint64_t count = end[i] - at[i] < step ? end[i] - at[i] : step;
            uint64_t key = keys[at[i] + count - 1u];
            if (best < 0 || key < best_key) {
                best = i;
                best_key = key;
                best_count = count;
            }
        }
        at[best] += best_count;
        rest -= best_count;
    }
    for (int i = 0; i < 3; ++i)
        taken[i] = at[i] - first[i];
}

/* Where the window merge's output position q (in run r, or at its end as
 * run r's) has got to in runs r - 2 .. r + 2: at[i] is the first key of run
 * r - 2 + i not yet output (a run before the first or past the keys is empty).
 * q lies in the open bucket around rW (q < e_r), in the one around (r + 1)W
 * (q > s_{r+1}; the same bucket where it spans run r), or between them,
 * where the keys are in place. A bucket of at most 2W keys spans two or three
 * runs: the first `diagonal` keys of its merged pieces are found by the merge
 * path's split or bitonic_reference_three_piece_split; the runs before the bucket's are used
 * up, those after it untouched. straddle_first and straddle_end: for each
 * boundary k (position kW, k = 0 .. runs), the open bucket around it, or kW
 * twice (the last one, past the keys, the count). */
typedef struct window_cursor {
    uint64_t at[5];
} window_cursor;

static uint64_t run_first_key(int64_t j, uint64_t window, uint64_t count)
{
    return j < 0 ? 0 : (uint64_t)j * window < count ? (uint64_t)j * window : count;
}

static uint64_t run_end_key(int64_t j, uint64_t window, uint64_t count)
{
    return run_first_key(j + 1, window, count);
}

static window_cursor window_cursor_at(const uint64_t *keys, uint64_t count, uint64_t q, uint64_t r, uint64_t window,
                                      const uint64_t *straddle_first, const uint64_t *straddle_end)
{
    window_cursor cursor;
    bool at_start = q < straddle_end[r], at_end = !at_start && q > straddle_first[r + 1u];
    uint64_t k = at_start ? r : r + 1u;
    uint64_t s = straddle_first[k], e = straddle_end[k];
    /* The runs the bucket spans, [j0, j1] (j0 = j1: none, q in place). */
    int64_t j0 = (int64_t)r, j1 = (int64_t)r;
    uint64_t taken[3] = {0, 0, 0};
    if (at_start || at_end) {
        j0 = (int64_t)(s / window);
        j1 = (int64_t)((e - 1u) / window);
        uint64_t b1 = (uint64_t)(j0 + 1) * window, d = q - s;
        if (j1 - j0 == 1) {
            taken[0] = merge_split(keys, s, b1 - s, b1, e - b1, d);
            taken[1] = d - taken[0];
        } else {
            bitonic_reference_three_piece_split(keys, s, b1, b1 + window, e, d, taken);
        }
    }
    for (int i = 0; i < 5; ++i) {
        int64_t j = (int64_t)r - 2 + i;
        if (j < j0)
            cursor.at[i] = run_end_key(j, window, count);
        else if (j > j1)
            cursor.at[i] = run_first_key(j, window, count);
        else if (j0 == j1)
            cursor.at[i] = q;
        else
            cursor.at[i] = (j == j0 ? s : run_first_key(j, window, count)) + taken[j - j0];
    }
    return cursor;
}

/* Keys a..a_end - 1 merged with b..b_end - 1 into out, ties to the first. */
static void merge_into(const uint64_t *a, uint64_t a_count, const uint64_t *b, uint64_t b_count, uint64_t *out)
{
    uint64_t i = 0, j = 0;
    while (i < a_count || j < b_count) {
        bool take_a = i < a_count && (j >= b_count || !(b[j] < a[i]));
        *out++ = take_a ? a[i++] : b[j++];
    }
}

/* The bucket that output position q (below the count) lies in: the last of
 * the buckets to start at or before it (an empty one starts where the next
 * does). */
static uint64_t bucket_at(const uint64_t *bucket_start, uint64_t buckets, uint64_t q)
{
    uint64_t low = 0, high = buckets;  /* bucket_start[low] <= q < bucket_start[high] */
    while (high - low > 1u) {
        uint64_t middle = low + (high - low) / 2u;
        if (bucket_start[middle] <= q)
            low = middle;
        else
            high = middle;
    }
    return low;
}

/* Step 2 on keys[first .. end - 1]: count, scan, scatter (stable) into the
 * 2m + 1 buckets of m distinct ascending splitters, through scratch (the same
 * positions). bucket_start[b] (2m + 2 of them) is where bucket b starts, the
 * last one `end`. Returns false when memory runs out. */
static bool partition_stretch(uint64_t *keys, uint64_t first, uint64_t end, const uint64_t *splitters, uint64_t m,
                              uint64_t *scratch, uint64_t *bucket_start)
{
    uint64_t buckets = 2u * m + 1u;
    uint64_t *next = calloc(buckets + 1u, sizeof *next);
    if (!next)
        return false;
    for (uint64_t i = first; i < end; ++i)
        ++next[bitonic_partition_bucket(keys[i], splitters, m) + 1u];
    next[0] = first;
    for (uint64_t b = 0; b < buckets; ++b)
        next[b + 1u] += next[b];
    memcpy(bucket_start, next, (buckets + 1u) * sizeof *bucket_start);
    for (uint64_t i = first; i < end; ++i)
        scratch[next[bitonic_partition_bucket(keys[i], splitters, m)]++] = keys[i];
    memcpy(keys + first, scratch + first, (end - first) * sizeof *keys);
    free(next);
    return true;
}

/* Steps 3-5 on keys partitioned into `buckets` (odd) buckets, open and
 * equality in turn from an open one, bucket b at bucket_start[b] ..
 * bucket_start[b + 1] - 1 (buckets + 1 starts, the last the count). Notes the
 * longest buckets and the fallback in report. */
static bool sort_partitioned(uint64_t *keys, uint64_t count, uint64_t window, uint64_t chunk_keys,
                             const uint64_t *bucket_start, uint64_t buckets, uint64_t *scratch,
                             bitonic_partition_report *report)
{
    uint64_t runs = (count + window - 1u) / window;
    uint64_t *straddle_first = malloc((runs + 2u) * sizeof *straddle_first);
    uint64_t *straddle_end = malloc((runs + 2u) * sizeof *straddle_end);
    uint64_t *span = malloc((count + 1u) * sizeof *span);
    bool ok = straddle_first && straddle_end && span;
    if (ok) {
        for (uint64_t b = 0; b < buckets; ++b) {
            uint64_t keys_in = bucket_start[b + 1u] - bucket_start[b];
            uint64_t *longest = b % 2u == 0 ? &report->longest_open_bucket : &report->longest_equal_bucket;
            if (keys_in > *longest)
                *longest = keys_in;
        }
        report->fell_back = report->longest_open_bucket > 2u * window;

        /* The scan's table: each boundary kW inside the keys lies in one
         * bucket, which sets it (its start and end where it is open, at most
         * 2W long and starts before kW, else kW twice); the last, past the
         * keys, is the count twice. A bucket of more than W keys may span
         * run k whole and be noted at kW and (k + 1)W both. */
        for (uint64_t b = 0; b < buckets; ++b) {
            uint64_t start = bucket_start[b], end = bucket_start[b + 1u];
            for (uint64_t k = (start + window - 1u) / window; k * window < end; ++k) {
                bool straddles = b % 2u == 0 && end - start <= 2u * window && start < k * window;
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
         * them. A chunk in run r takes a piece of each of runs r - 2 .. r + 2
         * (from its cursor to the next chunk's; where that one starts run r +
         * 1, its cursors shifted by a run, run r - 2 used up; at the keys'
         * end, every run used up). Keys of runs before r lie in the bucket
         * around rW, of runs after r in the one around (r + 1)W: where those
         * are two buckets, A = the pieces of runs r - 1 and r + 1 (one
         * bucket's keys before the other's), and B = those of runs r - 2 and
         * r + 2 (non-empty only where a bucket spans three runs); where one
         * bucket spans run r, A = run r - 1's piece and B = run r + 1's. The
         * chunk is A merged with B (where B has keys), merged with run r's
         * piece. */
        uint64_t *merged = span;  /* free until step 5 */
        for (uint64_t q0 = 0; q0 < count && ok; q0 += chunk_keys) {
            uint64_t r = q0 / window, q1 = count - q0 < chunk_keys ? count : q0 + chunk_keys;
            window_cursor from = window_cursor_at(keys, count, q0, r, window, straddle_first, straddle_end), to;
            if (q1 == count) {
                for (int i = 0; i < 5; ++i)
                    to.at[i] = run_end_key((int64_t)r - 2 + i, window, count);
            } else if (q1 < (r + 1u) * window) {
                to = window_cursor_at(keys, count, q1, r, window, straddle_first, straddle_end);
            } else {
                window_cursor next = window_cursor_at(keys, count, q1, r + 1u, window, straddle_first, straddle_end);
                to.at[0] = run_end_key((int64_t)r - 2, window, count);
                for (int i = 1; i < 5; ++i)
                    to.at[i] = next.at[i - 1];
            }
            uint64_t total = 0;
            for (int i = 0; i < 5; ++i) {
                ok = ok && from.at[i] <= to.at[i];
                total += to.at[i] - from.at[i];
            }
            ok = ok && total == q1 - q0;
            if (!ok)
                break;
            bool spans_run = straddle_first[r] == straddle_first[r + 1u] && straddle_first[r] < r * window;
            /* The pieces in slot order: A's (run r - 1's, then r + 1's or
             * none), B's (r - 2's or r + 1's, then r + 2's), run r's. */
            int order[5] = {1, 3, 0, 4, 2};
            if (spans_run) {
                order[1] = 0;  /* empty, as is run r + 2's */
                order[2] = 3;
                order[3] = 4;
            }
            uint64_t slot = 0, counts[5];
            for (int i = 0; i < 5; ++i) {
                int piece = order[i];
                counts[i] = to.at[piece] - from.at[piece];
                memcpy(merged + slot, keys + from.at[piece], counts[i] * sizeof *keys);
                slot += counts[i];
            }
            uint64_t a_count = counts[0] + counts[1], b_count = counts[2] + counts[3];
            uint64_t *chunk = scratch + q0;
            if (b_count != 0) {
                merge_into(merged, a_count, merged + a_count, b_count, chunk);
                memcpy(merged, chunk, (a_count + b_count) * sizeof *keys);
            }
            merge_into(merged, a_count + b_count, merged + a_count + b_count, counts[4], chunk);
        }

        /* Step 5, the fallback, where an open bucket is longer than 2W: each
         * chunk that such a bucket touches takes the keys ranked [q0, q1)
         * among the runs its buckets span (every key of an earlier run ranks
         * below them, every key of a later one above), which the GPU's
         * selection cuts from each run; here the span sorted whole. */
        uint64_t span_first = 0, span_end = 0;  /* the span that `span` holds sorted */
        for (uint64_t q0 = 0; q0 < count && ok && report->fell_back; q0 += chunk_keys) {
            uint64_t q1 = count - q0 < chunk_keys ? count : q0 + chunk_keys;
            uint64_t b0 = bucket_at(bucket_start, buckets, q0), b1 = bucket_at(bucket_start, buckets, q1 - 1u);
            bool touched = false;
            for (uint64_t b = b0; b <= b1; ++b)
                touched = touched || (b % 2u == 0 && bucket_start[b + 1u] - bucket_start[b] > 2u * window);
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
    free(straddle_first);
    free(straddle_end);
    free(span);
    return ok;
}

bool bitonic_reference_partition_sort_with(uint64_t *keys, uint64_t count, uint64_t window_keys, uint64_t chunk_keys,
                                           const uint64_t *splitters, uint64_t m, bitonic_partition_report *report)
{
    if (window_keys < 2u || window_keys % 2u != 0 || chunk_keys == 0 || window_keys % chunk_keys != 0)
        return false;
    bitonic_partition_report local = {.splitters = m};
    uint64_t *scratch = malloc((count + 1u) * sizeof *scratch);
    uint64_t *bucket_start = malloc((2u * m + 2u) * sizeof *bucket_start);
    bool ok = scratch && bucket_start && partition_stretch(keys, 0, count, splitters, m, scratch, bucket_start) &&
              sort_partitioned(keys, count, window_keys, chunk_keys, bucket_start, 2u * m + 1u, scratch, &local);
    if (report)
        *report = local;
    free(scratch);
    free(bucket_start);
    return ok;
}

/* Step 2 again inside each open bucket of more than W keys (the nested
 * partition; on the GPU, partition_pass.comp's STEP_NESTED_* steps, which
 * also cap a bucket's samples at the scatter's staged tile): its own
 * splitters, drawn as step 1 draws them from its keys alone, enough for
 * buckets of about W / 2 (2L / W of them for L keys, at most
 * inner_max_splitters + 1; none where that is 0), and its keys partitioned by
 * them in place.
 * Its 2m' + 1 buckets take its place in the list, open and equality in turn
 * from an open one as the whole list is, so steps 3-5 run on the finer list
 * unchanged. refined_start gets the finer starts (room for buckets x (2
 * inner_max_splitters + 1) + 1); returns the finer bucket count, 0 when memory
 * runs out. */
static uint64_t refine_open_buckets(uint64_t *keys, const bitonic_partition_plan *plan, uint64_t inner_max_splitters,
                                    const uint64_t *bucket_start, uint64_t buckets, uint64_t *scratch,
                                    uint64_t *refined_start, bitonic_partition_report *report)
{
    uint64_t window = plan->window_keys, most_samples = (inner_max_splitters + 1u) * plan->samples_per_splitter;
    uint64_t *splitters = malloc((most_samples + 1u) * sizeof *splitters);
    if (!splitters)
        return 0;
    uint64_t refined = 0;
    for (uint64_t b = 0; b < buckets; ++b) {
        uint64_t first = bucket_start[b], end = bucket_start[b + 1u], length = end - first;
        if (b % 2u == 1u || length <= window || inner_max_splitters == 0) {
            refined_start[refined++] = first;
            continue;
        }
        uint64_t parts = (2u * length + window - 1u) / window;
        parts = parts < inner_max_splitters + 1u ? parts : inner_max_splitters + 1u;
        /* parts x s - 1 samples: every s-th of them, parts - 1 splitters
         * near the quantiles j / parts (parts x s would add one near the
         * bucket's top and a last bucket of about s keys). A seed of the
         * bucket's own, so that buckets of like keys do not sample the same
         * phases of their stretches. */
        bitonic_partition_plan inner = *plan;
        inner.sample_count = parts * plan->samples_per_splitter - 1u;
        inner.seed = plan->seed ^ mix(b + 1u);
        uint64_t m = bitonic_reference_partition_splitters(keys + first, length, &inner, splitters);
        report->inner_splitters += m;
        if (!partition_stretch(keys, first, end, splitters, m, scratch, refined_start + refined)) {
            refined = 0;
            break;
        }
        refined += 2u * m + 1u;
    }
    free(splitters);
    if (refined != 0)
        refined_start[refined] = bucket_start[buckets];
    return refined;
}

bool bitonic_reference_nested_partition_sort(uint64_t *keys, uint64_t count, const bitonic_partition_plan *plan,
                                             uint64_t inner_max_splitters, bitonic_partition_report *report)
{
    uint64_t window = plan->window_keys, chunk = plan->chunk_keys ? plan->chunk_keys : plan->window_keys;
    if (plan->sample_count == 0 || plan->samples_per_splitter == 0 || window < 2u || window % 2u != 0 ||
        window % chunk != 0)
        return false;
    bitonic_partition_report local = {0};
    uint64_t *splitters = malloc(plan->sample_count * sizeof *splitters);
    uint64_t *scratch = malloc((count + 1u) * sizeof *scratch);
    uint64_t m = splitters ? bitonic_reference_partition_splitters(keys, count, plan, splitters) : 0;
    uint64_t buckets = 2u * m + 1u, refined_most = buckets * (2u * inner_max_splitters + 1u) + 1u;
    uint64_t *bucket_start = malloc((buckets + 1u) * sizeof *bucket_start);
    uint64_t *refined_start = malloc(refined_most * sizeof *refined_start);
    bool ok = splitters && scratch && bucket_start && refined_start &&
              partition_stretch(keys, 0, count, splitters, m, scratch, bucket_start);
    local.splitters = m;
    uint64_t refined = ok ? refine_open_buckets(keys, plan, inner_max_splitters, bucket_start, buckets, scratch,
                                                refined_start, &local)
                          : 0;
    ok = ok && refined != 0 &&
         sort_partitioned(keys, count, window, chunk, refined_start, refined, scratch, &local);
    if (report)
        *report = local;
    free(splitters);
    free(scratch);
    free(bucket_start);
    free(refined_start);
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
