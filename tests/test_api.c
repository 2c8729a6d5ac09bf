/* test_api.c: the public API's contract apart from the GPU: argument checks,
 * status names, device selection (option and BITONIC_DEVICE), and the CPU
 * backend through the same host calls the GPU backend serves. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "bitonic.h"
#include "context_internal.h"
#include "test_util.h"

static int ascending(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static void test_status_strings(test_counter *t)
{
    for (int s = BITONIC_SUCCESS; s <= BITONIC_ERROR_COMMUNICATION; ++s) {
        const char *text = bitonic_status_string((bitonic_status)s);
        TEST_CHECK(t, text && strlen(text) > 5 && strcmp(text, "unknown status") != 0, "status %d has a name", s);
    }
    TEST_CHECK(t, strcmp(bitonic_status_string((bitonic_status)999), "unknown status") == 0, "unknown status named");
}

static void test_selectors(test_counter *t)
{
    TEST_CHECK(t, bitonic_parse_selector(NULL).kind == BITONIC_SELECT_AUTO, "NULL is auto");
    TEST_CHECK(t, bitonic_parse_selector("").kind == BITONIC_SELECT_AUTO, "empty is auto");
    TEST_CHECK(t, bitonic_parse_selector("cpu").kind == BITONIC_SELECT_CPU, "cpu");
    TEST_CHECK(t, bitonic_parse_selector("vulkan").kind == BITONIC_SELECT_ANY_VULKAN, "vulkan");
    bitonic_selector index = bitonic_parse_selector("12");
    TEST_CHECK(t, index.kind == BITONIC_SELECT_INDEX && index.index == 12, "an index");
    bitonic_selector name = bitonic_parse_selector("H100");
    TEST_CHECK(t, name.kind == BITONIC_SELECT_NAME && strcmp(name.name, "H100") == 0, "a name");
    TEST_CHECK(t, bitonic_parse_selector("3a").kind == BITONIC_SELECT_NAME, "digits then letters are a name");
}

static void test_arguments(test_counter *t)
{
    bitonic_context *context = (bitonic_context *)1;
    TEST_CHECK(t, bitonic_context_create(NULL, NULL) == BITONIC_ERROR_INVALID_ARGUMENT, "create without out pointer");
    bitonic_context_desc missing = {.device = "no such device at all"};
    bitonic_status status = bitonic_context_create(&missing, &context);
    TEST_CHECK(t, (status == BITONIC_ERROR_DEVICE_NOT_FOUND || status == BITONIC_ERROR_VULKAN_UNAVAILABLE) &&
                      context == NULL, "an unknown device name is reported, *out cleared");
    bitonic_context_desc cpu = {.device = "cpu"};
    if (!TEST_CHECK(t, bitonic_context_create(&cpu, &context) == BITONIC_SUCCESS, "cpu context"))
        return;
    uint32_t key = 1;
    TEST_CHECK(t, bitonic_sort_u32(NULL, &key, 1, NULL) == BITONIC_ERROR_INVALID_ARGUMENT, "NULL context");
    TEST_CHECK(t, bitonic_sort_u32(context, NULL, 5, NULL) == BITONIC_ERROR_INVALID_ARGUMENT, "NULL keys");
    TEST_CHECK(t, bitonic_sort_u32(context, NULL, 0, NULL) == BITONIC_SUCCESS, "NULL keys with count 0");
    bitonic_sort_options bad = {.order = (bitonic_order)7};
    TEST_CHECK(t, bitonic_sort_u32(context, &key, 1, &bad) == BITONIC_ERROR_INVALID_ARGUMENT, "unknown order");
    bitonic_buffer *buffer = (bitonic_buffer *)1;
    TEST_CHECK(t, bitonic_buffer_create(context, 0, &buffer) == BITONIC_ERROR_INVALID_ARGUMENT && !buffer,
               "empty buffer refused");
    TEST_CHECK(t, bitonic_context_get_info(context, NULL) == BITONIC_ERROR_INVALID_ARGUMENT, "info without out");
    bitonic_context_destroy(context);
    bitonic_context_destroy(NULL);
    bitonic_buffer_destroy(NULL);
}

static void test_cpu_backend(test_counter *t)
{
    setenv("BITONIC_DEVICE", "cpu", 1);
    bitonic_context *context;
    if (!TEST_CHECK(t, bitonic_context_create(NULL, &context) == BITONIC_SUCCESS, "BITONIC_DEVICE=cpu"))
        return;
    unsetenv("BITONIC_DEVICE");
    bitonic_context_info info;
    bitonic_context_get_info(context, &info);
    TEST_CHECK(t, info.backend == BITONIC_BACKEND_CPU && info.vulkan_device_index == UINT32_MAX,
               "the environment variable chose the CPU path");
    uint64_t seed = 7;
    for (size_t n = 0; n < 3000; n += 1 + n / 3) {
        uint32_t *keys = malloc((n + 1) * sizeof *keys), *expected = malloc((n + 1) * sizeof *expected);
        for (size_t i = 0; i < n; ++i)
            keys[i] = expected[i] = (uint32_t)test_random_u64(&seed);
        qsort(expected, n, sizeof *expected, ascending);
        TEST_CHECK(t, bitonic_sort_u32(context, keys, n, NULL) == BITONIC_SUCCESS &&
                          memcmp(keys, expected, n * sizeof *keys) == 0, "cpu sort of %zu keys", n);
        bitonic_sort_options down = {.order = BITONIC_ORDER_DESCENDING};
        bool descending_ok = bitonic_sort_u32(context, keys, n, &down) == BITONIC_SUCCESS;
        for (size_t i = 0; i < n && descending_ok; ++i)
            descending_ok = keys[i] == expected[n - 1 - i];
        TEST_CHECK(t, descending_ok, "cpu descending sort of %zu keys", n);
        free(keys);
        free(expected);
    }
    bitonic_buffer *buffer;
    uint32_t keys[5] = {5, 3, 9, 1, 3}, sorted[5] = {1, 3, 3, 5, 9}, out[5];
    bitonic_timing timing = {0};
    TEST_CHECK(t, bitonic_buffer_create(context, 5, &buffer) == BITONIC_SUCCESS &&
                      bitonic_buffer_upload(buffer, keys, 5) == BITONIC_SUCCESS &&
                      bitonic_buffer_sort(buffer, 5, NULL, &timing) == BITONIC_SUCCESS &&
                      bitonic_buffer_download(buffer, out, 5) == BITONIC_SUCCESS && memcmp(out, sorted, sizeof out) == 0,
               "cpu resident buffer");
    TEST_CHECK(t, bitonic_buffer_upload(buffer, keys, 6) == BITONIC_ERROR_INVALID_ARGUMENT, "upload past capacity");
    bitonic_buffer_destroy(buffer);
    bitonic_context_destroy(context);
}

int main(void)
{
    test_counter t = {0};
    test_status_strings(&t);
    test_selectors(&t);
    test_arguments(&t);
    test_cpu_backend(&t);
    return test_finish(&t);
}
