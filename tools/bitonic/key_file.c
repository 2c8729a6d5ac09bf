/* key_file.c: the key files of `bitonic sort IN OUT` (see key_file.h): raw
 * uint32 files and NumPy .npy files in, the same format out, written through a
 * temporary file so that a failed write never damages OUT. The dtype table and
 * the .npy header are npy_header.c's.
 *
 * Large files are read, and written back, by several threads at once, each
 * moving its own range with pread/pwrite; every call still returns only when
 * all of them have finished, and a thread that cannot be started only makes
 * the call slower.
 */
/* O_DIRECT and madvise(MADV_HUGEPAGE) are Linux's, under _GNU_SOURCE. */
#define _GNU_SOURCE

#include "key_file.h"
#include "output_file.h"
#include "key_file_private.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "key_file.c copies little-endian keys as they are: it needs a little-endian host"
#endif

const char *key_file_format_name(enum key_file_format format)
{
    switch (format) {
    case KEY_FILE_FORMAT_AUTO: return "auto";
    case KEY_FILE_FORMAT_RAW: return "raw";
    case KEY_FILE_FORMAT_NPY: return "npy";
    }
    return "unknown";
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
int key_file_fail(char *error, size_t error_size, const char *format, ...)
{
    if (error != NULL && error_size > 0) {
        va_list args;
        va_start(args, format);
        vsnprintf(error, error_size, format, args);
        va_end(args);
    }
    return -1;
}

/* ---- reading ---- */

/* Where the keys are inside a file's bytes. */
struct key_layout {
    enum key_file_format format;
    enum key_dtype dtype;
    size_t count;
    size_t data_offset;
    size_t data_size;
};

static bool has_npy_magic(const unsigned char *bytes, size_t size)
{
    return size >= sizeof key_npy_magic && memcmp(bytes, key_npy_magic, sizeof key_npy_magic) == 0;
}

static void describe_dtypes(unsigned dtypes, char *out, size_t out_size)
{
    size_t used = 0;
    out[0] = '\0';
    for (int dtype = 0; dtype < KEY_DTYPE_COUNT; ++dtype) {
        if ((dtypes & KEY_DTYPE_BIT(dtype)) == 0)
            continue;
        int written = snprintf(out + used, out_size - used, "%s%s", used ? " " : "", key_dtype_infos[dtype].descr);
        if (written < 0 || (size_t)written >= out_size - used)
            return;
        used += (size_t)written;
    }
}

static int check_accepted(enum key_dtype dtype, bool raw, unsigned accepted, char *error, size_t error_size)
{
    if (accepted & KEY_DTYPE_BIT(dtype))
        return 0;
    char accepted_list[64];
    describe_dtypes(accepted, accepted_list, sizeof accepted_list);
    return key_file_fail(error, error_size, "%s dtype '%s' (%s), which is not accepted here (accepted: %s)",
                raw ? "raw keys have" : "the array has", key_dtype_infos[dtype].descr, key_dtype_infos[dtype].name,
                accepted_list[0] ? accepted_list : "none");
}

static int describe_raw(size_t size, unsigned accepted, struct key_layout *layout, char *error, size_t error_size)
{
    if (size % 4 != 0)
        return key_file_fail(error, error_size, "size %zu bytes is not a multiple of 4 (raw uint32 keys)", size);
    if (check_accepted(KEY_DTYPE_U32, true, accepted, error, error_size) != 0)
        return -1;
    *layout = (struct key_layout){KEY_FILE_FORMAT_RAW, KEY_DTYPE_U32, size / 4, 0, size};
    return 0;
}

static int describe_npy(const unsigned char *bytes, size_t size, unsigned accepted, struct key_layout *layout,
                        char *error, size_t error_size)
{
    struct key_npy_header header;
    if (key_file_parse_npy_header(bytes, size, &header, error, error_size) != 0)
        return -1;
    if (check_accepted(header.dtype, false, accepted, error, error_size) != 0)
        return -1;
    size_t available = size - header.data_offset;
    if (available < header.data_size)
        return key_file_fail(error, error_size,
                    "truncated .npy file: the header promises %zu elements of %s (%zu bytes), "
                    "but only %zu bytes of data follow it",
                    header.count, key_dtype_infos[header.dtype].descr, header.data_size, available);
    if (available > header.data_size)
        return key_file_fail(error, error_size,
                    "%zu unexpected bytes follow the %zu elements the .npy header describes",
                    available - header.data_size, header.count);
    *layout = (struct key_layout){KEY_FILE_FORMAT_NPY, header.dtype, header.count, header.data_offset,
                                  header.data_size};
    return 0;
}

static int describe_bytes(const unsigned char *bytes, size_t size, const struct key_file_read_options *options,
                          struct key_layout *layout, char *error, size_t error_size)
{
    enum key_file_format format = options ? options->format : KEY_FILE_FORMAT_AUTO;
    unsigned accepted = options && options->accepted_dtypes ? options->accepted_dtypes : KEY_DTYPE_ALL_BITS;
    if (format == KEY_FILE_FORMAT_AUTO)
        format = has_npy_magic(bytes, size) ? KEY_FILE_FORMAT_NPY : KEY_FILE_FORMAT_RAW;
    switch (format) {
    case KEY_FILE_FORMAT_RAW: return describe_raw(size, accepted, layout, error, error_size);
    case KEY_FILE_FORMAT_NPY: return describe_npy(bytes, size, accepted, layout, error, error_size);
    case KEY_FILE_FORMAT_AUTO: break;
    }
    return key_file_fail(error, error_size, "unknown format option %d", (int)format);
}

static void fill_key_file(const struct key_layout *layout, void *data, struct key_file *out)
{
    *out = (struct key_file){
        .format = layout->format,
        .dtype = layout->dtype,
        .count = layout->count,
        .element_size = key_dtype_infos[layout->dtype].size,
        .data = data,
    };
}

/* Messages name the file: "keys.npy: <detail>". */
enum { DETAIL_MAX = 320 };

int key_file_read_memory(const unsigned char *bytes, size_t size, const char *name,
                         const struct key_file_read_options *options, struct key_file *out, char *error,
                         size_t error_size)
{
    if (name == NULL)
        name = "input";
    if (out == NULL || (bytes == NULL && size > 0))
        return key_file_fail(error, error_size, "%s: key_file_read_memory: NULL argument", name);
    memset(out, 0, sizeof *out);
    char detail[DETAIL_MAX];
    struct key_layout layout;
    if (describe_bytes(bytes, size, options, &layout, detail, sizeof detail) != 0)
        return key_file_fail(error, error_size, "%s: %s", name, detail);
    void *data = NULL;
    if (layout.data_size > 0) {
        data = malloc(layout.data_size);
        if (data == NULL)
            return key_file_fail(error, error_size, "%s: out of memory for %zu bytes of keys", name, layout.data_size);
        memcpy(data, bytes + layout.data_offset, layout.data_size);
    }
    fill_key_file(&layout, data, out);
    return 0;
}

/* Blocks of this size or more are asked for in huge pages: a fresh buffer
 * faults in 2 MiB at a time instead of 4 KiB (reading 64 MiB took 30-130 ms
 * into plain pages and 17 ms into huge ones on the 2-core machine), and the
 * sort that follows misses the TLB less. */
#define HUGE_BLOCK_BYTES ((size_t)4 << 20)
#define HUGE_PAGE_BYTES ((size_t)2 << 20)
/* O_DIRECT wants buffer, offset and length aligned to the logical block. */
#define DIRECT_ALIGN ((size_t)4096)
/* Linux moves at most about 2 GiB per read or write call; ask for 1 GiB. */
#define IO_CALL_MAX_BYTES ((size_t)1 << 30)

/* Files of this size or more are read, and blocks written, by several threads
 * at once, each moving its own contiguous range. One thread copying out of
 * the page cache into a fresh buffer (and zeroing each huge page as it faults
 * it in) is far slower than memory: a cached 256 MiB file took a median of
 * 84 ms to read with one thread and 17 ms with eight on a 16-core machine
 * (25 ms with four, 17 with sixteen), 42 ms and 38 ms with one and two on the
 * 2-core one. Each thread gets at least PARALLEL_IO_RANGE_MIN bytes, so that
 * starting it costs little next to its share of the copy. */
#define PARALLEL_IO_MIN_BYTES ((size_t)16 << 20)
#define PARALLEL_IO_RANGE_MIN ((size_t)8 << 20)
enum { PARALLEL_IO_MAX_THREADS = 8 };

enum range_outcome { RANGE_PENDING = 0, RANGE_DONE, RANGE_FILE_ENDED, RANGE_FAILED };

/* One thread's share of a transfer between a file and a block in memory that
 * mirrors it from offset 0: bytes [start, end) of both. */
struct io_range {
    int fd;
    unsigned char *read_into;        /* the block, when reading */
    const unsigned char *write_from; /* the block, when writing */
    size_t start, end;
    size_t done; /* bytes of the range moved so far, counted from start */
    /* The fd has O_DIRECT on: a short write that leaves the next offset off
     * DIRECT_ALIGN ends this range's direct part (the rest goes buffered). */
    bool direct;
    enum range_outcome outcome;
    int error_number; /* errno, when outcome is RANGE_FAILED */
};

/* Moves what is left of one range with pread or pwrite (which leave the file
 * offset alone, so ranges do not disturb each other). A pthread start routine. */
static void *move_range(void *argument)
{
    struct io_range *range = argument;
    range->outcome = RANGE_DONE;
    while (range->start + range->done < range->end) {
        size_t offset = range->start + range->done;
        size_t chunk = range->end - offset < IO_CALL_MAX_BYTES ? range->end - offset : IO_CALL_MAX_BYTES;
        ssize_t moved = range->write_from != NULL
                            ? pwrite(range->fd, range->write_from + offset, chunk, (off_t)offset)
                            : pread(range->fd, range->read_into + offset, chunk, (off_t)offset);
        if (moved < 0 && errno == EINTR)
            continue;
        if (moved < 0) {
            range->outcome = RANGE_FAILED;
            range->error_number = errno;
            return NULL;
        }
        if (moved == 0 && range->write_from == NULL) {
            range->outcome = RANGE_FILE_ENDED;
            return NULL;
        }
        if (moved == 0) { /* a write that takes nothing and says no error */
            range->outcome = RANGE_FAILED;
            range->error_number = EIO;
            return NULL;
        }
        range->done += (size_t)moved;
        if (range->direct && range->done % DIRECT_ALIGN != 0) {
            /* O_DIRECT cannot go on from here; the buffered pass will. */
            range->outcome = RANGE_FAILED;
            range->error_number = EINVAL;
            return NULL;
        }
    }
    return NULL;
}

/* How many threads move size bytes: one below PARALLEL_IO_MIN_BYTES, else
 * one per PARALLEL_IO_RANGE_MIN bytes, but no more than there are CPUs online
 * or PARALLEL_IO_MAX_THREADS. */
static unsigned io_thread_count(size_t size)
{
    if (size < PARALLEL_IO_MIN_BYTES)
        return 1;
    size_t count = size / PARALLEL_IO_RANGE_MIN;
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    if (online > 0 && count > (size_t)online)
        count = (size_t)online;
    if (count > PARALLEL_IO_MAX_THREADS)
        count = PARALLEL_IO_MAX_THREADS;
    return (unsigned)count;
}

/* Splits bytes [0, size) of fd and block into ranges of equal size, each but
 * the last a multiple of HUGE_PAGE_BYTES: so every range starts where O_DIRECT
 * can, and a reading thread faults in huge pages of its own instead of racing
 * its neighbour for a shared one. Exactly one of read_into and write_from is
 * the block. Returns how many ranges (at least 1, even for size 0). */
static unsigned split_into_ranges(int fd, unsigned char *read_into, const unsigned char *write_from, size_t size,
                                  struct io_range ranges[PARALLEL_IO_MAX_THREADS])
{
    unsigned threads = io_thread_count(size);
    size_t share = size;
    if (threads > 1)
        share = (size / threads + HUGE_PAGE_BYTES - 1) / HUGE_PAGE_BYTES * HUGE_PAGE_BYTES;
    unsigned count = 0;
    size_t start = 0;
    do {
        size_t end = size - start <= share ? size : start + share;
        ranges[count++] = (struct io_range){
            .fd = fd, .read_into = read_into, .write_from = write_from, .start = start, .end = end};
        start = end;
    } while (start < size && count < threads);
    return count;
}

/* Moves every range not yet done: ranges[0] on the calling thread, each other
 * on a thread of its own. A range whose thread cannot be started is moved on
 * the calling thread instead, so a shortage of threads makes it slower, never
 * a failure. Returns when all have finished. */
static void move_ranges(struct io_range *ranges, unsigned count)
{
    pthread_t threads[PARALLEL_IO_MAX_THREADS];
    bool started[PARALLEL_IO_MAX_THREADS] = {false};
    for (unsigned i = 1; i < count; ++i)
        started[i] =
            ranges[i].outcome != RANGE_DONE && pthread_create(&threads[i], NULL, move_range, &ranges[i]) == 0;
    move_range(&ranges[0]);
    for (unsigned i = 1; i < count; ++i) {
        if (started[i])
            pthread_join(threads[i], NULL);
        else
            move_range(&ranges[i]);
    }
}

/* The range to report after move_ranges: the first that failed with an error,
 * else the first that did not finish, else NULL when all are done. */
static const struct io_range *worst_range(const struct io_range *ranges, unsigned count)
{
    const struct io_range *unfinished = NULL;
    for (unsigned i = 0; i < count; ++i) {
        if (ranges[i].outcome == RANGE_FAILED)
            return &ranges[i];
        if (ranges[i].outcome != RANGE_DONE && unfinished == NULL)
            unfinished = &ranges[i];
    }
    return unfinished;
}

/* Reads what fstat promised and checks one more byte hits end of file, so a
 * file that grows or shrinks while we read is an error, not cut-short keys. */
static int read_open_file(int fd, size_t file_size, unsigned char *buffer, char *error, size_t error_size)
{
    struct io_range ranges[PARALLEL_IO_MAX_THREADS];
    unsigned count = split_into_ranges(fd, buffer, NULL, file_size, ranges);
    move_ranges(ranges, count);
    const struct io_range *worst = worst_range(ranges, count);
    if (worst != NULL && worst->outcome == RANGE_FAILED)
        return key_file_fail(error, error_size, "cannot read: %s", strerror(worst->error_number));
    if (worst != NULL)
        return key_file_fail(error, error_size, "the file changed size while it was being read");
    unsigned char extra;
    ssize_t got;
    do
        got = pread(fd, &extra, 1, (off_t)file_size);
    while (got < 0 && errno == EINTR);
    if (got < 0)
        return key_file_fail(error, error_size, "cannot read: %s", strerror(errno));
    if (got > 0) /* there was more: the file grew */
        return key_file_fail(error, error_size, "the file changed size while it was being read");
    return 0; /* end of file right where fstat said */
}

/* At least 1 byte, page aligned (for O_DIRECT when it is written back), in
 * huge pages when large; NULL when out of memory. free() releases it. */
static unsigned char *allocate_block(size_t size)
{
    void *block = NULL;
    size_t alignment = size >= HUGE_BLOCK_BYTES ? HUGE_PAGE_BYTES : DIRECT_ALIGN;
    if (posix_memalign(&block, alignment, size > 0 ? size : 1) != 0)
        return NULL;
#ifdef MADV_HUGEPAGE
    if (size >= HUGE_BLOCK_BYTES)
        (void)madvise(block, (size + HUGE_PAGE_BYTES - 1) / HUGE_PAGE_BYTES * HUGE_PAGE_BYTES, MADV_HUGEPAGE);
#endif
    return block;
}

/* The whole file into a block from allocate_block. */
static int read_whole_file(const char *path, unsigned char **bytes, size_t *size, char *error, size_t error_size)
{
    *bytes = NULL;
    *size = 0;
    struct stat status;
    bool not_regular;
    int fd = open_regular_file(path, &status, &not_regular);
    if (fd < 0 && not_regular)
        return key_file_fail(error, error_size, "is not a regular file");
    if (fd < 0)
        return key_file_fail(error, error_size, "cannot open: %s", strerror(errno));
    unsigned char *buffer = NULL;
    int result = -1;
    if ((uintmax_t)status.st_size > SIZE_MAX)
        key_file_fail(error, error_size, "is too large (%jd bytes) to hold in memory", (intmax_t)status.st_size);
    else if ((buffer = allocate_block((size_t)status.st_size)) == NULL)
        key_file_fail(error, error_size, "out of memory reading %jd bytes", (intmax_t)status.st_size);
    else
        result = read_open_file(fd, (size_t)status.st_size, buffer, error, error_size);
    close(fd);
    if (result != 0) {
        free(buffer);
        return -1;
    }
    *bytes = buffer;
    *size = (size_t)status.st_size;
    return 0;
}

int key_file_read(const char *path, const struct key_file_read_options *options, struct key_file *out,
                  char *error, size_t error_size)
{
    if (out == NULL || path == NULL)
        return key_file_fail(error, error_size, "key_file_read: NULL argument");
    memset(out, 0, sizeof *out);
    char detail[DETAIL_MAX];
    unsigned char *bytes;
    size_t size;
    if (read_whole_file(path, &bytes, &size, detail, sizeof detail) != 0)
        return key_file_fail(error, error_size, "%s: %s", path, detail);
    struct key_layout layout;
    if (describe_bytes(bytes, size, options, &layout, detail, sizeof detail) != 0) {
        free(bytes);
        return key_file_fail(error, error_size, "%s: %s", path, detail);
    }
    if (layout.data_size == 0) {
        free(bytes);
        fill_key_file(&layout, NULL, out);
    } else if (layout.data_offset % 8 == 0) {
        /* The keys stay where they were read, after the header: aligned for
         * every dtype, and no second pass over them. */
        fill_key_file(&layout, bytes + layout.data_offset, out);
        out->allocation = bytes;
    } else {
        /* A header of odd length (hand-made files): slide the keys to the
         * start of the block, where every dtype is aligned. */
        memmove(bytes, bytes + layout.data_offset, layout.data_size);
        fill_key_file(&layout, bytes, out);
        out->allocation = bytes;
    }
    return 0;
}

void key_file_free(struct key_file *keys)
{
    if (keys == NULL)
        return;
    free(keys->allocation ? keys->allocation : keys->data);
    memset(keys, 0, sizeof *keys);
}

/* ---- writing ---- */

static int check_writable(const struct key_file *keys, size_t *data_size, char *error, size_t error_size)
{
    *data_size = 0;
    if (keys->format != KEY_FILE_FORMAT_RAW && keys->format != KEY_FILE_FORMAT_NPY)
        return key_file_fail(error, error_size, "cannot write format '%s' (only raw or npy)",
                    key_file_format_name(keys->format));
    if (!key_dtype_is_valid(keys->dtype))
        return key_file_fail(error, error_size, "unknown dtype %d", (int)keys->dtype);
    size_t element_size = key_dtype_infos[keys->dtype].size;
    if (keys->element_size != 0 && keys->element_size != element_size)
        return key_file_fail(error, error_size, "element_size %zu does not match dtype %s (%zu bytes)", keys->element_size,
                    key_dtype_infos[keys->dtype].descr, element_size);
    if (keys->format == KEY_FILE_FORMAT_RAW && keys->dtype != KEY_DTYPE_U32)
        return key_file_fail(error, error_size, "raw key files hold uint32 keys only, not %s; write .npy instead",
                    key_dtype_infos[keys->dtype].name);
    if (keys->count > (SIZE_MAX - KEY_NPY_HEADER_MAX) / element_size)
        return key_file_fail(error, error_size, "%zu elements of %zu bytes overflow size_t", keys->count, element_size);
    if (keys->count > 0 && keys->data == NULL)
        return key_file_fail(error, error_size, "%zu keys but no data", keys->count);
    *data_size = keys->count * element_size;
    return 0;
}

static int write_all(int fd, const void *data, size_t size)
{
    const unsigned char *bytes = data;
    while (size > 0) {
        size_t chunk = size < IO_CALL_MAX_BYTES ? size : IO_CALL_MAX_BYTES;
        ssize_t written = write(fd, bytes, chunk);
        if (written < 0 && errno == EINTR)
            continue;
        if (written < 0)
            return -1;
        if (written == 0) {
            errno = EIO;
            return -1;
        }
        bytes += written;
        size -= (size_t)written;
    }
    return 0;
}

/* The process umask, read from /proc without changing it (umask() can only
 * be read by setting it, which would race with other threads creating files).
 * Returns -1 where /proc does not say. */
static long current_umask(void)
{
    FILE *status = fopen("/proc/self/status", "r");
    if (status == NULL)
        return -1;
    char line[256];
    long mask = -1;
    while (fgets(line, sizeof line, status) != NULL) {
        if (strncmp(line, "Umask:", 6) == 0) {
            char *end;
            long parsed = strtol(line + 6, &end, 8);
            if (end != line + 6 && parsed >= 0 && parsed <= 0777)
                mask = parsed;
            break;
        }
    }
    fclose(status);
    return mask;
}

/* mkstemp makes the file 0600. Give it what the file it replaces had, or what
 * a plain fopen would have made; where the umask is unknown stay at 0600,
 * which errs on the private side. */
static int set_output_mode(int fd, const char *path)
{
    struct stat existing;
    mode_t mode;
    /* lstat: an OUT that is a link is replaced, so its target's mode is not taken. */
    if (lstat(path, &existing) == 0 && S_ISREG(existing.st_mode)) {
        mode = existing.st_mode & 07777;
    } else {
        long mask = current_umask();
        if (mask < 0)
            return 0;
        mode = (mode_t)(0666 & ~mask);
    }
    return fchmod(fd, mode);
}

/* Makes the rename itself durable. Best effort: by now OUT has been replaced,
 * so a failure here cannot be reported as "OUT untouched". */
static void sync_parent_directory(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *directory;
    if (slash == NULL)
        directory = strdup(".");
    else if (slash == path)
        directory = strdup("/");
    else
        directory = strndup(path, (size_t)(slash - path));
    if (directory == NULL)
        return;
    int fd = open(directory, O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
    free(directory);
}

/* Writes size bytes from a DIRECT_ALIGN-aligned block at offset 0 of fd: the
 * aligned bulk with O_DIRECT, which skips the page cache (64 MiB took 20 ms
 * this way against 35-280 ms buffered plus 20-45 ms of fsync on the 2-core
 * machine), by several threads when it is large, then the rest buffered.
 * Where the file system refuses O_DIRECT (EINVAL), or a direct write stops
 * short, what is left goes buffered. Returns -1 with errno set on failure.
 *
 * On both machines measured the disk, not the CPU, bounds this: 256 MiB took
 * the same time with 1, 2, 4 or 8 writers (74-76 ms on the 2-core machine,
 * 147-160 ms median on the 16-core one), and with 8 writers into 8 separate
 * files too. The threads stay for disks with more queues to fill. Sizing the
 * temporary file first (fallocate or ftruncate) made no difference, or made
 * it slower, so it is not done. */
static int write_block(int fd, const unsigned char *block, size_t size)
{
    size_t bulk = size / DIRECT_ALIGN * DIRECT_ALIGN;
    struct io_range ranges[PARALLEL_IO_MAX_THREADS];
    unsigned count = split_into_ranges(fd, NULL, block, bulk, ranges);
    int flags = fcntl(fd, F_GETFL);
    if (bulk > 0 && flags >= 0 && fcntl(fd, F_SETFL, flags | O_DIRECT) == 0) {
        for (unsigned i = 0; i < count; ++i)
            ranges[i].direct = true;
        move_ranges(ranges, count);
        if (fcntl(fd, F_SETFL, flags) != 0)
            return -1;
        for (unsigned i = 0; i < count; ++i)
            ranges[i].direct = false;
    }
    move_ranges(ranges, count); /* buffered, only what is not done yet */
    const struct io_range *worst = worst_range(ranges, count);
    if (worst != NULL) {
        errno = worst->error_number;
        return -1;
    }
    struct io_range tail = {.fd = fd, .write_from = block, .start = bulk, .end = size};
    move_range(&tail);
    if (tail.outcome != RANGE_DONE) {
        errno = tail.error_number;
        return -1;
    }
    return 0;
}

static int write_contents(int fd, const struct key_file *keys, size_t data_size)
{
    unsigned char header[KEY_NPY_HEADER_MAX];
    size_t header_size = 0;
    if (keys->format == KEY_FILE_FORMAT_NPY) {
        header_size = key_file_format_npy_header(keys->dtype, keys->count, header, sizeof header);
        if (header_size == 0) {
            errno = EOVERFLOW;
            return -1;
        }
    }
    /* Read keys have their file's block around them: when the header fits
     * exactly in the room before the data, the file is one aligned block. */
    unsigned char *block = keys->allocation;
    if (block != NULL && data_size > 0 && (uintptr_t)block % DIRECT_ALIGN == 0 &&
        (unsigned char *)keys->data - block == (ptrdiff_t)header_size) {
        memcpy(block, header, header_size);
        return write_block(fd, block, header_size + data_size);
    }
    if (header_size > 0 && write_all(fd, header, header_size) != 0)
        return -1;
    return write_all(fd, keys->data, data_size);
}

int key_file_write_atomic(const char *path, const struct key_file *keys, char *error, size_t error_size)
{
    if (path == NULL || keys == NULL)
        return key_file_fail(error, error_size, "key_file_write_atomic: NULL argument");
    if (path[0] == '\0')
        return key_file_fail(error, error_size, "key_file_write_atomic: empty output path");
    char detail[DETAIL_MAX];
    size_t data_size;
    if (check_writable(keys, &data_size, detail, sizeof detail) != 0)
        return key_file_fail(error, error_size, "%s: %s", path, detail);

    output_file output;
    if (output_file_open(&output, path) != 0)
        return key_file_fail(error, error_size, "%s: cannot create a temporary file next to it: %s", path,
                             strerror(errno));
    const char *step = NULL;
    if (set_output_mode(output.fd, path) != 0)
        step = "cannot set the permissions of";
    else if (write_contents(output.fd, keys, data_size) != 0)
        step = "cannot write";
    else if (fsync(output.fd) != 0)
        step = "cannot flush";
    if (step != NULL) {
        int saved = errno;
        output_file_discard(&output);
        return key_file_fail(error, error_size, "%s: %s the temporary file next to it: %s", path, step,
                             strerror(saved));
    }
    if (output_file_publish(&output, path, &step) != 0)
        return key_file_fail(error, error_size, "%s: %s it with the new file: %s", path,
                             strcmp(step, "cannot close") == 0 ? "cannot write" : "cannot replace",
                             strerror(errno));
    sync_parent_directory(path);
    return 0;
}
