/* partition_model.c: bucket statistics of the partition sort planned for the
 * GPU (src/cpu/reference_partition.c) at sizes too large for the tests: for n
 * random keys (or keys of a few values), the splitters a plan draws, the
 * longest open bucket against the window (the longest the window merge sorts),
 * and whether the plan falls back; with INNER, the nested partition (at most
 * INNER splitters inside each bucket of more than a window).
 * Build and run (from the repository root):
 *   cc -O2 -std=c11 -Isrc/cpu bench/partition/partition_model.c src/cpu/reference_partition.c -o /tmp/partition_model
 *   /tmp/partition_model LOG_N SAMPLES SAMPLES_PER_SPLITTER WINDOW_LOG [VALUES] [SEEDS] [INNER] */
#include <stdio.h>
#include <stdlib.h>

#include "reference_partition.h"

static uint64_t next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: %s LOG_N SAMPLES SAMPLES_PER_SPLITTER WINDOW_LOG [VALUES] [SEEDS] [INNER]\n", argv[0]);
        return 2;
    }
    uint64_t n = 1ull << atoi(argv[1]);
    bitonic_partition_plan plan = {.sample_count = strtoull(argv[2], NULL, 10),
                                   .samples_per_splitter = strtoull(argv[3], NULL, 10),
                                   .window_keys = 1ull << atoi(argv[4])};
    uint64_t values = argc > 5 ? strtoull(argv[5], NULL, 10) : 0;  /* 0: any 32-bit key */
    int seeds = argc > 6 ? atoi(argv[6]) : 5;
    uint64_t inner = argc > 7 ? strtoull(argv[7], NULL, 10) : 0;  /* 0: one level */
    uint64_t *keys = malloc(n * sizeof *keys);
    if (!keys)
        return 1;
    uint64_t state = 1;
    int fallbacks = 0;
    for (int s = 0; s < seeds; ++s) {
        for (uint64_t i = 0; i < n; ++i)
            keys[i] = values ? next(&state) % values : next(&state) >> 32;
        plan.seed = (uint64_t)s;
        bitonic_partition_report report;
        if (!bitonic_reference_nested_partition_sort(keys, n, &plan, inner, &report))
            return 1;
        for (uint64_t i = 1; i < n; ++i)
            if (keys[i - 1] > keys[i])
                return 1;
        fallbacks += report.fell_back;
        printf("n 2^%s samples %llu per splitter %llu window 2^%s seed %d: %llu splitters (mean open bucket %.0f), "
               "%llu inner, "
               "longest open %llu (%.2f of a window), longest equal %llu%s\n",
               argv[1], (unsigned long long)plan.sample_count, (unsigned long long)plan.samples_per_splitter,
               argv[4], s, (unsigned long long)report.splitters, (double)n / (double)(report.splitters + 1u),
               (unsigned long long)report.inner_splitters,
               (unsigned long long)report.longest_open_bucket,
               (double)report.longest_open_bucket / (double)plan.window_keys,
               (unsigned long long)report.longest_equal_bucket, report.fell_back ? ", fell back" : "");
    }
    printf("fallbacks: %d of %d\n", fallbacks, seeds);
    free(keys);
    return 0;
}
