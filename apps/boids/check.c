/* check.c: the proof that the sorted searches are exact. Two parts:
 *
 * 1. Snapshots. The brute-force flock runs; before each of its steps, its state
 *    is copied into a station flock and a grid flock, and all three take that
 *    step from the same input with fingerprints on. Each boid's neighbour count
 *    and the sum and xor of its hashed neighbour ids must be equal in all three
 *    (the sets are equal, not just their sizes), and the new states must agree
 *    up to float summation order.
 * 2. Independent runs. All three run the same seeded start for the same number
 *    of steps on their own; final positions must agree within a tolerance.
 *
 * It also fails if the neighbourhoods are empty (a comparison of nothing). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boids_params.h"
#include "modes.h"

/* The new heading is a normalised sum of ~20-100 terms; summed in another
 * order it moves by a few float ulps. One step moves a boid by speed * dt. */
#define SNAPSHOT_TOLERANCE 1e-4
/* After a few steps the small differences have been fed back a few times. */
#define RUN_TOLERANCE 2e-3

typedef struct comparison {
    uint32_t fingerprint_mismatches;
    double max_position_difference;
    double max_heading_difference;
} comparison;

static bool step_once(gpu *g, flock *f)
{
    VkCommandBuffer commands;
    if (!gpu_begin_one_shot(g, &commands))
        return false;
    bool recorded = flock_record_step(f, commands, VK_NULL_HANDLE, 0);
    gpu_compute_barrier(commands);
    return gpu_end_one_shot(g, commands) && recorded;
}

static void compare_states(const flock_boid *a, const flock_boid *b, uint32_t count, comparison *c)
{
    for (uint32_t i = 0; i < count; ++i)
        for (int k = 0; k < 3; ++k) {
            double dp = fabs((double)a[i].position[k] - b[i].position[k]);
            double dh = fabs((double)a[i].heading[k] - b[i].heading[k]);
            c->max_position_difference = dp > c->max_position_difference ? dp : c->max_position_difference;
            c->max_heading_difference = dh > c->max_heading_difference ? dh : c->max_heading_difference;
            if (isnan(dp) || isnan(dh))
                c->max_position_difference = INFINITY;
        }
}

static uint32_t compare_fingerprints(const uint32_t *a, const uint32_t *b, uint32_t count, uint32_t *first_bad)
{
    uint32_t mismatches = 0;
    for (uint32_t i = 0; i < count; ++i)
        if (memcmp(a + 4u * i, b + 4u * i, 3u * sizeof *a) != 0) {
            if (mismatches == 0)
                *first_bad = i;
            ++mismatches;
        }
    return mismatches;
}

int boids_run_check(gpu *g, const boids_options *o)
{
    flock_params params = boids_params_for(o);
    flock_tuning tuning = boids_tuning_for(g, o);
    uint32_t n = params.count;
    flock flocks[FLOCK_SEARCH_COUNT];
    memset(flocks, 0, sizeof flocks);
    flock_boid *input = malloc((size_t)n * sizeof *input);
    flock_boid *outputs[FLOCK_SEARCH_COUNT];
    uint32_t *fingerprints[FLOCK_SEARCH_COUNT];
    bool ok = input != NULL;
    for (int s = 0; s < FLOCK_SEARCH_COUNT; ++s) {
        outputs[s] = malloc((size_t)n * sizeof *outputs[s]);
        fingerprints[s] = malloc((size_t)n * 16u);
        ok = ok && outputs[s] && fingerprints[s] && flock_create(g, &params, (flock_search)s, &tuning, true, &flocks[s]);
    }
    comparison snapshot[FLOCK_SEARCH_COUNT], run[FLOCK_SEARCH_COUNT];
    memset(snapshot, 0, sizeof snapshot);
    memset(run, 0, sizeof run);
    uint64_t neighbour_total = 0;
    flock *brute = &flocks[FLOCK_SEARCH_BRUTE];

    /* Part 1: every search steps from the brute flock's exact state. */
    for (uint32_t step = 0; ok && step < o->steps; ++step) {
        ok = flock_read_state(brute, input);
        for (int s = 1; ok && s < FLOCK_SEARCH_COUNT; ++s)
            ok = flock_write_state(&flocks[s], input, brute->step);
        for (int s = 0; ok && s < FLOCK_SEARCH_COUNT; ++s)
            ok = step_once(g, &flocks[s]) && flock_read_state(&flocks[s], outputs[s]) &&
                 flock_read_fingerprints(&flocks[s], fingerprints[s]);
        for (uint32_t i = 0; ok && i < n; ++i)
            neighbour_total += fingerprints[FLOCK_SEARCH_BRUTE][4u * i];
        for (int s = 1; ok && s < FLOCK_SEARCH_COUNT; ++s) {
            uint32_t first_bad = 0;
            uint32_t bad = compare_fingerprints(fingerprints[0], fingerprints[s], n, &first_bad);
            if (bad && snapshot[s].fingerprint_mismatches == 0) {
                const uint32_t *b = fingerprints[0] + 4u * first_bad, *x = fingerprints[s] + 4u * first_bad;
                printf("step %u: %s differs from brute at boid %u: count %u vs %u, sum %08x vs %08x, xor %08x vs %08x\n",
                       step, flock_search_name((flock_search)s), first_bad, x[0], b[0], x[1], b[1], x[2], b[2]);
            }
            snapshot[s].fingerprint_mismatches += bad;
            compare_states(outputs[0], outputs[s], n, &snapshot[s]);
        }
    }
    double mean_neighbours = o->steps ? (double)neighbour_total / ((double)n * o->steps) : 0.0;

    /* Part 2: independent runs from the seeded start. */
    flock_seed_state(&params, input);
    for (int s = 0; ok && s < FLOCK_SEARCH_COUNT; ++s) {
        ok = flock_write_state(&flocks[s], input, 0);
        for (uint32_t step = 0; ok && step < o->steps; ++step)
            ok = step_once(g, &flocks[s]);
        ok = ok && flock_read_state(&flocks[s], outputs[s]);
    }
    for (int s = 1; ok && s < FLOCK_SEARCH_COUNT; ++s)
        compare_states(outputs[0], outputs[s], n, &run[s]);

    bool pass = ok && mean_neighbours >= 1.0;
    if (ok) {
        printf("check: %u boids, %u steps, workgroup %u (brute %u), groups per row %u, mean neighbours %.2f\n", n,
               o->steps, tuning.workgroup_size, tuning.brute_workgroup_size, tuning.max_groups_x, mean_neighbours);
        for (int s = 1; s < FLOCK_SEARCH_COUNT; ++s) {
            bool same_sets = snapshot[s].fingerprint_mismatches == 0;
            bool close = snapshot[s].max_position_difference <= SNAPSHOT_TOLERANCE &&
                         snapshot[s].max_heading_difference <= SNAPSHOT_TOLERANCE &&
                         run[s].max_position_difference <= RUN_TOLERANCE;
            printf("check %-7s vs brute: neighbour sets %s (%u boid-steps differ); one step: max |dpos| %.2e, "
                   "max |dheading| %.2e (tol %.0e); %u independent steps: max |dpos| %.2e (tol %.0e) -> %s\n",
                   flock_search_name((flock_search)s), same_sets ? "identical" : "DIFFER",
                   snapshot[s].fingerprint_mismatches, snapshot[s].max_position_difference,
                   snapshot[s].max_heading_difference, SNAPSHOT_TOLERANCE, o->steps, run[s].max_position_difference,
                   RUN_TOLERANCE, same_sets && close ? "ok" : "FAIL");
            pass = pass && same_sets && close;
        }
        if (mean_neighbours < 1.0)
            printf("check: FAIL, the boids have almost no neighbours, so the comparison proves nothing\n");
        boids_print_metrics("check brute final:", outputs[0], n);
    }
    for (int s = 0; s < FLOCK_SEARCH_COUNT; ++s) {
        flock_destroy(&flocks[s]);
        free(outputs[s]);
        free(fingerprints[s]);
    }
    free(input);
    printf("check: %s\n", pass ? "PASS" : "FAIL");
    return pass ? 0 : 1;
}
