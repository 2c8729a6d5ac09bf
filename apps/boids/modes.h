/* modes.h: what bitonic-boids can do, one entry point each; main.c picks one.
 * Each returns the process exit status (0 = success). */
#ifndef BOIDS_MODES_H
#define BOIDS_MODES_H

#include "gpu.h"
#include "options.h"

/* Proves grid and station find exactly brute's neighbours (check.c). */
int boids_run_check(gpu *g, const boids_options *options);
/* Steps per second and the GPU time of the sort vs the whole step (bench.c). */
int boids_run_bench(gpu *g, const boids_options *options);
/* Simulates, optionally rendering PNG frames and/or a video (picture_output.c). */
int boids_run_pictures(gpu *g, const boids_options *options);
/* Shows the flock in a window; creates its own device for the surface (window.c). */
int boids_run_window(const boids_options *options);

/* The flock parameters and kernel sizes a run uses (main.c). */
flock_params boids_params_for(const boids_options *options);
flock_tuning boids_tuning_for(const gpu *g, const boids_options *options);
/* Prints the order metrics line of a state: "<label> polarisation=... mean_nn=...". */
void boids_print_metrics(const char *label, const flock_boid *boids, uint32_t count);

#endif /* BOIDS_MODES_H */
