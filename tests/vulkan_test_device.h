/* vulkan_test_device.h: how the Vulkan tests pick their device and watch the
 * validation layer. BITONIC_TEST_DEVICE names the device (default "vulkan": the
 * first Vulkan device of any type, lavapipe on a machine without a GPU);
 * every validation message is printed and fails the test. BITONIC_TEST_VALIDATION=0
 * turns the layer off: the sanitizer stage of scripts/test.sh runs the same
 * suites without it, since the validated run has already proven the recording
 * and the layer's own allocations under the sanitizer cost most of its time. */
#ifndef BITONIC_VULKAN_TEST_DEVICE_H
#define BITONIC_VULKAN_TEST_DEVICE_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

static inline const char *test_device_selector(void)
{
    const char *device = getenv("BITONIC_TEST_DEVICE");
    return device && *device ? device : "vulkan";
}

static inline bool test_validation(void)
{
    const char *validation = getenv("BITONIC_TEST_VALIDATION");
    return !(validation && validation[0] == '0' && validation[1] == 0);
}

static inline void test_print_validation_message(void *user_data, const char *message)
{
    unsigned *printed = user_data;
    if (*printed < 20)
        printf("VALIDATION: %s\n", message);
    ++*printed;
}

#endif /* BITONIC_VULKAN_TEST_DEVICE_H */
