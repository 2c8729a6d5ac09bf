/* merge_search_suites.h: the split-search configurations the key-type test
 * programs (test_key_types.c, test_key_types64.c) run their sorts under: merges
 * whose split searches narrow on the run samples the pass before left (a key
 * with its value where there are values) in split passes before every merge,
 * plain and guided, and without samples; then the merges' own searches with no
 * split pass, plain, guided, by one thread and by a subgroup. On 32-key tiles
 * and chunks (a chunk is one sample's group) and on 256-key tiles with 64-key
 * chunks. */
#ifndef BITONIC_MERGE_SEARCH_SUITES_H
#define BITONIC_MERGE_SEARCH_SUITES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bitonic.h"
#include "bitonic_tuning_overrides.h"
#include "test_util.h"

typedef void (*merge_search_runner)(test_counter *t, const bitonic_context_desc *desc, const char *label);

/* One configuration: the shapes and the split-search fields it sets. */
typedef struct merge_search_suite {
    uint32_t tile_keys, chunk_keys;
    uint32_t split_pass_min_chunks, guided_min_chunks, fused_min_chunks;
    bitonic_split_searcher searcher;
    bool no_samples;
    const char *label;
} merge_search_suite;

/* Runs `run` once a configuration, each a change of `base` (a Vulkan device's
 * desc) and of the tuning overrides in its chain. */
static inline void run_merge_search_suites(test_counter *t, bitonic_context_desc base, merge_search_runner run)
{
    const uint32_t never = 1u << 30;  /* no split pass */
    const bitonic_split_searcher any = BITONIC_SPLIT_SEARCHER_DEFAULT;
    const merge_search_suite suites[] = {
        {32, 32, 1, 0, 0, any, false, "vulkan, 32-key tile and chunks, split passes on run samples"},
        {32, 32, 1, 1, 0, any, false, "vulkan, 32-key tile and chunks, guided split passes on run samples"},
        {32, 32, never, 0, 1, any, false, "vulkan, 32-key tile and chunks, fused split searches"},
        {256, 64, never, 0, 1, any, false, "vulkan, 256-key tile, 64-key chunks, fused split searches"},
        {256, 64, never, 1, 1, any, false, "vulkan, 256-key tile, 64-key chunks, guided fused split searches"},
        {256, 64, never, 0, 1, BITONIC_SPLIT_SEARCHER_THREAD, false,
         "vulkan, 256-key tile, 64-key chunks, fused split searches by one thread"},
        {256, 64, never, 0, 1, BITONIC_SPLIT_SEARCHER_SUBGROUP, false,
         "vulkan, 256-key tile, 64-key chunks, fused split searches by subgroups"},
        {256, 64, 1, 0, 0, any, false, "vulkan, 256-key tile, 64-key chunks, split passes on run samples"},
        {256, 64, 1, 0, 0, any, true, "vulkan, 256-key tile, 64-key chunks, split passes without run samples"},
    };
    for (size_t i = 0; i < sizeof suites / sizeof suites[0]; ++i) {
        const merge_search_suite *suite = &suites[i];
        bitonic_context_desc desc = base;
        bitonic_tuning_overrides tuning = *bitonic_tuning_overrides_find(base.next);
        desc.next = &tuning;
        tuning.tile_keys = suite->tile_keys;
        tuning.merge_chunk_keys = suite->chunk_keys;
        tuning.merge_split_pass_min_chunks = suite->split_pass_min_chunks;
        tuning.merge_split_guided_min_chunks = suite->guided_min_chunks;
        tuning.merge_fused_split_min_chunks = suite->fused_min_chunks;
        tuning.merge_fused_split_searcher = suite->searcher;
        tuning.merge_split_no_samples = suite->no_samples;
        run(t, &desc, suite->label);
    }
}

#endif
