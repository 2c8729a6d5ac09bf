/* vk_census.c: what the default selection found last time (vk_census.h).
 *
 * Making a Vulkan instance loads every installed driver: 30-50 ms with
 * lavapipe on a 2-core machine, about 100 ms on the H100 machine, more than a
 * CPU sort of 2^20 keys takes there. A process that sorts on the CPU path
 * (no GPU, or an array below the crossover) should not pay it, so the
 * default selection's outcome is kept in the cache directory under a key of
 * everything that could change it without the library knowing: the driver
 * manifests the loader would read (name, size, modification time), the
 * loader's environment variables, the GPU device nodes, and the library
 * version. A stale census costs little: one naming a device that is gone
 * fails when the device is made and the host sorts fall back to the CPU path;
 * a changed machine has another key. */
#define _POSIX_C_SOURCE 200809L
#include "vk_census.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define CENSUS_MAGIC "bitonic census 1"
#define MAX_NAMES 256

typedef struct hasher {
    uint64_t state;
} hasher;

static void hash_bytes(hasher *h, const void *bytes, size_t size)
{
    const unsigned char *p = bytes;
    for (size_t i = 0; i < size; ++i) {
        h->state ^= p[i];
        h->state *= 1099511628211ull;
    }
}

static void hash_text(hasher *h, const char *text)
{
    hash_bytes(h, text ? text : "(unset)", strlen(text ? text : "(unset)") + 1u);
}

static void hash_file(hasher *h, const char *path)
{
    struct stat st;
    hash_text(h, path);
    if (stat(path, &st) == 0) {
        long long fields[3] = {(long long)st.st_size, (long long)st.st_mtime, (long long)st.st_ino};
        hash_bytes(h, fields, sizeof fields);
    } else {
        hash_text(h, "(missing)");
    }
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every entry of a directory whose name starts with prefix ("" for all), in
 * name order (readdir's order is the filesystem's). */
static void hash_directory(hasher *h, const char *directory, const char *prefix)
{
    hash_text(h, directory);
    DIR *dir = opendir(directory);
    if (!dir) {
        hash_text(h, "(no directory)");
        return;
    }
    char *names[MAX_NAMES];
    size_t count = 0;
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL && count < MAX_NAMES) {
        if (entry->d_name[0] == '.' || strncmp(entry->d_name, prefix, strlen(prefix)) != 0)
            continue;
        names[count] = strdup(entry->d_name);
        if (names[count])
            ++count;
    }
    closedir(dir);
    qsort(names, count, sizeof names[0], compare_names);
    for (size_t i = 0; i < count; ++i) {
        char path[BITONIC_CACHE_PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", directory, names[i]);
        hash_file(h, path);
        free(names[i]);
    }
}

/* Each entry of a colon-separated list, suffix appended: a directory's
 * entries, or the file itself (a loader variable may name either). */
static void hash_list(hasher *h, const char *list, const char *suffix)
{
    if (!list)
        return;
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", list);
    char *save = NULL;
    for (char *part = strtok_r(copy, ":", &save); part; part = strtok_r(NULL, ":", &save)) {
        char path[BITONIC_CACHE_PATH_MAX];
        snprintf(path, sizeof path, "%s%s", part, suffix);
        struct stat st;
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
            hash_directory(h, path, "");
        else
            hash_file(h, path);
    }
}

bool bitonic_vk_census_path(const char *cache_directory, char *out, size_t capacity)
{
    out[0] = '\0';
    if (!cache_directory || !*cache_directory)
        return false;
    hasher h = {14695981039346656037ull};
    hash_text(&h, CENSUS_MAGIC);
    char version[32];
    snprintf(version, sizeof version, "%u.%u.%u", BITONIC_VERSION_MAJOR, BITONIC_VERSION_MINOR,
             BITONIC_VERSION_PATCH);
    hash_text(&h, version);
    /* What the loader reads to find drivers (its documented search order) and
     * the variables that change which it loads or how devices are ordered. */
    static const char *const variables[] = {
        "VK_DRIVER_FILES", "VK_ICD_FILENAMES", "VK_ADD_DRIVER_FILES", "VK_LOADER_DRIVERS_SELECT",
        "VK_LOADER_DRIVERS_DISABLE", "VK_LOADER_DEVICE_SELECT", "VK_INSTANCE_LAYERS", "VK_LOADER_LAYERS_ENABLE",
        "XDG_CONFIG_DIRS", "XDG_DATA_DIRS", "HOME", "MESA_VK_DEVICE_SELECT", "CUDA_VISIBLE_DEVICES",
        "NVIDIA_VISIBLE_DEVICES", "LD_LIBRARY_PATH"};
    for (size_t i = 0; i < sizeof variables / sizeof variables[0]; ++i) {
        hash_text(&h, variables[i]);
        hash_text(&h, getenv(variables[i]));
    }
    hash_list(&h, getenv("VK_DRIVER_FILES"), "");
    hash_list(&h, getenv("VK_ICD_FILENAMES"), "");
    hash_list(&h, getenv("VK_ADD_DRIVER_FILES"), "");
    static const char *const directories[] = {"/etc/vulkan/icd.d", "/usr/local/etc/vulkan/icd.d",
                                              "/usr/share/vulkan/icd.d", "/usr/local/share/vulkan/icd.d"};
    for (size_t i = 0; i < sizeof directories / sizeof directories[0]; ++i)
        hash_directory(&h, directories[i], "");
    hash_list(&h, getenv("XDG_CONFIG_DIRS"), "/vulkan/icd.d");
    hash_list(&h, getenv("XDG_DATA_DIRS"), "/vulkan/icd.d");
    const char *home = getenv("HOME");
    if (home) {
        char directory[BITONIC_CACHE_PATH_MAX];
        snprintf(directory, sizeof directory, "%s/.local/share/vulkan/icd.d", home);
        hash_directory(&h, directory, "");
    }
    /* The GPUs themselves: a container started with or without them sees the
     * same manifests but other device nodes. */
    hash_directory(&h, "/dev/dri", "renderD");
    hash_directory(&h, "/dev", "nvidia");
    int written = snprintf(out, capacity, "%s/census-%016llx.txt", cache_directory, (unsigned long long)h.state);
    if (written < 0 || (size_t)written >= capacity) {
        out[0] = '\0';
        return false;
    }
    return true;
}

bool bitonic_vk_census_read(const char *path, bitonic_vk_census *out)
{
    memset(out, 0, sizeof *out);
    unsigned char *bytes;
    size_t size;
    if (!path[0] || !bitonic_cache_read_file(path, 1024, &bytes, &size))
        return false;
    char text[1025];
    memcpy(text, bytes, size);
    text[size] = '\0';
    free(bytes);
    const char *line = strchr(text, '\n');
    if (!line || (size_t)(line - text) != strlen(CENSUS_MAGIC) || strncmp(text, CENSUS_MAGIC, strlen(CENSUS_MAGIC)))
        return false;
    if (strcmp(line + 1, "none\n") == 0)
        return true;  /* found is false: no device the default selection takes */
    unsigned vendor, device, driver;
    int consumed = 0;
    if (sscanf(line + 1, "device %x %x %x %n", &vendor, &device, &driver, &consumed) != 3 || consumed == 0)
        return false;
    const char *name = line + 1 + consumed;
    size_t length = strcspn(name, "\n");
    if (length == 0 || name[length] != '\n' || length >= sizeof out->device_name)
        return false;
    memcpy(out->device_name, name, length);
    out->device_name[length] = '\0';
    out->vendor_id = vendor;
    out->device_id = device;
    out->driver_version = driver;
    out->found = true;
    return true;
}

void bitonic_vk_census_write(const char *path, const bitonic_vk_census *census)
{
    if (!path[0])
        return;
    char text[512];
    int length = census->found ? snprintf(text, sizeof text, CENSUS_MAGIC "\ndevice %x %x %x %s\n",
                                          census->vendor_id, census->device_id, census->driver_version,
                                          census->device_name)
                               : snprintf(text, sizeof text, CENSUS_MAGIC "\nnone\n");
    if (length > 0 && (size_t)length < sizeof text && strchr(census->device_name, '\n') == NULL)
        bitonic_cache_write_file(path, text, (size_t)length, "", 0);
}
