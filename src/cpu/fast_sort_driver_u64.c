/* fast_sort_driver_u64.c: the fast CPU sort's driver for 64-bit words: u64,
 * i64 and f64 keys, and pairs packed as (32-bit key << 32 | 32-bit value). The
 * code is fast_sort_driver.inc. */
#include "fast_sort.h"

#define KEY uint64_t
#define KEY_MAX UINT64_MAX
#define KERNELS bitonic_cpu_kernels64
#define NAME(name) bitonic_cpu_##name##_u64
#include "fast_sort_driver.inc"
