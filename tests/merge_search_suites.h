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

#include <stdint.h>

#include "bitonic.h"
#include "test_util.h"

typedef void (*merge_search_runner)(test_counter *t, const bitonic_context_desc *desc, const char *label);

/* Runs `run` once a configuration, each a change of `base` (a Vulkan device's desc). */
static inline void run_merge_search_suites(test_counter *t, bitonic_context_desc base, merge_search_runner run)
{
    bitonic_context_desc desc = base;
    desc.tile_keys = 32;
    desc.merge_chunk_keys = 32;
    desc.merge_keys_per_thread = 2;
    desc.merge_split_pass_min_chunks = 1;
    run(t, &desc, "vulkan, 32-key tile and chunks, split passes on run samples");
    desc.merge_split_guided_min_chunks = 1;
    run(t, &desc, "vulkan, 32-key tile and chunks, guided split passes on run samples");
    desc.merge_split_guided_min_chunks = 0;
    desc.merge_split_pass_min_chunks = 1u << 30;
    desc.merge_fused_split_min_chunks = 1;
    run(t, &desc, "vulkan, 32-key tile and chunks, fused split searches");
    desc.tile_keys = 256;
    desc.merge_chunk_keys = 64;
    desc.merge_keys_per_thread = 4;
    run(t, &desc, "vulkan, 256-key tile, 64-key chunks, fused split searches");
    desc.merge_split_guided_min_chunks = 1;
    run(t, &desc, "vulkan, 256-key tile, 64-key chunks, guided fused split searches");
    desc.merge_split_guided_min_chunks = 0;
    desc.merge_fused_split_searcher = BITONIC_SPLIT_SEARCHER_THREAD;
    run(t, &desc, "vulkan, 256-key tile, 64-key chunks, fused split searches by one thread");
    desc.merge_fused_split_searcher = BITONIC_SPLIT_SEARCHER_SUBGROUP;
    run(t, &desc, "vulkan, 256-key tile, 64-key chunks, fused split searches by subgroups");
    desc.merge_fused_split_searcher = BITONIC_SPLIT_SEARCHER_DEFAULT;
    desc.merge_fused_split_min_chunks = 0;
    desc.merge_split_pass_min_chunks = 1;
    run(t, &desc, "vulkan, 256-key tile, 64-key chunks, split passes on run samples");
    desc.merge_split_no_samples = true;
    run(t, &desc, "vulkan, 256-key tile, 64-key chunks, split passes without run samples");
}

#endif
