/* test_settings.c: every BITONIC_* environment variable the library reads,
 * set malformed, out of range, empty and well formed. A malformed or
 * out-of-range value must make bitonic_context_create return
 * BITONIC_ERROR_INVALID_ARGUMENT (with no context) and bitonic_check_environment
 * name the variable; an empty one is the default; a well-formed one is taken
 * with the value the parser says. The CPU path alone: the check comes before
 * any backend sees the description. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "bitonic.h"
#include "cache_dir.h"
#include "settings.h"
#include "test_util.h"

typedef struct setting_case {
    bitonic_setting setting;
    const char *refused[8];                /* malformed and out of range; NULL ends */
    struct { const char *text; uint64_t number; } taken[6];  /* text NULL ends */
} setting_case;

static char long_text[1000];

static const setting_case cases[] = {
    {BITONIC_SETTING_DEVICE, {" cpu", "cpu ", "c\tpu", "cpu\n", long_text, NULL},
     {{"cpu", 0}, {"llvmpipe", 0}, {"0", 0}}},
    {BITONIC_SETTING_CROSSOVER,
     {"abc", "-1", "+5", "0x10", "10 ", "18446744073709551616", "12345678901234567890123456", NULL},
     {{"model", BITONIC_CROSSOVER_MODEL}, {"auto", BITONIC_CROSSOVER_MODEL}, {"0", 0}, {"100000", 100000},
      {"18446744073709551615", UINT64_MAX}}},
    {BITONIC_SETTING_CACHE_DIR, {"/tmp/a\nb", "/tmp/\x1b[1m", long_text, NULL}, {{"/tmp/bitonic-cache", 0}}},
    {BITONIC_SETTING_PIPELINE_CACHE, {"2", "-1", "of", "disabled", " 0", "00", NULL},
     {{"0", 0}, {"off", 0}, {"NO", 0}, {"false", 0}, {"1", 1}, {"on", 1}}},
    {BITONIC_SETTING_DEVICE_ADDRESSES, {"2", "y", "0 ", NULL}, {{"0", 0}, {"1", 1}, {"yes", 1}, {"True", 1}}},
    {BITONIC_SETTING_HOST_IMPORT, {"2", "n", "off!", NULL}, {{"0", 0}, {"1", 1}, {"Off", 0}}},
    {BITONIC_SETTING_HOST_CHUNK_SORT, {"3", "nope", "1.0", NULL}, {{"0", 0}, {"1", 1}}},
    {BITONIC_SETTING_HOST_CHUNK_BYTES, {"4MiB", "-4", "1e6", "281474976710657", "99999999999999999999", NULL},
     {{"0", 0}, {"16384", 16384}, {"0004194304", 4194304}, {"281474976710656", (uint64_t)1 << 48}}},
    {BITONIC_SETTING_IMPORT_MIN_BYTES, {"1k", "-0", " 1", "281474976710657", NULL},
     {{"0", 0}, {"1048576", 1048576}}},
    {BITONIC_SETTING_HOST_COPY_THREADS, {"0", "65", "-2", "four", "4 ", "18446744073709551617", NULL},
     {{"1", 1}, {"4", 4}, {"64", 64}}},
};

static void expect_refused(test_counter *t, bitonic_setting setting, const char *text)
{
    const char *name = bitonic_setting_name(setting);
    setenv(name, text, 1);
    char message[256];
    bitonic_status checked = bitonic_check_environment(message, sizeof message);
    TEST_CHECK(t, checked == BITONIC_ERROR_INVALID_ARGUMENT && strncmp(message, name, strlen(name)) == 0 &&
                      strchr(message, ':') != NULL,
               "%s=\"%.40s\": refused by name (%s)", name, text, message);
    bitonic_context *context = NULL;
    bitonic_status created = bitonic_context_create(&(bitonic_context_desc){.device = "cpu", .no_disk_cache = true},
                                                    &context);
    TEST_CHECK(t, created == BITONIC_ERROR_INVALID_ARGUMENT && context == NULL,
               "%s=\"%.40s\": context creation refused: %s", name, text, bitonic_status_string(created));
    bitonic_context_destroy(context);
    /* The default selection too: refused before any driver is loaded. */
    created = bitonic_context_create(NULL, &context);
    TEST_CHECK(t, created == BITONIC_ERROR_INVALID_ARGUMENT && context == NULL,
               "%s=\"%.40s\": default context refused: %s", name, text, bitonic_status_string(created));
    bitonic_context_destroy(context);
    bitonic_setting_value value;
    TEST_CHECK(t, !bitonic_setting_read(setting, &value) && !value.given, "%s=\"%.40s\": read as not given", name,
               text);
    unsetenv(name);
}

static void expect_taken(test_counter *t, bitonic_setting setting, const char *text, uint64_t number)
{
    const char *name = bitonic_setting_name(setting);
    setenv(name, text, 1);
    char message[256] = "untouched";
    TEST_CHECK(t, bitonic_check_environment(message, sizeof message) == BITONIC_SUCCESS && message[0] == '\0',
               "%s=%s accepted (%s)", name, text, message);
    bitonic_setting_value value;
    bool read = bitonic_setting_read(setting, &value);
    bool text_kind = setting == BITONIC_SETTING_DEVICE || setting == BITONIC_SETTING_CACHE_DIR;
    TEST_CHECK(t, read && value.given && (text_kind ? strcmp(value.text, text) == 0 : value.number == number),
               "%s=%s read as %llu", name, text, (unsigned long long)value.number);
    /* A device the variable names may not be here (llvmpipe); the CPU context
     * the description names must be made whatever the variable says. */
    bitonic_context *context = NULL;
    bitonic_status created = bitonic_context_create(&(bitonic_context_desc){.device = "cpu", .no_disk_cache = true},
                                                    &context);
    TEST_CHECK(t, created == BITONIC_SUCCESS, "%s=%s: context made: %s", name, text, bitonic_status_string(created));
    bitonic_context_destroy(context);
    unsetenv(name);
}

static void expect_empty_is_default(test_counter *t, bitonic_setting setting)
{
    const char *name = bitonic_setting_name(setting);
    setenv(name, "", 1);
    bitonic_setting_value value;
    TEST_CHECK(t, bitonic_check_environment(NULL, 0) == BITONIC_SUCCESS &&
                      bitonic_setting_read(setting, &value) && !value.given,
               "%s empty: the default", name);
    bitonic_context *context = NULL;
    bitonic_status created = bitonic_context_create(&(bitonic_context_desc){.device = "cpu", .no_disk_cache = true},
                                                    &context);
    TEST_CHECK(t, created == BITONIC_SUCCESS, "%s empty: context made: %s", name, bitonic_status_string(created));
    bitonic_context_destroy(context);
    unsetenv(name);
}

/* The values reach what they set: the cache directory and its switch. */
static void test_cache_settings(test_counter *t)
{
    char directory[BITONIC_CACHE_PATH_MAX];
    setenv("BITONIC_CACHE_DIR", "/tmp/bitonic-settings-cache", 1);
    TEST_CHECK(t, bitonic_cache_directory(NULL, directory, sizeof directory) &&
                      strcmp(directory, "/tmp/bitonic-settings-cache") == 0,
               "BITONIC_CACHE_DIR names the directory: %s", directory);
    setenv("BITONIC_PIPELINE_CACHE", "off", 1);
    TEST_CHECK(t, !bitonic_cache_directory(NULL, directory, sizeof directory), "BITONIC_PIPELINE_CACHE=off: no cache");
    setenv("BITONIC_PIPELINE_CACHE", "1", 1);
    TEST_CHECK(t, bitonic_cache_directory(NULL, directory, sizeof directory), "BITONIC_PIPELINE_CACHE=1: the cache");
    unsetenv("BITONIC_PIPELINE_CACHE");
    unsetenv("BITONIC_CACHE_DIR");
}

/* The message is cut to its capacity, always terminated, and shows no
 * control character of the value. */
static void test_message(test_counter *t)
{
    setenv("BITONIC_HOST_COPY_THREADS", "0", 1);
    char message[256];
    bitonic_check_environment(message, sizeof message);
    TEST_CHECK(t, strcmp(message, "BITONIC_HOST_COPY_THREADS=\"0\": out of range (1 to 64)") == 0, "message: %s",
               message);
    char small[12];
    memset(small, 'x', sizeof small);
    bitonic_check_environment(small, sizeof small);
    TEST_CHECK(t, small[sizeof small - 1] == '\0' && strncmp(small, "BITONIC_HO", 10) == 0, "message cut: %s", small);
    unsetenv("BITONIC_HOST_COPY_THREADS");
    setenv("BITONIC_DEVICE", "gpu\033[2J", 1);
    bitonic_check_environment(message, sizeof message);
    TEST_CHECK(t, strchr(message, '\033') == NULL && strstr(message, "control character") != NULL, "shown safely: %s",
               message);
    unsetenv("BITONIC_DEVICE");
}

int main(void)
{
    memset(long_text, 'd', sizeof long_text - 1);
    long_text[0] = '/';
    test_counter t = {0};
    for (int s = 0; s < BITONIC_SETTING_COUNT; ++s)
        unsetenv(bitonic_setting_name((bitonic_setting)s));
    TEST_CHECK(&t, sizeof cases / sizeof cases[0] == BITONIC_SETTING_COUNT, "a case for every setting");
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        for (size_t r = 0; r < 8 && cases[c].refused[r]; ++r)
            expect_refused(&t, cases[c].setting, cases[c].refused[r]);
        for (size_t a = 0; a < 6 && cases[c].taken[a].text; ++a)
            expect_taken(&t, cases[c].setting, cases[c].taken[a].text, cases[c].taken[a].number);
        expect_empty_is_default(&t, cases[c].setting);
    }
    test_cache_settings(&t);
    test_message(&t);
    return test_finish(&t);
}
