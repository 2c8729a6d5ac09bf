/* settings.h: the BITONIC_* environment variables the library reads, each
 * described once in a table and parsed by one strict parser (settings.c).
 * Context creation checks them all first, so a malformed value is
 * BITONIC_ERROR_INVALID_ARGUMENT there and never a silent default later;
 * the places that use a setting read it through bitonic_setting_read. */
#ifndef BITONIC_SETTINGS_H
#define BITONIC_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bitonic.h"

typedef enum bitonic_setting {
    BITONIC_SETTING_DEVICE,            /* a selector: auto, cpu, vulkan, gles, an index or a name */
    BITONIC_SETTING_CROSSOVER,         /* model, auto or a count of keys (0 to 2^64 - 1) */
    BITONIC_SETTING_CACHE_DIR,         /* a directory */
    BITONIC_SETTING_PIPELINE_CACHE,    /* a switch: 0 keeps the library off the disk */
    BITONIC_SETTING_DEVICE_ADDRESSES,  /* a switch */
    BITONIC_SETTING_HOST_IMPORT,       /* a switch */
    BITONIC_SETTING_HOST_CHUNK_SORT,   /* a switch */
    BITONIC_SETTING_HOST_CHUNK_BYTES,  /* bytes, 0 turns the chunks off */
    BITONIC_SETTING_IMPORT_MIN_BYTES,  /* bytes */
    BITONIC_SETTING_HOST_COPY_THREADS, /* threads, 1 to 64 */
    BITONIC_SETTING_COUNT
} bitonic_setting;

/* What one setting holds. given is false when the variable is unset or empty
 * (both mean the default). number is the switch (0 or 1), the count, or
 * BITONIC_CROSSOVER_MODEL for "model"/"auto"; text is the value as set
 * (the environment's string: it must not be kept past the call that read it). */
typedef struct bitonic_setting_value {
    bool given;
    uint64_t number;
    const char *text;
} bitonic_setting_value;

/* The variable's name, such as "BITONIC_HOST_IMPORT". */
const char *bitonic_setting_name(bitonic_setting setting);

/* Reads and parses one setting. A malformed value returns false with
 * out->given false, so a caller that ignores the result gets the default
 * (creation has refused it already unless the environment changed since). */
bool bitonic_setting_read(bitonic_setting setting, bitonic_setting_value *out);

/* Parses text as the setting would be: for the tests and the fuzzer, which
 * need no environment. reason (if not NULL) is set to why a value is refused. */
bool bitonic_setting_parse(bitonic_setting setting, const char *text, bitonic_setting_value *out,
                           const char **reason);

#endif
