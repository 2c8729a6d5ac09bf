/* sort_keys.c: the smallest program that uses the installed library: sorts a
 * few keys on the default device (the first GPU, else the CPU path) and checks
 * the result. Built against the installed package by tests/test_install.sh. */
#include <stdio.h>

#include <bitonic.h>

int main(void)
{
    uint32_t keys[] = {42, 7, 19, 7, 100000, 3, 0, 65535};
    size_t count = sizeof keys / sizeof keys[0];
    bitonic_context *context;
    bitonic_status status = bitonic_context_create(NULL, &context);
    if (status != BITONIC_SUCCESS) {
        fprintf(stderr, "no context: %s\n", bitonic_status_string(status));
        return 1;
    }
    status = bitonic_sort_u32(context, keys, count, NULL);
    bitonic_context_destroy(context);
    if (status != BITONIC_SUCCESS) {
        fprintf(stderr, "sort failed: %s\n", bitonic_status_string(status));
        return 1;
    }
    for (size_t i = 0; i < count; ++i)
        printf("%u%c", keys[i], i + 1 < count ? ' ' : '\n');
    for (size_t i = 1; i < count; ++i)
        if (keys[i - 1] > keys[i])
            return 1;
    return 0;
}
