/* test_cpu_sort.c: checks the fast CPU sort of 32-bit keys (bitonic_cpu_sort_u32)
 * and of 64-bit words (bitonic_cpu_sort_u64: 64-bit keys and packed pairs)
 * against qsort for every instruction-set target this CPU supports, forced in
 * turn, both orders, every input of up to 8 keys over a few values, every length
 * up to 300 and the lengths around each power of two up to 2^16, several input
 * shapes (heavy ties among them), one and several threads, and inputs large
 * enough that the parallel partition runs, and the sorts with a finish (each key
 * handed on once, as it ended). Guard words around each array catch writes
 * past either end. Prints one line per failure and "N passed, N failed"
 * last. (Key types, pair packing, stable pairs and argsort through the public
 * API are checked by the key_types suites against comparators of the
 * documented order.) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fast_sort.h"
#include "pair_sort.h"

#define GUARD_KEYS 16
#define GUARD_VALUE 0xDEADBEEFu

static unsigned passed, failed;

static void check(int ok, const char *what, const char *target, const char *order, const char *shape, size_t count,
                  uint32_t threads)
{
    if (ok) {
        passed++;
        return;
    }
    failed++;
    if (failed <= 20)
        printf("FAIL %s: target=%s order=%s shape=%s count=%zu threads=%u\n", what, target, order, shape, count,
               threads);
}

static uint64_t rng_state = 0x243F6A8885A308D3ull;

static uint32_t next_random(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 32);
}

enum shape {
    SHAPE_RANDOM,
    SHAPE_SORTED,
    SHAPE_REVERSE,
    SHAPE_ALL_EQUAL,
    SHAPE_FEW_DISTINCT,
    SHAPE_MOSTLY_EQUAL,
    SHAPE_ORGAN_PIPE,
    SHAPE_SORTED_NOISY_TAIL,
    SHAPE_EXTREMES,
    SHAPE_COUNT,
};

static const char *const shape_names[SHAPE_COUNT] = {
    "random", "sorted", "reverse", "all-equal", "few-distinct", "mostly-equal", "organ-pipe", "sorted-noisy-tail",
    "extremes",
};

static void fill(uint32_t *keys, size_t count, enum shape shape)
{
    for (size_t i = 0; i < count; i++) {
        switch (shape) {
        case SHAPE_RANDOM: keys[i] = next_random(); break;
        case SHAPE_SORTED: keys[i] = (uint32_t)i * 3u; break;
        case SHAPE_REVERSE: keys[i] = (uint32_t)(count - i) * 7u; break;
        case SHAPE_ALL_EQUAL: keys[i] = 42u; break;
        case SHAPE_FEW_DISTINCT: keys[i] = next_random() % 4u; break;
        case SHAPE_MOSTLY_EQUAL: keys[i] = next_random() % 20u == 0 ? next_random() : 7u; break;
        case SHAPE_ORGAN_PIPE: keys[i] = (uint32_t)(i < count / 2 ? i : count - i); break;
        case SHAPE_SORTED_NOISY_TAIL: keys[i] = i + 16 < count ? (uint32_t)i : next_random(); break;
        /* The pivot splits at 0 and UINT32_MAX exercise the equal-key path's
         * overflow guard. */
        case SHAPE_EXTREMES: keys[i] = next_random() % 2u ? UINT32_MAX : 0u; break;
        default: keys[i] = 0; break;
        }
    }
}

static int compare_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

typedef struct test_case {
    const uint32_t *input;
    const uint32_t *ascending; /* the qsort answer */
    size_t count;
    const char *shape;
} test_case;

/* Sorts a copy of the input with one configuration and compares with qsort. */
static void run_case(const test_case *tc, uint32_t *work, bitonic_cpu_target target, bitonic_order order,
                     uint32_t threads)
{
    const char *target_name = bitonic_cpu_target_name(target);
    const char *order_name = order == BITONIC_ORDER_ASCENDING ? "asc" : "desc";
    for (size_t i = 0; i < GUARD_KEYS; i++)
        work[i] = work[GUARD_KEYS + tc->count + i] = GUARD_VALUE;
    uint32_t *keys = work + GUARD_KEYS;
    if (tc->count)
        memcpy(keys, tc->input, tc->count * sizeof *keys);
    bitonic_cpu_sort_config config = {.target = target, .threads = threads};
    bitonic_status status = bitonic_cpu_sort_u32(tc->count ? keys : NULL, tc->count, order, &config);
    check(status == BITONIC_SUCCESS, "status", target_name, order_name, tc->shape, tc->count, threads);
    int same = 1;
    for (size_t i = 0; i < tc->count && same; i++) {
        uint32_t expected = order == BITONIC_ORDER_ASCENDING ? tc->ascending[i] : tc->ascending[tc->count - 1 - i];
        same = keys[i] == expected;
    }
    check(same, "keys differ from qsort", target_name, order_name, tc->shape, tc->count, threads);
    int guards = 1;
    for (size_t i = 0; i < GUARD_KEYS; i++)
        guards &= work[i] == GUARD_VALUE && work[GUARD_KEYS + tc->count + i] == GUARD_VALUE;
    check(guards, "wrote outside the array", target_name, order_name, tc->shape, tc->count, threads);
}

static const bitonic_cpu_target all_targets[] = {
    BITONIC_CPU_TARGET_AUTO, BITONIC_CPU_TARGET_PORTABLE, BITONIC_CPU_TARGET_AVX2, BITONIC_CPU_TARGET_AVX512,
};
#define TARGET_COUNT (sizeof all_targets / sizeof all_targets[0])

/* Every supported target, both orders, and the given thread counts. */
static void run_all(size_t count, enum shape shape, const uint32_t *threads, size_t thread_count)
{
    uint32_t *input = malloc((count ? count : 1) * sizeof *input);
    uint32_t *ascending = malloc((count ? count : 1) * sizeof *ascending);
    uint32_t *work = malloc((count + 2 * GUARD_KEYS) * sizeof *work);
    if (!input || !ascending || !work) {
        check(0, "test could not allocate", "-", "-", shape_names[shape], count, 0);
        free(input);
        free(ascending);
        free(work);
        return;
    }
    fill(input, count, shape);
    if (count)
        memcpy(ascending, input, count * sizeof *input);
    qsort(ascending, count, sizeof *ascending, compare_u32);
    test_case tc = {input, ascending, count, shape_names[shape]};
    for (size_t t = 0; t < TARGET_COUNT; t++) {
        if (!bitonic_cpu_target_supported(all_targets[t]))
            continue;
        for (size_t k = 0; k < thread_count; k++) {
            run_case(&tc, work, all_targets[t], BITONIC_ORDER_ASCENDING, threads[k]);
            run_case(&tc, work, all_targets[t], BITONIC_ORDER_DESCENDING, threads[k]);
        }
    }
    free(input);
    free(ascending);
    free(work);
}

static void test_arguments(void)
{
    uint32_t keys[3] = {3, 1, 2};
    check(bitonic_cpu_sort_u32(NULL, 0, BITONIC_ORDER_ASCENDING, NULL) == BITONIC_SUCCESS, "NULL keys, count 0", "-",
          "-", "-", 0, 0);
    check(bitonic_cpu_sort_u32(NULL, 5, BITONIC_ORDER_ASCENDING, NULL) == BITONIC_ERROR_INVALID_ARGUMENT,
          "NULL keys, count 5", "-", "-", "-", 5, 0);
    check(bitonic_cpu_sort_u32(keys, 3, (bitonic_order)7, NULL) == BITONIC_ERROR_INVALID_ARGUMENT, "bad order", "-",
          "-", "-", 3, 0);
    bitonic_cpu_sort_config bad_target = {.target = (bitonic_cpu_target)99};
    check(bitonic_cpu_sort_u32(keys, 3, BITONIC_ORDER_ASCENDING, &bad_target) == BITONIC_ERROR_INVALID_ARGUMENT,
          "bad target", "-", "-", "-", 3, 0);
    check(bitonic_cpu_sort_u32(keys, 3, BITONIC_ORDER_ASCENDING, NULL) == BITONIC_SUCCESS && keys[0] == 1 &&
              keys[1] == 2 && keys[2] == 3,
          "NULL config sorts", "auto", "asc", "-", 3, 0);
    for (size_t t = 0; t < TARGET_COUNT; t++) {
        bitonic_cpu_sort_config config = {.target = all_targets[t]};
        bitonic_status expected =
            bitonic_cpu_target_supported(all_targets[t]) ? BITONIC_SUCCESS : BITONIC_ERROR_UNSUPPORTED;
        check(bitonic_cpu_sort_u32(keys, 3, BITONIC_ORDER_ASCENDING, &config) == expected,
              "supported targets run, others are refused", bitonic_cpu_target_name(all_targets[t]), "asc", "-", 3, 0);
    }
    check(bitonic_cpu_best_target() != BITONIC_CPU_TARGET_AUTO &&
              bitonic_cpu_target_supported(bitonic_cpu_best_target()),
          "best target is concrete and supported", "-", "-", "-", 0, 0);
}

/* The heapsort guard only runs on inputs that defeat the pivot sample, so drive
 * it directly with small depth budgets, for every kernel set. */
static void test_depth_guard(void)
{
    const bitonic_cpu_kernels *kernels[3] = {&bitonic_cpu_kernels_portable, NULL, NULL};
    const bitonic_cpu_target targets[3] = {BITONIC_CPU_TARGET_PORTABLE, BITONIC_CPU_TARGET_AVX2,
                                           BITONIC_CPU_TARGET_AVX512};
#ifdef BITONIC_CPU_HAVE_X86
    kernels[1] = &bitonic_cpu_kernels_avx2;
    kernels[2] = &bitonic_cpu_kernels_avx512;
#endif
    const size_t counts[] = {300, 1000, 4097, 70000};
    for (size_t t = 0; t < 3; t++) {
        if (!kernels[t] || !bitonic_cpu_target_supported(targets[t]))
            continue;
        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
            for (int shape = 0; shape < SHAPE_COUNT; shape++) {
                for (size_t budget = 0; budget <= 2; budget++) {
                    size_t count = counts[c];
                    uint32_t *keys = malloc(count * sizeof *keys), *expected = malloc(count * sizeof *keys);
                    if (!keys || !expected) {
                        check(0, "test could not allocate", "-", "-", shape_names[shape], count, 0);
                        free(keys);
                        free(expected);
                        return;
                    }
                    fill(keys, count, (enum shape)shape);
                    memcpy(expected, keys, count * sizeof *keys);
                    qsort(expected, count, sizeof *expected, compare_u32);
                    bitonic_cpu_sort_with_depth_budget_u32(kernels[t], keys, count, budget);
                    check(memcmp(keys, expected, count * sizeof *keys) == 0, "depth guard (heapsort) result",
                          bitonic_cpu_target_name(targets[t]), "asc", shape_names[shape], count, 1);
                    free(keys);
                    free(expected);
                }
            }
        }
    }
}

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* 64-bit words of each shape: the 32-bit shape in the high half and a low half
 * that keeps sorted and reversed input so, repeats the few values of the tie
 * shapes (so whole words tie), and is random where only the low half tells
 * mostly-equal words apart; extremes are 0 and UINT64_MAX. */
static void fill64(uint64_t *words, uint32_t *high, size_t count, enum shape shape)
{
    fill(high, count, shape);
    for (size_t i = 0; i < count; i++) {
        uint32_t low;
        switch (shape) {
        case SHAPE_SORTED:
        case SHAPE_REVERSE: low = high[i]; break;
        case SHAPE_ALL_EQUAL: low = 42u; break;
        case SHAPE_FEW_DISTINCT: low = next_random() % 3u; break;
        case SHAPE_EXTREMES: low = high[i]; break;
        default: low = next_random(); break;
        }
        words[i] = (uint64_t)high[i] << 32 | low;
    }
}

static void run_case64(const uint64_t *input, const uint64_t *ascending, size_t count, const char *shape,
                       uint64_t *work, bitonic_cpu_target target, bitonic_order order, uint32_t threads)
{
    const char *target_name = bitonic_cpu_target_name(target);
    const char *order_name = order == BITONIC_ORDER_ASCENDING ? "asc" : "desc";
    const uint64_t guard = 0xDEADBEEFCAFEF00Dull;
    for (size_t i = 0; i < GUARD_KEYS; i++)
        work[i] = work[GUARD_KEYS + count + i] = guard;
    uint64_t *words = work + GUARD_KEYS;
    if (count)
        memcpy(words, input, count * sizeof *words);
    bitonic_cpu_sort_config config = {.target = target, .threads = threads};
    bitonic_status status = bitonic_cpu_sort_u64(count ? words : NULL, count, order, &config);
    check(status == BITONIC_SUCCESS, "u64 status", target_name, order_name, shape, count, threads);
    int same = 1;
    for (size_t i = 0; i < count && same; i++)
        same = words[i] == (order == BITONIC_ORDER_ASCENDING ? ascending[i] : ascending[count - 1 - i]);
    check(same, "u64 words differ from qsort", target_name, order_name, shape, count, threads);
    int guards = 1;
    for (size_t i = 0; i < GUARD_KEYS; i++)
        guards &= work[i] == guard && work[GUARD_KEYS + count + i] == guard;
    check(guards, "u64 sort wrote outside the array", target_name, order_name, shape, count, threads);
}

/* run_all for 64-bit words. */
static void run_all64(size_t count, enum shape shape, const uint32_t *threads, size_t thread_count)
{
    size_t size = count ? count : 1;
    uint64_t *input = malloc(size * sizeof *input), *ascending = malloc(size * sizeof *ascending);
    uint64_t *work = malloc((count + 2 * GUARD_KEYS) * sizeof *work);
    uint32_t *high = malloc(size * sizeof *high);
    if (!input || !ascending || !work || !high) {
        check(0, "test could not allocate", "-", "-", shape_names[shape], count, 0);
    } else {
        fill64(input, high, count, shape);
        if (count)
            memcpy(ascending, input, count * sizeof *ascending);
        qsort(ascending, count, sizeof *ascending, compare_u64);
        for (size_t t = 0; t < TARGET_COUNT; t++) {
            if (!bitonic_cpu_target_supported(all_targets[t]))
                continue;
            for (size_t n = 0; n < thread_count; n++) {
                run_case64(input, ascending, count, shape_names[shape], work, all_targets[t],
                           BITONIC_ORDER_ASCENDING, threads[n]);
                run_case64(input, ascending, count, shape_names[shape], work, all_targets[t],
                           BITONIC_ORDER_DESCENDING, threads[n]);
            }
        }
    }
    free(input);
    free(ascending);
    free(work);
    free(high);
}

/* The finish (fast_sort.h): each key handed to it exactly once, in a stretch
 * already final. The finish counts each key's visits and copies what it sees;
 * after the sort every key was seen once, as it ended. Covers the leaves,
 * keys equal to a pivot (in a piece and, mostly-equal on 4 threads from 2^22,
 * in the parallel first passes), input already in order and one key. */
typedef struct finish_record {
    const void *keys;
    size_t width; /* bytes a key */
    void *seen;   /* what the finish saw, key by key */
    uint8_t *visits;
} finish_record;

static void record_finish(void *context, size_t begin, size_t end)
{
    const finish_record *record = context;
    memcpy((char *)record->seen + begin * record->width, (const char *)record->keys + begin * record->width,
           (end - begin) * record->width);
    for (size_t i = begin; i < end; i++)
        record->visits[i]++;
}

static void test_finish_case(size_t count, enum shape shape, uint32_t threads, int wide)
{
    size_t width = wide ? sizeof(uint64_t) : sizeof(uint32_t), size = count ? count : 1;
    void *keys = malloc(size * width), *expected = malloc(size * width), *seen = malloc(size * width);
    uint32_t *high = malloc(size * sizeof *high);
    uint8_t *visits = calloc(size, 1);
    if (!keys || !expected || !seen || !high || !visits) {
        check(0, "test could not allocate", "-", "-", shape_names[shape], count, threads);
    } else {
        if (wide)
            fill64(keys, high, count, shape);
        else
            fill(keys, count, shape);
        memcpy(expected, keys, count * width);
        qsort(expected, count, width, wide ? compare_u64 : compare_u32);
        finish_record record = {keys, width, seen, visits};
        bitonic_cpu_finish finish = {record_finish, &record};
        bitonic_cpu_sort_config config = {.target = BITONIC_CPU_TARGET_AUTO, .threads = threads};
        bitonic_status status = wide ? bitonic_cpu_sort_u64_finished(keys, count, &config, &finish)
                                     : bitonic_cpu_sort_u32_finished(keys, count, &config, &finish);
        const char *what = wide ? "finished u64" : "finished u32";
        check(status == BITONIC_SUCCESS, what, "auto", "asc", shape_names[shape], count, threads);
        check(memcmp(keys, expected, count * width) == 0, "finished sort differs from qsort", "auto", "asc",
              shape_names[shape], count, threads);
        int once = 1;
        for (size_t i = 0; i < count; i++)
            once &= visits[i] == 1;
        check(once, "finish saw a key other than once", "auto", "asc", shape_names[shape], count, threads);
        check(memcmp(seen, keys, count * width) == 0, "finish saw a key before it was final", "auto", "asc",
              shape_names[shape], count, threads);
    }
    free(keys);
    free(expected);
    free(seen);
    free(high);
    free(visits);
}

static void test_finish(void)
{
    const size_t counts[] = {0, 1, 2, 300, ((size_t)1 << 16) + 1};
    for (int wide = 0; wide <= 1; wide++) {
        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
            for (int shape = 0; shape < SHAPE_COUNT; shape++)
                test_finish_case(counts[c], (enum shape)shape, 1, wide);
        test_finish_case(((size_t)1 << 20) + 12345, SHAPE_RANDOM, 3, wide);
        test_finish_case(((size_t)1 << 20) + 12345, SHAPE_FEW_DISTINCT, 2, wide);
        test_finish_case(((size_t)1 << 22) + 777, SHAPE_MOSTLY_EQUAL, 4, wide);
        test_finish_case(((size_t)1 << 22) + 777, SHAPE_RANDOM, 4, wide);
    }
}

/* Every input of up to max_length keys over value_count values (by the 0-1
 * principle's big brother: a sort that orders every such input orders ties
 * right), for both widths and every target. The values sit at the ends of the
 * range and, for 64-bit words, differ in the high half, the low half or both. */
static void test_exhaustive_small(size_t max_length, uint32_t value_count)
{
    static const uint32_t values32[4] = {0u, 1u, UINT32_MAX - 1u, UINT32_MAX};
    static const uint64_t values64[4] = {0u, UINT32_MAX, (uint64_t)1 << 32, UINT64_MAX};
    uint32_t keys[16], expected[16];
    uint64_t words[16], expected64[16];
    for (size_t length = 0; length <= max_length; length++) {
        size_t inputs = 1;
        for (size_t i = 0; i < length; i++)
            inputs *= value_count;
        for (size_t t = 0; t < TARGET_COUNT; t++) {
            if (!bitonic_cpu_target_supported(all_targets[t]))
                continue;
            bitonic_cpu_sort_config config = {.target = all_targets[t], .threads = 1};
            int ok32 = 1, ok64 = 1;
            for (size_t input = 0; input < inputs; input++) {
                for (int descending = 0; descending < 2; descending++) {
                    size_t code = input;
                    for (size_t i = 0; i < length; i++, code /= value_count) {
                        keys[i] = values32[code % value_count];
                        words[i] = values64[code % value_count];
                    }
                    memcpy(expected, keys, sizeof keys);
                    memcpy(expected64, words, sizeof words);
                    qsort(expected, length, sizeof *expected, compare_u32);
                    qsort(expected64, length, sizeof *expected64, compare_u64);
                    bitonic_order order = descending ? BITONIC_ORDER_DESCENDING : BITONIC_ORDER_ASCENDING;
                    bitonic_cpu_sort_u32(keys, length, order, &config);
                    bitonic_cpu_sort_u64(words, length, order, &config);
                    for (size_t i = 0; i < length; i++) {
                        size_t at = descending ? length - 1 - i : i;
                        ok32 &= keys[i] == expected[at];
                        ok64 &= words[i] == expected64[at];
                    }
                }
            }
            check(ok32, "exhaustive small u32", bitonic_cpu_target_name(all_targets[t]), "both", "all", length, 1);
            check(ok64, "exhaustive small u64", bitonic_cpu_target_name(all_targets[t]), "both", "all", length, 1);
        }
    }
}

/* The heapsort guard of the 64-bit driver, for every kernel set. */
static void test_depth_guard64(void)
{
    const bitonic_cpu_kernels64 *kernels[2] = {&bitonic_cpu_kernels64_portable, NULL};
    const bitonic_cpu_target targets[2] = {BITONIC_CPU_TARGET_PORTABLE, BITONIC_CPU_TARGET_AVX512};
#ifdef BITONIC_CPU_HAVE_X86
    kernels[1] = &bitonic_cpu_kernels64_avx512;
#endif
    const size_t count = 4097;
    uint64_t *words = malloc(count * sizeof *words), *expected = malloc(count * sizeof *words);
    uint32_t *high = malloc(count * sizeof *high);
    for (size_t t = 0; t < 2 && words && expected && high; t++) {
        if (!kernels[t] || !bitonic_cpu_target_supported(targets[t]))
            continue;
        for (int shape = 0; shape < SHAPE_COUNT; shape++) {
            for (size_t budget = 0; budget <= 2; budget++) {
                fill64(words, high, count, (enum shape)shape);
                memcpy(expected, words, count * sizeof *words);
                qsort(expected, count, sizeof *expected, compare_u64);
                bitonic_cpu_sort_with_depth_budget_u64(kernels[t], words, count, budget);
                check(memcmp(words, expected, count * sizeof *words) == 0, "u64 depth guard (heapsort) result",
                      bitonic_cpu_target_name(targets[t]), "asc", shape_names[shape], count, 1);
            }
        }
    }
    free(words);
    free(expected);
    free(high);
}

typedef struct key_value {
    uint64_t key;
    uint32_t value;
} key_value;

static int compare_key_value(const void *a, const void *b)
{
    const key_value *x = a, *y = b;
    if (x->key != y->key)
        return (x->key > y->key) - (x->key < y->key);
    return (x->value > y->value) - (x->value < y->value);
}

/* Pairs with 64-bit keys (pair_sort.c, which the library takes below 2^15
 * pairs) against qsort by (key, value), for every target: keys that span
 * less than 2^32 (one packed sort), random keys (runs of equal high halves of
 * one or two), keys whose high halves tie in long runs, and heavy ties of
 * whole keys; values repeat too, and indices as values are the argsort;
 * skewed keys, and keys of few distinct high parts. Scratch words the caller
 * gives and scratch the sort allocates, by turns; on `threads` threads (0:
 * all cores). */
static void test_pairs_u64(size_t count, uint32_t threads)
{
    uint64_t *scratch = malloc(BITONIC_CPU_PAIRS_U64_SCRATCH_WORDS(count + 1) * sizeof *scratch);
    uint64_t *keys = malloc(count * sizeof *keys);
    uint32_t *values = malloc(count * sizeof *values);
    key_value *expected = malloc(count * sizeof *expected);
    for (int shape = 0; shape < 7 && keys && values && expected; shape++) {
        for (size_t t = 0; t < TARGET_COUNT; t++) {
            if (!bitonic_cpu_target_supported(all_targets[t]))
                continue;
            for (size_t i = 0; i < count; i++) {
                uint64_t r = (uint64_t)next_random() << 32 | next_random();
                switch (shape) {
                case 0: keys[i] = 1000000u + r % 5000u; break;
                case 1: keys[i] = r; break;
                case 2: keys[i] = (r % 3u) << 32 | (next_random() % 7u == 0 ? r >> 40 : 5u); break;
                case 3: keys[i] = r % 2u ? UINT64_MAX : 0u; break;
                case 4: keys[i] = (r % 4u) << 62 | (r & 0xFFu); break;
                case 5: keys[i] = next_random() % 10u ? r >> 40 : r; break;
                default: keys[i] = (r % 64u) << 58 | (r >> 16 & 0xFFFFFu); break;
                }
                values[i] = shape == 4 ? next_random() % 3u : (uint32_t)i;
                expected[i] = (key_value){keys[i], values[i]};
            }
            qsort(expected, count, sizeof *expected, compare_key_value);
            bitonic_cpu_sort_config config = {.target = all_targets[t], .threads = threads};
            bitonic_status status =
                bitonic_cpu_sort_pairs_u64(keys, values, count, (shape + t) % 2 ? scratch : NULL, &config);
            int same = status == BITONIC_SUCCESS;
            for (size_t i = 0; i < count && same; i++)
                same = keys[i] == expected[i].key && values[i] == expected[i].value;
            check(same, "pairs with 64-bit keys differ from qsort", bitonic_cpu_target_name(all_targets[t]), "asc",
                  "pairs64", count, 0);
        }
    }
    free(scratch);
    free(keys);
    free(values);
    free(expected);
}

int main(void)
{
    printf("CPU targets:");
    for (size_t t = 1; t < TARGET_COUNT; t++)
        printf(" %s=%s", bitonic_cpu_target_name(all_targets[t]),
               bitonic_cpu_target_supported(all_targets[t]) ? "yes" : "no");
    printf(" (auto=%s)\n", bitonic_cpu_target_name(bitonic_cpu_best_target()));

    test_arguments();
    test_depth_guard();
    test_finish();

    const uint32_t one_thread[] = {1};
    const uint32_t some_threads[] = {1, 2, 3};
    for (size_t count = 0; count <= 300; count++)
        for (int shape = 0; shape < SHAPE_COUNT; shape++)
            run_all(count, (enum shape)shape, one_thread, 1);
    for (unsigned log = 9; log <= 16; log++)
        for (size_t count = ((size_t)1 << log) - 1; count <= ((size_t)1 << log) + 1; count++)
            for (int shape = 0; shape < SHAPE_COUNT; shape++)
                run_all(count, (enum shape)shape, one_thread, 1);
    /* Large enough that two and three threads partition in parallel (the
     * parallel path starts at 2^16 keys per thread). */
    const enum shape large_shapes[] = {SHAPE_RANDOM, SHAPE_FEW_DISTINCT, SHAPE_MOSTLY_EQUAL, SHAPE_ORGAN_PIPE};
    for (size_t s = 0; s < sizeof large_shapes / sizeof large_shapes[0]; s++)
        run_all(((size_t)1 << 21) + 12345, large_shapes[s], some_threads, 3);
    const uint32_t two_threads[] = {2};
    run_all((size_t)1 << 21, SHAPE_RANDOM, two_threads, 1);
    /* On 4 threads and 2^22 keys or more, the first passes partition in parallel
     * and swap keys across slices (fast_sort_driver.inc); cover that code. */
    const uint32_t four_threads[] = {4};
    run_all(((size_t)1 << 22) + 777, SHAPE_RANDOM, four_threads, 1);
    run_all(((size_t)1 << 22) + 777, SHAPE_FEW_DISTINCT, four_threads, 1);
    const uint32_t all_cores[] = {0};
    run_all((size_t)1 << 18, SHAPE_RANDOM, all_cores, 1);
    run_all((size_t)1 << 18, SHAPE_REVERSE, all_cores, 1);
    run_all((size_t)1 << 18, SHAPE_ALL_EQUAL, all_cores, 1);

    /* 64-bit words: the same lengths and shapes, fewer of the large ones. */
    test_exhaustive_small(8, 3);
    test_exhaustive_small(6, 4);
    test_depth_guard64();
    for (size_t count = 0; count <= 300; count++)
        for (int shape = 0; shape < SHAPE_COUNT; shape++)
            run_all64(count, (enum shape)shape, one_thread, 1);
    for (unsigned log = 9; log <= 16; log++)
        for (size_t count = ((size_t)1 << log) - 1; count <= ((size_t)1 << log) + 1; count++)
            for (int shape = 0; shape < SHAPE_COUNT; shape++)
                run_all64(count, (enum shape)shape, one_thread, 1);
    for (size_t s = 0; s < sizeof large_shapes / sizeof large_shapes[0]; s++)
        run_all64(((size_t)1 << 20) + 12345, large_shapes[s], some_threads, 3);
    run_all64(((size_t)1 << 22) + 777, SHAPE_FEW_DISTINCT, four_threads, 1);
    run_all64((size_t)1 << 18, SHAPE_RANDOM, all_cores, 1);
    for (size_t count = 0; count <= 40; count++)
        test_pairs_u64(count, 0);
    test_pairs_u64(1000, 0);
    test_pairs_u64(((size_t)1 << 16) + 3, 1);
    test_pairs_u64(((size_t)1 << 18) + 5, 0);
    for (size_t count = ((size_t)1 << 15) - 2; count < ((size_t)1 << 15); count++)
        test_pairs_u64(count, 1);
    test_pairs_u64(((size_t)1 << 20) + 5, 3);

    printf("%u passed, %u failed\n", passed, failed);
    return failed ? 1 : 0;
}
