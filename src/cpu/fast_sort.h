/* fast_sort.h: the fast CPU sort, the executor the library runs when a context
 * has no GPU. Bitonic networks in vector registers (AVX-512, AVX2, or portable C
 * chosen at run time from the CPU's features) combined as the best SIMD sorts do,
 * on all cores for large inputs. Internal to the library: the public API reaches it
 * through bitonic_sort_u32() and friends on a CPU context. */
#ifndef BITONIC_CPU_FAST_SORT_H
#define BITONIC_CPU_FAST_SORT_H

#include <stddef.h>
#include <stdint.h>

#include "bitonic.h"

typedef enum bitonic_cpu_target {
    BITONIC_CPU_TARGET_AUTO = 0,   /* the best the running CPU supports */
    BITONIC_CPU_TARGET_PORTABLE,   /* plain C, any CPU */
    BITONIC_CPU_TARGET_AVX2,
    BITONIC_CPU_TARGET_AVX512,
} bitonic_cpu_target;

typedef struct bitonic_cpu_sort_config {
    bitonic_cpu_target target;     /* forcing a target the CPU lacks gives BITONIC_ERROR_UNSUPPORTED */
    uint32_t threads;              /* 0 = all cores */
} bitonic_cpu_sort_config;

/* The target AUTO resolves to on this CPU. */
bitonic_cpu_target bitonic_cpu_best_target(void);
/* Whether this CPU can run the target. */
int bitonic_cpu_target_supported(bitonic_cpu_target target);
const char *bitonic_cpu_target_name(bitonic_cpu_target target);

/* Sorts count keys in place. config may be NULL (AUTO, all cores).
 * Returns BITONIC_SUCCESS, BITONIC_ERROR_INVALID_ARGUMENT (keys NULL with count > 0),
 * BITONIC_ERROR_UNSUPPORTED or BITONIC_ERROR_OUT_OF_HOST_MEMORY. */
bitonic_status bitonic_cpu_sort_u32(uint32_t *keys, size_t count, bitonic_order order,
                                    const bitonic_cpu_sort_config *config);

#endif /* BITONIC_CPU_FAST_SORT_H */
