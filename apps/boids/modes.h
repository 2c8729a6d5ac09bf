/* modes.h: what bitonic-boids can do, one entry point each; main.c picks one.
 * Each returns the process exit status (0 = success). What the modes share
 * with main.c lives in boids_params.h, so no mode depends on main.c. */
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

#endif /* BOIDS_MODES_H */
