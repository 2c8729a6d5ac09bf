/* fast_sort_portable64.c: the plain C kernels of the fast CPU sort for 64-bit
 * words, for CPUs without AVX-512 and for the odd ends the AVX-512 kernels leave
 * over: the branch-free partition of fast_sort_portable.c and a 32-key bitonic
 * network on scalars, which the compiler turns into conditional moves. */
#include "fast_sort.h"

#define PORTABLE64_NETWORK_KEYS 32

/* Branch-free Lomuto, as for 32-bit keys: only the cursor advance depends on
 * the comparison. */
size_t bitonic_cpu_partition_scalar64(uint64_t *keys, size_t count, uint64_t pivot)
{
    size_t below = 0;
    for (size_t i = 0; i < count; i++) {
        uint64_t key = keys[i];
        keys[i] = keys[below];
        keys[below] = key;
        below += key < pivot;
    }
    return below;
}

void bitonic_cpu_insertion_sort64(uint64_t *keys, size_t count)
{
    for (size_t i = 1; i < count; i++) {
        uint64_t key = keys[i];
        size_t j = i;
        while (j > 0 && keys[j - 1] > key) {
            keys[j] = keys[j - 1];
            j--;
        }
        keys[j] = key;
    }
}

static inline void compare_exchange64(uint64_t *lo, uint64_t *hi)
{
    uint64_t a = *lo, b = *hi;
    *lo = a < b ? a : b;
    *hi = a < b ? b : a;
}

/* Up to 32 keys: a bitonic network over a padded copy (the padding, the largest
 * word, sorts to the end and is not stored); 8 or fewer by insertion. */
static void portable64_base_sort(uint64_t *keys, size_t count)
{
    if (count <= 8) {
        bitonic_cpu_insertion_sort64(keys, count);
        return;
    }
    uint64_t lane[PORTABLE64_NETWORK_KEYS];
    for (size_t i = 0; i < PORTABLE64_NETWORK_KEYS; i++)
        lane[i] = i < count ? keys[i] : UINT64_MAX;
    for (size_t block = 2; block <= PORTABLE64_NETWORK_KEYS; block *= 2) {
        /* The first step of each merge compares mirror images, so every later
         * step is a plain ascending half-cleaner (no direction bits needed). */
        for (size_t base = 0; base < PORTABLE64_NETWORK_KEYS; base += block)
            for (size_t i = 0; i < block / 2; i++)
                compare_exchange64(&lane[base + i], &lane[base + block - 1 - i]);
        for (size_t stride = block / 4; stride > 0; stride /= 2)
            for (size_t i = 0; i < PORTABLE64_NETWORK_KEYS; i++)
                if ((i & stride) == 0)
                    compare_exchange64(&lane[i], &lane[i + stride]);
    }
    for (size_t i = 0; i < count; i++)
        keys[i] = lane[i];
}

const bitonic_cpu_kernels64 bitonic_cpu_kernels64_portable = {
    .base_keys = PORTABLE64_NETWORK_KEYS,
    .base_sort = portable64_base_sort,
    .partition = bitonic_cpu_partition_scalar64,
};
