/* fast_sort_driver_u32.c: the fast CPU sort's driver for 32-bit keys (the
 * sorts of u32, i32 and f32 keys). The code is fast_sort_driver.inc. */
#include "fast_sort.h"

#define KEY uint32_t
#define KEY_MAX UINT32_MAX
#define KERNELS bitonic_cpu_kernels
#define NAME(name) bitonic_cpu_##name##_u32
#include "fast_sort_driver.inc"
