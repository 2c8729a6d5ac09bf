/* boids_params.c: the flock parameters, kernel sizes and metrics line that
 * every mode of bitonic-boids takes from the command line (boids_params.h). */
#include "boids_params.h"

#include <stdio.h>

flock_params boids_params_for(const boids_options *o)
{
    return flock_default_params(o->count, o->seed);
}

flock_tuning boids_tuning_for(const gpu *g, const boids_options *o)
{
    flock_tuning tuning = flock_tuning_from_device(g);
    if (o->max_groups_x && o->max_groups_x < tuning.max_groups_x)
        tuning.max_groups_x = o->max_groups_x;
    return tuning;
}

void boids_print_metrics(const char *label, const flock_boid *boids, uint32_t count)
{
    flock_metrics m = flock_measure(boids, count, 100000);
    printf("%s polarisation=%.4f mean_nn=%.4f (nearest neighbour over %u boids)\n", label, m.polarisation,
           m.mean_nearest_distance, m.sampled);
}
