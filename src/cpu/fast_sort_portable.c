/* fast_sort_portable.c: the plain C kernels of the fast CPU sort, for CPUs
 * without AVX2 or AVX-512 and for the odd ends the vector kernels leave over.
 * A branch-free partition keeps mispredictions out of the quicksort loop; small
 * ranges end in a sorting network of compare-exchanges (the same bitonic shape
 * the vector kernels run in registers) that the compiler turns into cmov/min/max. */
#include "fast_sort.h"

/* Branch-free Lomuto: every key is swapped into place unconditionally and only
 * the cursor advance depends on the comparison, so random keys cost no
 * mispredictions (about 2x faster than a branchy Hoare loop on random input). */
size_t bitonic_cpu_partition_scalar(uint32_t *keys, size_t count, uint32_t pivot)
{
    size_t below = 0;
    for (size_t i = 0; i < count; i++) {
        uint32_t key = keys[i];
        keys[i] = keys[below];
        keys[below] = key;
        below += key < pivot;
    }
    return below;
}

void bitonic_cpu_insertion_sort(uint32_t *keys, size_t count)
{
    for (size_t i = 1; i < count; i++) {
        uint32_t key = keys[i];
        size_t j = i;
        while (j > 0 && keys[j - 1] > key) {
            keys[j] = keys[j - 1];
            j--;
        }
        keys[j] = key;
    }
}

#define PORTABLE_NETWORK_KEYS 32

static inline void compare_exchange(uint32_t *lo, uint32_t *hi)
{
    uint32_t a = *lo, b = *hi;
    *lo = a < b ? a : b;
    *hi = a < b ? b : a;
}

/* Bitonic sort of 32 keys in a local array padded with UINT32_MAX: a fixed
 * sequence of compare-exchanges without data-dependent branches. */
static void portable_base_sort(uint32_t *keys, size_t count)
{
    if (count <= 8) {
        bitonic_cpu_insertion_sort(keys, count);
        return;
    }
    uint32_t lane[PORTABLE_NETWORK_KEYS];
    for (size_t i = 0; i < PORTABLE_NETWORK_KEYS; i++)
        lane[i] = i < count ? keys[i] : UINT32_MAX;
    for (size_t block = 2; block <= PORTABLE_NETWORK_KEYS; block *= 2) {
        /* First step of each merge compares mirror images, so every later step
         * is a plain ascending half-cleaner (no direction bits needed). */
        for (size_t base = 0; base < PORTABLE_NETWORK_KEYS; base += block)
            for (size_t i = 0; i < block / 2; i++)
                compare_exchange(&lane[base + i], &lane[base + block - 1 - i]);
        for (size_t stride = block / 4; stride > 0; stride /= 2)
            for (size_t i = 0; i < PORTABLE_NETWORK_KEYS; i++)
                if ((i & stride) == 0)
                    compare_exchange(&lane[i], &lane[i + stride]);
    }
    for (size_t i = 0; i < count; i++)
        keys[i] = lane[i];
}

const bitonic_cpu_kernels bitonic_cpu_kernels_portable = {
    .base_keys = PORTABLE_NETWORK_KEYS,
    .base_sort = portable_base_sort,
    .partition = bitonic_cpu_partition_scalar,
};
