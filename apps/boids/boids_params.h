/* boids_params.h: what every mode of bitonic-boids derives the same way from
 * the command line: the flock's parameters, the kernel sizes on the device, and
 * the line of order metrics a run prints. main.c and the modes (check.c,
 * bench.c, picture_output.c, window.c) both use it; it uses neither. */
#ifndef BOIDS_PARAMS_H
#define BOIDS_PARAMS_H

#include <stdint.h>

#include "flock.h"
#include "gpu.h"
#include "options.h"

/* The flock parameters and kernel sizes a run uses. */
flock_params boids_params_for(const boids_options *options);
flock_tuning boids_tuning_for(const gpu *g, const boids_options *options);
/* Prints the order metrics line of a state: "<label> polarisation=... mean_nn=...". */
void boids_print_metrics(const char *label, const flock_boid *boids, uint32_t count);

#endif /* BOIDS_PARAMS_H */
