/* boids_shaders.h: the app's shaders as SPIR-V words, compiled from
 * shaders/ by glslc and embedded at build time (CMakeLists.txt), so the binary
 * needs nothing on disk at run time. */
#ifndef BOIDS_SHADERS_H
#define BOIDS_SHADERS_H

#include <stddef.h>
#include <stdint.h>

#define BOIDS_DECLARE_SPIRV(name)                \
    extern const uint32_t boids_spirv_##name[];  \
    extern const size_t boids_spirv_##name##_size;

BOIDS_DECLARE_SPIRV(move_brute)
BOIDS_DECLARE_SPIRV(station_keys)
BOIDS_DECLARE_SPIRV(station_rank)
BOIDS_DECLARE_SPIRV(move_station)
BOIDS_DECLARE_SPIRV(grid_keys)
BOIDS_DECLARE_SPIRV(grid_cells)
BOIDS_DECLARE_SPIRV(move_grid)
BOIDS_DECLARE_SPIRV(sky_vert)
BOIDS_DECLARE_SPIRV(sky_frag)
BOIDS_DECLARE_SPIRV(floor_vert)
BOIDS_DECLARE_SPIRV(floor_frag)
BOIDS_DECLARE_SPIRV(boid_vert)
BOIDS_DECLARE_SPIRV(boid_frag)

#endif /* BOIDS_SHADERS_H */
