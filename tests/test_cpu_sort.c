/* test_cpu_sort.c: checks the fast CPU sort (bitonic_cpu_sort_u32) against qsort
 * for every instruction-set target this CPU supports, forced in turn, both orders,
 * every length up to 300 and the lengths around each power of two up to 2^16,
 * several input shapes, one and several threads, and one input large enough that
 * the parallel partition runs. Guard words around each array catch writes past
 * either end. Prints one line per failure and "N passed, N failed" last. */
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
                    bitonic_cpu_sort_with_depth_budget(kernels[t], keys, count, budget);
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

/* The radix sort of 64-bit words (pairs and 64-bit keys on the CPU path) on
 * 1, 2, 3 and 4 threads against qsort: random words, few distinct high digits
 * (packed pairs of an argsort: the value bytes above the count are 0, so those
 * passes are skipped), and all equal (every pass skipped). */
static void test_sort_u64(size_t count)
{
    uint64_t *words = malloc(count * sizeof *words), *scratch = malloc(count * sizeof *scratch),
             *expected = malloc(count * sizeof *expected);
    if (!words || !scratch || !expected) {
        printf("FAIL: sort_u64: no memory for %zu words\n", count);
        ++failed;
        free(words);
        free(scratch);
        free(expected);
        return;
    }
    uint64_t state = 12345;
    for (int shape = 0; shape < 3; shape++) {
        for (uint32_t threads = 1; threads <= 4; threads++) {
            for (size_t i = 0; i < count; i++) {
                state = state * 6364136223846793005ull + 1442695040888963407ull;
                expected[i] = words[i] = shape == 0   ? state
                                         : shape == 1 ? (state >> 60) << 32 | (uint64_t)i
                                                      : 42u;
            }
            qsort(expected, count, sizeof *expected, compare_u64);
            bitonic_cpu_sort_u64(words, scratch, count, threads);
            if (memcmp(words, expected, count * sizeof *words) == 0) {
                ++passed;
            } else {
                printf("FAIL: sort_u64: %zu words, shape %d, %u threads\n", count, shape, threads);
                ++failed;
            }
        }
    }
    free(words);
    free(scratch);
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
     * and swap keys across slices (fast_sort_threads.c); cover that code. */
    const uint32_t four_threads[] = {4};
    run_all(((size_t)1 << 22) + 777, SHAPE_RANDOM, four_threads, 1);
    run_all(((size_t)1 << 22) + 777, SHAPE_FEW_DISTINCT, four_threads, 1);
    const uint32_t all_cores[] = {0};
    run_all((size_t)1 << 18, SHAPE_RANDOM, all_cores, 1);
    run_all((size_t)1 << 18, SHAPE_REVERSE, all_cores, 1);
    run_all((size_t)1 << 18, SHAPE_ALL_EQUAL, all_cores, 1);

    /* Several threads from 2^17 words (2^16 a thread). */
    test_sort_u64(1000);
    test_sort_u64(((size_t)1 << 17) + 3);
    test_sort_u64(((size_t)1 << 20) + 77);

    printf("%u passed, %u failed\n", passed, failed);
    return failed ? 1 : 0;
}
