/* settings.c: the BITONIC_* environment variables (settings.h). Each one is a
 * row of one table (its name, its kind, its range); one parser reads every
 * kind. Strict, because a setting read wrong is a measurement or a test that
 * silently measures or tests something else: a switch is 0/1, off/on,
 * no/yes or false/true; a count is decimal digits alone (no sign, no space,
 * no 0x) within its range; a text has no control characters. An empty value
 * is the same as an unset one: the default. */
#define _POSIX_C_SOURCE 200809L
#include "settings.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cache_dir.h"

typedef enum setting_kind {
    KIND_SELECTOR,   /* BITONIC_DEVICE */
    KIND_CROSSOVER,  /* model, auto or a count over the whole u64 range */
    KIND_DIRECTORY,
    KIND_SWITCH,
    KIND_COUNT,
} setting_kind;

/* Room left in a cache path for the longest file name the library puts there. */
#define CACHE_DIR_MAX_BYTES (BITONIC_CACHE_PATH_MAX - 256)
#define SELECTOR_MAX_BYTES 255
#define BYTES_MAX ((uint64_t)1 << 48)   /* 256 TiB: past any host array, short of overflow */

static const struct {
    const char *name;
    setting_kind kind;
    uint64_t min, max;   /* KIND_COUNT only */
} settings[BITONIC_SETTING_COUNT] = {
    [BITONIC_SETTING_DEVICE] = {"BITONIC_DEVICE", KIND_SELECTOR, 0, 0},
    [BITONIC_SETTING_CROSSOVER] = {"BITONIC_CROSSOVER", KIND_CROSSOVER, 0, 0},
    [BITONIC_SETTING_CACHE_DIR] = {"BITONIC_CACHE_DIR", KIND_DIRECTORY, 0, 0},
    [BITONIC_SETTING_PIPELINE_CACHE] = {"BITONIC_PIPELINE_CACHE", KIND_SWITCH, 0, 0},
    [BITONIC_SETTING_DEVICE_ADDRESSES] = {"BITONIC_DEVICE_ADDRESSES", KIND_SWITCH, 0, 0},
    [BITONIC_SETTING_HOST_IMPORT] = {"BITONIC_HOST_IMPORT", KIND_SWITCH, 0, 0},
    [BITONIC_SETTING_HOST_CHUNK_SORT] = {"BITONIC_HOST_CHUNK_SORT", KIND_SWITCH, 0, 0},
    [BITONIC_SETTING_HOST_CHUNK_BYTES] = {"BITONIC_HOST_CHUNK_BYTES", KIND_COUNT, 0, BYTES_MAX},
    [BITONIC_SETTING_IMPORT_MIN_BYTES] = {"BITONIC_IMPORT_MIN_BYTES", KIND_COUNT, 0, BYTES_MAX},
    [BITONIC_SETTING_HOST_COPY_THREADS] = {"BITONIC_HOST_COPY_THREADS", KIND_COUNT, 1, 64},
};

const char *bitonic_setting_name(bitonic_setting setting)
{
    return (unsigned)setting < BITONIC_SETTING_COUNT ? settings[setting].name : "BITONIC_?";
}

/* Decimal digits alone, no larger than max. */
static bool parse_count(const char *text, uint64_t max, uint64_t *out, const char **reason)
{
    uint64_t value = 0;
    for (const char *c = text; *c; ++c) {
        if (*c < '0' || *c > '9') {
            *reason = "expected decimal digits alone (no sign, space or prefix)";
            return false;
        }
        unsigned digit = (unsigned)(*c - '0');
        if (value > (max - digit) / 10u) {
            *reason = "out of range";
            return false;
        }
        value = value * 10u + digit;
    }
    *out = value;
    return true;
}

static bool parse_switch(const char *text, uint64_t *out, const char **reason)
{
    static const char *const off[] = {"0", "off", "no", "false"}, *const on[] = {"1", "on", "yes", "true"};
    for (size_t i = 0; i < sizeof off / sizeof off[0]; ++i) {
        if (strcasecmp(text, off[i]) == 0) {
            *out = 0;
            return true;
        }
        if (strcasecmp(text, on[i]) == 0) {
            *out = 1;
            return true;
        }
    }
    *reason = "expected 0 or 1 (off/on, no/yes, false/true)";
    return false;
}

static bool has_control_character(const char *text)
{
    for (const unsigned char *c = (const unsigned char *)text; *c; ++c)
        if (*c < 0x20 || *c == 0x7f)
            return true;
    return false;
}

static bool parse_text(setting_kind kind, const char *text, const char **reason)
{
    size_t length = strlen(text);
    size_t limit = kind == KIND_SELECTOR ? SELECTOR_MAX_BYTES : CACHE_DIR_MAX_BYTES;
    if (length > limit) {
        *reason = kind == KIND_SELECTOR ? "longer than 255 bytes" : "longer than 768 bytes";
        return false;
    }
    if (has_control_character(text)) {
        *reason = "holds a control character";
        return false;
    }
    /* "cpu " would select a device named "cpu ", which no device is. */
    if (kind == KIND_SELECTOR && (text[0] == ' ' || text[length - 1] == ' ')) {
        *reason = "starts or ends with a space";
        return false;
    }
    return true;
}

bool bitonic_setting_parse(bitonic_setting setting, const char *text, bitonic_setting_value *out,
                           const char **reason)
{
    const char *unused;
    if (!reason)
        reason = &unused;
    *reason = NULL;
    *out = (bitonic_setting_value){.given = false, .number = 0, .text = NULL};
    if ((unsigned)setting >= BITONIC_SETTING_COUNT) {
        *reason = "not a setting";
        return false;
    }
    if (!text || !*text)
        return true;
    uint64_t number = 0;
    bool parsed = false;
    switch (settings[setting].kind) {
    case KIND_SELECTOR:
    case KIND_DIRECTORY:
        parsed = parse_text(settings[setting].kind, text, reason);
        break;
    case KIND_CROSSOVER:
        if (strcmp(text, "model") == 0 || strcmp(text, "auto") == 0) {
            number = BITONIC_CROSSOVER_MODEL;
            parsed = true;
        } else {
            parsed = parse_count(text, UINT64_MAX, &number, reason);
            if (!parsed)
                *reason = "expected model, auto or a count of keys (0 to 2^64 - 1)";
        }
        break;
    case KIND_SWITCH:
        parsed = parse_switch(text, &number, reason);
        break;
    case KIND_COUNT:
        parsed = parse_count(text, settings[setting].max, &number, reason);
        if (parsed && number < settings[setting].min) {
            *reason = "out of range";
            parsed = false;
        }
        break;
    }
    if (!parsed)
        return false;
    *out = (bitonic_setting_value){.given = true, .number = number, .text = text};
    return true;
}

bool bitonic_setting_read(bitonic_setting setting, bitonic_setting_value *out)
{
    const char *name = bitonic_setting_name(setting);
    return bitonic_setting_parse(setting, getenv(name), out, NULL);
}

/* The range a count may take, in words, for the message. */
static void describe_range(bitonic_setting setting, char *out, size_t capacity)
{
    if (settings[setting].kind == KIND_COUNT)
        snprintf(out, capacity, " (%llu to %llu)", (unsigned long long)settings[setting].min,
                 (unsigned long long)settings[setting].max);
    else
        out[0] = '\0';
}

bitonic_status bitonic_check_environment(char *message, size_t message_capacity)
{
    if (message && message_capacity > 0)
        message[0] = '\0';
    for (int s = 0; s < BITONIC_SETTING_COUNT; ++s) {
        const char *text = getenv(settings[s].name), *reason = NULL;
        bitonic_setting_value value;
        if (bitonic_setting_parse((bitonic_setting)s, text, &value, &reason))
            continue;
        if (message && message_capacity > 0) {
            char range[64];
            describe_range((bitonic_setting)s, range, sizeof range);
            /* The value is quoted and cut: it may be long or hold control characters. */
            char shown[48];
            size_t n = 0;
            for (const unsigned char *c = (const unsigned char *)text; *c && n + 1 < sizeof shown; ++c)
                shown[n++] = *c < 0x20 || *c == 0x7f ? '?' : (char)*c;
            shown[n] = '\0';
            snprintf(message, message_capacity, "%s=\"%s%s\": %s%s", settings[s].name, shown,
                     strlen(text) > n ? "..." : "", reason, range);
        }
        return BITONIC_ERROR_INVALID_ARGUMENT;
    }
    return BITONIC_SUCCESS;
}
