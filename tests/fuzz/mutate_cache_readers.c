/* mutate_cache_readers.c: a deterministic mutation fuzzer for the readers of
 * the cache directory's files: the census (vk_census.c), the crossover file
 * (device_choice.c) and the pipeline cache (vk_pipeline_cache.c). Each reader
 * gets valid seeds mutated (bits flipped, bytes set to edge values, ranges cut,
 * repeated or spliced from another seed, numbers made huge or negative, the
 * file truncated or padded past the reader's limit), as a file in a scratch
 * directory read the way the library reads it. Beyond "no crash" (ASan and
 * UBSan in the sanitizer build) it checks what the library relies on: a
 * census it takes names a device in one terminated line, a crossover it takes
 * has sorted points within their bounds, and a pipeline cache it takes is the
 * file's tail with a driver header of this device. The same seed gives the
 * same runs, so a failure names the iteration that repeats it.
 *
 *     mutate_cache_readers [ITERATIONS [SEED]]   (default 20000 a reader, seed 1) */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cache_dir.h"
#include "device_choice.h"
#include "vk_census.h"
#include "vk_pipeline_cache.h"

#define MAX_FILE 4096

typedef struct mutation_state {
    uint64_t random;
    unsigned long failures;
} mutation_state;

static uint64_t next_random(mutation_state *m)
{
    m->random ^= m->random << 13;
    m->random ^= m->random >> 7;
    m->random ^= m->random << 17;
    return m->random;
}

static size_t below(mutation_state *m, size_t bound)
{
    return bound == 0 ? 0 : (size_t)(next_random(m) % bound);
}

static void fail(mutation_state *m, const char *reader, unsigned long iteration, const char *what)
{
    fprintf(stderr, "FAIL: %s, iteration %lu: %s\n", reader, iteration, what);
    ++m->failures;
}

/* One mutation of bytes[0..*size) in place (capacity MAX_FILE), other_seed
 * giving material to splice. */
static void mutate_once(mutation_state *m, unsigned char *bytes, size_t *size, const unsigned char *other,
                        size_t other_size)
{
    static const unsigned char edges[] = {0, 1, '\n', ' ', '-', '+', '9', 'e', '.', 0x7f, 0x80, 0xff};
    static const char *const numbers[] = {"18446744073709551616", "-1", "nan", "inf", "1e309", "0", "never",
                                          "99999999999999999999999999", "0x10", "  7"};
    size_t n = *size;
    switch (below(m, 8)) {
    case 0: /* flip a bit */
        if (n)
            bytes[below(m, n)] ^= (unsigned char)(1u << below(m, 8));
        break;
    case 1: /* set a byte to an edge value */
        if (n)
            bytes[below(m, n)] = edges[below(m, sizeof edges)];
        break;
    case 2: /* cut a range */
        if (n) {
            size_t at = below(m, n), length = 1 + below(m, n - at);
            memmove(bytes + at, bytes + at + length, n - at - length);
            n -= length;
        }
        break;
    case 3: /* repeat a range */
        if (n) {
            size_t at = below(m, n), length = 1 + below(m, n - at < 64 ? n - at : 64);
            if (n + length <= MAX_FILE) {
                memmove(bytes + at + length, bytes + at, n - at);
                n += length;
            }
        }
        break;
    case 4: /* splice the other seed's tail in at a point */
        if (other_size) {
            size_t at = below(m, n + 1), from = below(m, other_size), length = other_size - from;
            if (at + length > MAX_FILE)
                length = MAX_FILE - at;
            memcpy(bytes + at, other + from, length);
            n = at + length;
        }
        break;
    case 5: { /* put a strange number over some bytes */
        const char *number = numbers[below(m, sizeof numbers / sizeof numbers[0])];
        size_t length = strlen(number), at = below(m, n + 1);
        if (at + length <= MAX_FILE) {
            memcpy(bytes + at, number, length);
            if (at + length > n)
                n = at + length;
        }
        break;
    }
    case 6: /* truncate */
        n = below(m, n + 1);
        break;
    default: /* pad: sometimes past what the reader reads at all */
        while (n < MAX_FILE && below(m, 64) != 0)
            bytes[n++] = (unsigned char)next_random(m);
        break;
    }
    *size = n;
}

static size_t mutated(mutation_state *m, const unsigned char *seed, size_t seed_size, const unsigned char *other,
                      size_t other_size, unsigned char *out)
{
    size_t size = seed_size;
    memcpy(out, seed, seed_size);
    for (size_t r = 1 + below(m, 4); r > 0; --r)
        mutate_once(m, out, &size, other, other_size);
    return size;
}

static void write_bytes(const char *path, const unsigned char *bytes, size_t size)
{
    FILE *file = fopen(path, "wb");
    if (!file || (size && fwrite(bytes, 1, size, file) != size) || fclose(file) != 0) {
        perror(path);
        exit(1);
    }
}

static unsigned long fuzz_census(mutation_state *m, const char *directory, unsigned long iterations)
{
    unsigned long taken_count = 0;
    char path[BITONIC_CACHE_PATH_MAX];
    snprintf(path, sizeof path, "%s/census-0123456789abcdef.txt", directory);
    /* Seeds through the writer, so they follow the format as it is. */
    unsigned char seeds[2][MAX_FILE];
    size_t seed_sizes[2];
    bitonic_vk_census found = {.found = true, .vendor_id = 0x10de, .device_id = 0x2335, .driver_version = 0x8c4c0,
                               .device_name = "NVIDIA H200"};
    bitonic_vk_census none = {.found = false};
    const bitonic_vk_census *censuses[2] = {&found, &none};
    for (int s = 0; s < 2; ++s) {
        unlink(path);
        bitonic_vk_census_write(path, censuses[s]);
        FILE *file = fopen(path, "rb");
        seed_sizes[s] = file ? fread(seeds[s], 1, MAX_FILE, file) : 0;
        if (file)
            fclose(file);
        bitonic_vk_census back;
        if (!bitonic_vk_census_read(path, &back) || back.found != censuses[s]->found)
            fail(m, "census", 0, "a seed the writer made is not read back");
    }
    unsigned char bytes[MAX_FILE];
    for (unsigned long i = 1; i <= iterations; ++i) {
        int s = (int)below(m, 2);
        size_t size = mutated(m, seeds[s], seed_sizes[s], seeds[1 - s], seed_sizes[1 - s], bytes);
        write_bytes(path, bytes, size);
        bitonic_vk_census census;
        if (!bitonic_vk_census_read(path, &census)) {
            if (census.found)
                fail(m, "census", i, "a refused file reports a device");
            continue;
        }
        ++taken_count;
        size_t length = strnlen(census.device_name, sizeof census.device_name);
        if (census.found && (length == 0 || length == sizeof census.device_name ||
                             strchr(census.device_name, '\n') != NULL))
            fail(m, "census", i, "a taken file names no device in one terminated line");
        if (!census.found && length != 0)
            fail(m, "census", i, "\"none\" comes with a device name");
    }
    return taken_count;
}

static bool points_sound(const bitonic_choice_point *points, uint32_t count)
{
    if (count > BITONIC_CHOICE_MAX_POINTS)
        return false;
    for (uint32_t p = 0; p < count; ++p)
        if (!(points[p].keys >= 1) || !(points[p].cpu_ms > 0) || !(points[p].device_ms > 0) ||
            (p > 0 && !(points[p].keys > points[p - 1].keys)))
            return false;
    return true;
}

static unsigned long fuzz_crossover(mutation_state *m, const char *directory, unsigned long iterations)
{
    unsigned long taken_count = 0;
    char path[BITONIC_CACHE_PATH_MAX];
    snprintf(path, sizeof path, "%s/crossover-test-2t-0.0.0.txt", directory);
    static const char *const seed_texts[2] = {
        "bitonic crossover 3\nkeys 262144\nwide_keys 65536\nu64_keys never\ncreate_ms 41.250\nrelease_ms 12.000\n"
        "point 4096 0.0500 0.9000\npoint 16384 0.2100 1.0000\npoint 65536 0.9000 1.2000\npoint 262144 3.8000 1.9000\n"
        "wide_point 4096 0.2000 1.1000\nwide_point 65536 3.0000 1.5000\nu64_point 4096 0.1000 1.0000\n",
        "bitonic crossover 3\nkeys never\nwide_keys never\nu64_keys never\ncreate_ms 0.000\n"};
    unsigned char seeds[2][MAX_FILE];
    size_t seed_sizes[2];
    for (int s = 0; s < 2; ++s) {
        seed_sizes[s] = strlen(seed_texts[s]);
        memcpy(seeds[s], seed_texts[s], seed_sizes[s]);
        write_bytes(path, seeds[s], seed_sizes[s]);
        bitonic_device_choice model;
        if (bitonic_device_choice_read_file(path, &model) == 0)
            fail(m, "crossover", 0, "a seed is not read");
    }
    unsigned char bytes[MAX_FILE];
    for (unsigned long i = 1; i <= iterations; ++i) {
        int s = (int)below(m, 2);
        size_t size = mutated(m, seeds[s], seed_sizes[s], seeds[1 - s], seed_sizes[1 - s], bytes);
        write_bytes(path, bytes, size);
        bitonic_device_choice model;
        memset(&model, 0, sizeof model);
        uint64_t keys = bitonic_device_choice_read_file(path, &model);
        if (bitonic_device_choice_read_file(path, NULL) != keys)
            fail(m, "crossover", i, "the crossover depends on whether the model is asked for");
        if (keys == 0)
            continue;
        ++taken_count;
        if (model.wide_crossover_keys == 0 || model.key64_crossover_keys == 0)
            fail(m, "crossover", i, "a taken file leaves a kind without a crossover");
        if (!points_sound(model.points, model.point_count) ||
            !points_sound(model.wide_points, model.wide_point_count) ||
            !points_sound(model.key64_points, model.key64_point_count))
            fail(m, "crossover", i, "a taken file has points out of order or out of bounds");
        if (!(model.device_create_ms >= 0) || !(model.device_release_ms >= 0))
            fail(m, "crossover", i, "a taken file has a negative or NaN cost");
    }
    return taken_count;
}

static unsigned long fuzz_pipeline_cache(mutation_state *m, const char *directory, unsigned long iterations)
{
    unsigned long taken_count = 0;
    char path[BITONIC_CACHE_PATH_MAX];
    snprintf(path, sizeof path, "%s/pipelines-test.bin", directory);
    VkPhysicalDeviceProperties properties;
    memset(&properties, 0, sizeof properties);
    properties.vendorID = 0x10005;
    properties.deviceID = 0;
    properties.driverVersion = 0x1800001;
    for (unsigned i = 0; i < VK_UUID_SIZE; ++i)
        properties.pipelineCacheUUID[i] = (uint8_t)(i * 37 + 11);
    /* Driver data: its VkPipelineCacheHeaderVersionOne, then opaque bytes. */
    unsigned char seeds[2][MAX_FILE];
    size_t seed_sizes[2];
    for (int s = 0; s < 2; ++s) {
        unsigned char data[600];
        size_t data_size = s == 0 ? sizeof data : sizeof(VkPipelineCacheHeaderVersionOne);
        VkPipelineCacheHeaderVersionOne driver = {.headerSize = sizeof driver,
                                                  .headerVersion = VK_PIPELINE_CACHE_HEADER_VERSION_ONE,
                                                  .vendorID = properties.vendorID, .deviceID = properties.deviceID};
        memcpy(driver.pipelineCacheUUID, properties.pipelineCacheUUID, VK_UUID_SIZE);
        memcpy(data, &driver, sizeof driver);
        for (size_t b = sizeof driver; b < data_size; ++b)
            data[b] = (unsigned char)(b * 131u);
        bitonic_vk_pipeline_cache_header(&properties, data, data_size, seeds[s]);
        memcpy(seeds[s] + BITONIC_VK_PIPELINE_CACHE_HEADER_BYTES, data, data_size);
        seed_sizes[s] = BITONIC_VK_PIPELINE_CACHE_HEADER_BYTES + data_size;
        size_t taken;
        if (!bitonic_vk_pipeline_cache_check(seeds[s], seed_sizes[s], &properties, &taken) || taken != data_size)
            fail(m, "pipeline cache", 0, "a seed is not taken");
    }
    unsigned char bytes[MAX_FILE];
    for (unsigned long i = 1; i <= iterations; ++i) {
        int s = (int)below(m, 2);
        size_t size = mutated(m, seeds[s], seed_sizes[s], seeds[1 - s], seed_sizes[1 - s], bytes);
        /* A mutated header with a fixed checksum, now and then, so the checks
         * after the checksum (the driver's header) see mutated bytes too. */
        if (size >= BITONIC_VK_PIPELINE_CACHE_HEADER_BYTES && below(m, 4) == 0)
            bitonic_vk_pipeline_cache_header(&properties, bytes + BITONIC_VK_PIPELINE_CACHE_HEADER_BYTES,
                                             size - BITONIC_VK_PIPELINE_CACHE_HEADER_BYTES, bytes);
        write_bytes(path, bytes, size);
        unsigned char *read = NULL;
        size_t read_size = 0;
        bool was_read = bitonic_cache_read_file(path, (size_t)256 << 20, &read, &read_size);
        if (!was_read || read_size != size) {
            if (was_read || size != 0)  /* an empty file reads as absent */
                fail(m, "pipeline cache", i, "the file is not read back whole");
            free(read);
            continue;
        }
        size_t data_size = 1;
        const unsigned char *data = bitonic_vk_pipeline_cache_check(read, read_size, &properties, &data_size);
        if (data == NULL) {
            if (data_size != 0)
                fail(m, "pipeline cache", i, "a refused file reports data");
        } else {
            ++taken_count;
            VkPipelineCacheHeaderVersionOne driver;
            memcpy(&driver, data, sizeof driver < data_size ? sizeof driver : data_size);
            if (data != read + BITONIC_VK_PIPELINE_CACHE_HEADER_BYTES ||
                data_size != read_size - BITONIC_VK_PIPELINE_CACHE_HEADER_BYTES || data_size < sizeof driver ||
                driver.headerSize < sizeof driver || driver.headerSize > data_size ||
                driver.vendorID != properties.vendorID)
                fail(m, "pipeline cache", i, "a taken file is not its tail with this device's driver header");
        }
        free(read);
    }
    return taken_count;
}

int main(int argc, char **argv)
{
    unsigned long iterations = argc > 1 ? strtoul(argv[1], NULL, 10) : 20000;
    mutation_state m = {.random = argc > 2 ? strtoull(argv[2], NULL, 10) : 1, .failures = 0};
    if (m.random == 0)
        m.random = 1;
    /* Memory first: thousands of small files on a busy disk take seconds each hundred. */
    char directory[] = "/dev/shm/bitonic-mutate-XXXXXX", fallback[] = "/tmp/bitonic-mutate-XXXXXX";
    char *made = mkdtemp(directory);
    if (!made)
        made = mkdtemp(fallback);
    if (!made) {
        perror("mkdtemp");
        return 1;
    }
    unsigned long census = fuzz_census(&m, made, iterations);
    unsigned long crossover = fuzz_crossover(&m, made, iterations);
    unsigned long pipeline = fuzz_pipeline_cache(&m, made, iterations);
    static const char *const names[] = {"census-0123456789abcdef.txt", "crossover-test-2t-0.0.0.txt",
                                        "pipelines-test.bin"};
    for (size_t n = 0; n < sizeof names / sizeof names[0]; ++n) {
        char path[BITONIC_CACHE_PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", made, names[n]);
        unlink(path);
    }
    if (rmdir(made) != 0)
        fprintf(stderr, "could not remove %s\n", made);
    /* How many mutants each reader took: the checks on taken files ran that often. */
    printf("%lu iterations a reader; taken: census %lu, crossover %lu, pipeline cache %lu; %lu failures\n",
           iterations, census, crossover, pipeline, m.failures);
    return m.failures == 0 ? 0 : 1;
}
