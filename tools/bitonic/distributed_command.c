/* distributed_command.c: the tool's distributed commands (distributed_command.h).
 *
 *   mpirun -np P bitonic sort --distributed IN OUT [--descending] [--device SEL] [--cpu-threads N]
 *   mpirun -np P bitonic bench --distributed [--log K] [--runs N] [--types u32,pairs,...]
 *                                            [--merge auto|host|context] [--ranges] [--device SEL]
 *                                            [--cpu-threads N]
 *
 * sort: rank r reads elements [N r / P, N (r + 1) / P) of IN itself (raw
 * uint32 or a 1-D .npy, as `bitonic sort`), so no rank ever holds the whole
 * file. With exact balance each rank's output slice is where its input slice
 * was, so each writes at the same offset of one temporary file that rank 0
 * created at full size; rank 0 renames it over OUT only when every rank wrote
 * and flushed its slice. Any failure on any rank: every rank exits 1, the
 * temporary file is removed, OUT is untouched. The temporary file is a hidden
 * one that rank 0 holds locked; one that a killed run left is removed by the
 * next distributed sort to the same OUT (distributed_output.h). Errors are one line on stderr
 * from the rank that saw them, prefixed with its rank.
 *
 * bench: 2^K random keys split evenly over the ranks, sorted --runs times
 * after a warm-up, every result verified (sorted on each rank, ordered across
 * rank boundaries, the same multiset by a checksum); prints the median of each
 * phase's time, taken as the maximum over the ranks, and keys per second. */
#define _POSIX_C_SOURCE 200809L
#include "distributed_command.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bitonic_mpi.h"
#include "distributed_output.h"
#include "key_file.h"
#include "output_file.h"

typedef struct distributed_options {
    const char *command;             /* "sort" or "bench" */
    const char *in_path, *out_path, *device;
    bool descending, ranges;
    bitonic_mpi_merge merge;
    unsigned log, runs;
    unsigned types;                  /* TYPE_* bits */
    unsigned cpu_threads;            /* threads of each rank's CPU path, 0 = all cores */
} distributed_options;

enum { TYPE_U32 = 1u, TYPE_F32 = 2u, TYPE_PAIRS = 4u, TYPE_U64 = 8u };

typedef struct rank_info {
    int rank, ranks;
} rank_info;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void report(const rank_info *who, const char *format, ...)
{
    char line[1024];
    va_list args;
    va_start(args, format);
    vsnprintf(line, sizeof line, format, args);
    va_end(args);
    fprintf(stderr, "bitonic[rank %d/%d]: %s\n", who->rank, who->ranks, line);
}

/* true on every rank when it is true on every rank. */
static bool all_ranks(bool ok)
{
    int mine = ok, all = 0;
    if (MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD) != MPI_SUCCESS)
        return false;
    return all != 0;
}

/* The first element of rank r's slice of count elements: floor(count r / ranks), without overflow. */
static size_t slice_start(size_t count, int rank, int ranks)
{
    size_t quotient = count / (size_t)ranks, remainder = count % (size_t)ranks;
    return quotient * (size_t)rank + remainder * (size_t)rank / (size_t)ranks;
}

/* What the input file holds and where this rank's slice lies. */
typedef struct input_layout {
    enum key_file_format format;
    enum key_dtype dtype;
    size_t element_size;
    size_t count;                    /* elements in the file */
    size_t data_offset;              /* bytes before the first element */
    size_t first, slice_count;       /* this rank's slice */
    size_t file_size;                /* bytes in this rank's file */
} input_layout;

static bool read_exactly(int fd, void *data, size_t size, size_t offset)
{
    unsigned char *bytes = data;
    while (size > 0) {
        ssize_t n = pread(fd, bytes, size, (off_t)offset);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        bytes += n;
        size -= (size_t)n;
        offset += (size_t)n;
    }
    return true;
}

/* Reads the header (each rank its own copy of it) and this rank's slice of the
 * data. Only what this rank reads is checked against the file's size: a file
 * cut short fails on the ranks whose slices it cuts. */
static bool read_slice(const rank_info *who, const char *path, input_layout *layout, void **out_data)
{
    *out_data = NULL;
    struct stat info;
    bool not_regular;
    int fd = open_regular_file(path, &info, &not_regular);
    if (fd < 0) {
        report(who, "%s: %s", path, not_regular ? "not a regular file" : strerror(errno));
        return false;
    }
    size_t file_size = (size_t)info.st_size;
    unsigned char head[1 << 16];
    size_t head_size = file_size < sizeof head ? file_size : sizeof head;
    bool ok = read_exactly(fd, head, head_size, 0);
    char error[256] = "cannot read the header";
    if (ok && head_size >= 6 && memcmp(head, "\x93NUMPY", 6) == 0) {
        struct key_npy_header header;
        ok = key_file_parse_npy_header(head, head_size, &header, error, sizeof error) == 0;
        *layout = (input_layout){KEY_FILE_FORMAT_NPY, header.dtype, key_dtype_size(header.dtype), header.count,
                                 header.data_offset, 0, 0, 0};
    } else if (ok) {
        ok = file_size % 4 == 0;
        if (!ok)
            snprintf(error, sizeof error, "a raw file of %zu bytes is not whole uint32 keys", file_size);
        *layout = (input_layout){KEY_FILE_FORMAT_RAW, KEY_DTYPE_U32, 4, file_size / 4, 0, 0, 0, 0};
    }
    if (!ok) {
        report(who, "%s: %s", path, error);
        close(fd);
        return false;
    }
    layout->file_size = file_size;
    layout->first = slice_start(layout->count, who->rank, who->ranks);
    layout->slice_count = slice_start(layout->count, who->rank + 1, who->ranks) - layout->first;
    size_t bytes = layout->slice_count * layout->element_size;
    size_t offset = layout->data_offset + layout->first * layout->element_size;
    void *data = malloc(bytes ? bytes : 1);
    if (!data) {
        report(who, "%s: out of memory for %zu bytes", path, bytes);
    } else if (offset + bytes > file_size || !read_exactly(fd, data, bytes, offset)) {
        report(who, "%s: cannot read elements %zu to %zu (bytes %zu to %zu): the file has %zu bytes", path,
               layout->first, layout->first + layout->slice_count, offset, offset + bytes, file_size);
    } else if (who->rank == who->ranks - 1 && offset + bytes != file_size) {
        report(who, "%s: %zu bytes after the last of the %zu elements the header announces", path,
               file_size - offset - bytes, layout->count);
    } else {
        *out_data = data;
        close(fd);
        return true;
    }
    free(data);
    close(fd);
    return false;
}

/* Rank 0: the temporary file next to out_path, at its full size, with the .npy
 * header written and the permissions a replaced file had (or 0666 minus the
 * umask for a new one, as `bitonic sort` does). *out_lock_fd holds the file's
 * lock until it is closed, after the rename or the removal. */
static bool create_output(const rank_info *who, const char *out_path, const input_layout *layout, char *temporary,
                          size_t temporary_size, size_t *out_header_size, int *out_lock_fd)
{
    *out_lock_fd = -1;
    unsigned char header[KEY_NPY_HEADER_MAX];
    size_t header_size = 0;
    if (layout->format == KEY_FILE_FORMAT_NPY) {
        header_size = key_file_format_npy_header(layout->dtype, layout->count, header, sizeof header);
        if (header_size == 0) {
            report(who, "%s: cannot format the .npy header", out_path);
            return false;
        }
    }
    if (!distributed_temporary_name(out_path, temporary, temporary_size)) {
        report(who, "%s: the path is too long", out_path);
        return false;
    }
    distributed_sweep_leftovers(out_path);
    int fd = distributed_temporary_create(temporary);
    if (fd < 0) {
        report(who, "%s: cannot create a temporary file next to it: %s", out_path, strerror(errno));
        return false;
    }
    struct stat existing;
    mode_t mode;
    if (stat(out_path, &existing) == 0 && S_ISREG(existing.st_mode)) {
        mode = existing.st_mode & 07777;
    } else {
        mode_t mask = umask(0);
        umask(mask);
        mode = 0666 & ~mask;
    }
    size_t total = header_size + layout->count * layout->element_size;
    bool ok = fchmod(fd, mode) == 0 && ftruncate(fd, (off_t)total) == 0;
    for (size_t done = 0; ok && done < header_size;) {
        ssize_t n = pwrite(fd, header + done, header_size - done, (off_t)done);
        ok = n > 0;
        done += ok ? (size_t)n : 0;
    }
    if (!ok) {
        report(who, "%s: cannot prepare the temporary file %s: %s", out_path, temporary, strerror(errno));
        temporary_file_forget();
        unlink(temporary);
        close(fd);
        return false;
    }
    *out_header_size = header_size;
    *out_lock_fd = fd;
    return true;
}

static bool write_slice(const rank_info *who, const char *temporary, size_t offset, const void *data, size_t bytes)
{
    int fd = open(temporary, O_WRONLY);
    bool ok = fd >= 0;
    const unsigned char *from = data;
    for (size_t done = 0; ok && done < bytes;) {
        ssize_t n = pwrite(fd, from + done, bytes - done, (off_t)(offset + done));
        if (n < 0 && errno == EINTR)
            continue;
        ok = n > 0;
        done += ok ? (size_t)n : 0;
    }
    ok = ok && fsync(fd) == 0;
    if (!ok)
        report(who, "cannot write %zu bytes at %zu into %s: %s", bytes, offset, temporary, strerror(errno));
    if (fd >= 0 && close(fd) != 0 && ok) {
        report(who, "cannot close %s: %s", temporary, strerror(errno));
        ok = false;
    }
    return ok;
}

static bool key_type_of(enum key_dtype dtype, bitonic_key_type *out)
{
    static const bitonic_key_type types[] = {BITONIC_KEY_U32, BITONIC_KEY_I32, BITONIC_KEY_F32,
                                             BITONIC_KEY_U64, BITONIC_KEY_I64, BITONIC_KEY_F64};
    if ((unsigned)dtype >= sizeof types / sizeof types[0])
        return false;
    *out = types[dtype];
    return true;
}

static bool open_context(const rank_info *who, const char *device, unsigned cpu_threads,
                         bitonic_context **out_context)
{
    bitonic_status status =
        bitonic_context_create(&(bitonic_context_desc){.device = device, .cpu_threads = cpu_threads}, out_context);
    if (status != BITONIC_SUCCESS)
        report(who, "cannot open the device%s%s: %s", device ? " " : "", device ? device : "",
               bitonic_status_string(status));
    return status == BITONIC_SUCCESS;
}

/* Every rank's input and options against every other's, in one pair of
 * reductions: ranks given different files (or, launched with different
 * arguments, different orders) would each sort a slice of something else and
 * leave an OUT whose header does not describe its data. On a mismatch rank 0
 * names what differs and every rank returns false. */
static bool ranks_agree(const rank_info *who, const input_layout *layout, const distributed_options *options)
{
    static const char *const names[] = {"format", "dtype", "element count", "header size", "file size",
                                        "order", "merge"};
    enum { FIELDS = sizeof names / sizeof names[0] };
    uint64_t mine[FIELDS] = {(uint64_t)layout->format, (uint64_t)layout->dtype, layout->count,
                             layout->data_offset, layout->file_size, options->descending,
                             (uint64_t)options->merge};
    uint64_t low[FIELDS], high[FIELDS];
    if (MPI_Allreduce(mine, low, FIELDS, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS ||
        MPI_Allreduce(mine, high, FIELDS, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS) {
        report(who, "cannot compare the ranks' inputs");
        return false;
    }
    for (size_t f = 0; f < FIELDS; ++f)
        if (low[f] != high[f]) {
            if (who->rank == 0)
                report(who, "the ranks disagree on the input's %s (from %" PRIu64 " to %" PRIu64
                            "): every rank must be given the same IN and options",
                       names[f], low[f], high[f]);
            return false;
        }
    return true;
}

/* Every step ends with all_ranks(), so a failure anywhere sends every rank to
 * the same exit; only rank 0 touches OUT, and only after the last agreement. */
static int distributed_sort(const rank_info *who, const distributed_options *options)
{
    input_layout layout = {0};
    void *data = NULL;
    bitonic_context *context = NULL;
    bitonic_key_type key_type = BITONIC_KEY_U32;
    bool ok = read_slice(who, options->in_path, &layout, &data);
    if (ok && !key_type_of(layout.dtype, &key_type)) {
        report(who, "%s: unsupported dtype", options->in_path);
        ok = false;
    }
    ok = all_ranks(ok) && ranks_agree(who, &layout, options);
    ok = ok && all_ranks(open_context(who, options->device, options->cpu_threads, &context));
    if (ok) {
        bitonic_mpi_sort_options sort = {.key_type = key_type, .merge = options->merge,
                                         .order = options->descending ? BITONIC_ORDER_DESCENDING
                                                                      : BITONIC_ORDER_ASCENDING};
        bitonic_status status = bitonic_mpi_sort(context, MPI_COMM_WORLD, data, NULL, layout.slice_count, &sort, NULL);
        if (status != BITONIC_SUCCESS && who->rank == 0)
            report(who, "sorting %s failed: %s", options->in_path, bitonic_status_string(status));
        ok = status == BITONIC_SUCCESS;   /* the same on every rank */
    }
    bitonic_context_destroy(context);
    /* Rank 0 creates the temporary file and tells the others its name. */
    char temporary[4096 + 32] = "";
    size_t header_size = 0;
    int lock_fd = -1;
    if (ok) {
        int created = who->rank == 0 ? create_output(who, options->out_path, &layout, temporary, sizeof temporary,
                                                     &header_size, &lock_fd)
                                     : 0;
        unsigned long long header = header_size;
        ok = MPI_Bcast(&created, 1, MPI_INT, 0, MPI_COMM_WORLD) == MPI_SUCCESS && created &&
             MPI_Bcast(temporary, (int)sizeof temporary, MPI_CHAR, 0, MPI_COMM_WORLD) == MPI_SUCCESS &&
             MPI_Bcast(&header, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD) == MPI_SUCCESS;
        header_size = (size_t)header;
        if (ok) {
            size_t offset = header_size + layout.first * layout.element_size;
            ok = all_ranks(write_slice(who, temporary, offset, data, layout.slice_count * layout.element_size));
            int renamed = 0;
            if (who->rank == 0) {
                /* The header's writes are flushed and checked before the rename; the
                 * lock is kept across it, so no sweep can take the file meanwhile. */
                if (ok && fsync(lock_fd) != 0) {
                    report(who, "%s: cannot flush the temporary file %s: %s", options->out_path, temporary,
                           strerror(errno));
                    ok = false;
                }
                if (ok && rename(temporary, options->out_path) == 0) {
                    renamed = 1;
                    temporary_file_forget();
                } else {
                    if (ok)
                        report(who, "%s: cannot replace it with the new file: %s", options->out_path,
                               strerror(errno));
                    temporary_file_forget();
                    unlink(temporary);
                }
            }
            ok = MPI_Bcast(&renamed, 1, MPI_INT, 0, MPI_COMM_WORLD) == MPI_SUCCESS && renamed;
        } else if (lock_fd >= 0) {  /* made, but a broadcast failed: nothing was written */
            temporary_file_forget();
            unlink(temporary);
        }
    }
    if (lock_fd >= 0)
        close(lock_fd);
    free(data);
    if (!ok && who->rank == 0)
        report(who, "the distributed sort failed; %s was not written", options->out_path);
    return ok ? 0 : 1;
}

/* ---- bench ---- */

static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *values, unsigned count)
{
    qsort(values, count, sizeof *values, compare_doubles);
    return count % 2 ? values[count / 2] : 0.5 * (values[count / 2 - 1] + values[count / 2]);
}

/* A key as a number in the library's order, for the check below: unsigned
 * keys as they are; f32 as -inf < ... < -0 < +0 < ... < +inf, then the positive
 * NaNs by payload, then the negative NaNs by inverted bits (bitonic.h). */
static uint64_t ordered_word(const void *keys, size_t i, unsigned type)
{
    if (type == TYPE_U64)
        return ((const uint64_t *)keys)[i];
    uint32_t x = ((const uint32_t *)keys)[i];
    if (type == TYPE_F32) {
        bool nan = (x & 0x7fffffffu) > 0x7f800000u;
        uint32_t ordered = x >> 31 ? ~x : x | 0x80000000u;
        return nan ? (x >> 31 ? (uint64_t)1 << 33 | (uint32_t)~x : (uint64_t)1 << 32 | x) : ordered;
    }
    return x;
}

static void checksum(const void *keys, size_t count, size_t width, uint64_t sums[2])
{
    sums[0] = sums[1] = 0;
    for (size_t i = 0; i < count; ++i) {
        uint64_t word = width == 8 ? ((const uint64_t *)keys)[i] : ((const uint32_t *)keys)[i];
        uint64_t mixed = word * 0x9e3779b97f4a7c15ull;
        sums[0] += mixed ^ (mixed >> 29);
        sums[1] ^= mixed + (word << 7);
    }
}

/* Sorted on this rank, ordered across rank boundaries, and the same multiset as
 * before (a sum and an xor of a mix of the words over all ranks). */
static bool verify(const rank_info *who, const void *keys, size_t count, unsigned type, const uint64_t before[2])
{
    bool sorted = true;
    for (size_t i = 1; i < count && sorted; ++i)
        sorted = ordered_word(keys, i - 1, type) <= ordered_word(keys, i, type);
    /* The last key of each rank to the next; a rank with no keys passes on what it got. */
    uint64_t last = count ? ordered_word(keys, count - 1, type) : 0, previous = 0;
    int has_last = count > 0, previous_has = 0;
    int next = who->rank + 1 < who->ranks ? who->rank + 1 : MPI_PROC_NULL;
    int prior = who->rank > 0 ? who->rank - 1 : MPI_PROC_NULL;
    for (int step = 0; step < who->ranks; ++step) {   /* pass the largest key seen so far along the chain */
        uint64_t message[2] = {(uint64_t)has_last, last}, received[2] = {0, 0};
        MPI_Sendrecv(message, 2, MPI_UINT64_T, next, 0, received, 2, MPI_UINT64_T, prior, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        previous_has = (int)received[0];
        previous = received[1];
        if (!count && previous_has) {
            has_last = 1;
            last = previous;
        }
    }
    if (count && previous_has)
        sorted = sorted && previous <= ordered_word(keys, 0, type);
    uint64_t sums[2], mine[2], all[2] = {0, 0}, all_before[2] = {0, 0};
    checksum(keys, count, type == TYPE_U64 ? 8 : 4, sums);
    mine[0] = sums[0];
    mine[1] = sums[1];
    MPI_Allreduce(&mine[0], &all[0], 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&mine[1], &all[1], 1, MPI_UINT64_T, MPI_BXOR, MPI_COMM_WORLD);
    MPI_Allreduce(&before[0], &all_before[0], 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&before[1], &all_before[1], 1, MPI_UINT64_T, MPI_BXOR, MPI_COMM_WORLD);
    bool same = all[0] == all_before[0] && all[1] == all_before[1];
    if (!sorted || !same)
        report(who, "verification failed: %s", !sorted ? "keys out of order" : "keys changed");
    return all_ranks(sorted && same);
}

static bool bench_type(const rank_info *who, const distributed_options *options, bitonic_context *context,
                       unsigned type, const char *device_name)
{
    size_t total = (size_t)1 << options->log;
    size_t first = slice_start(total, who->rank, who->ranks);
    size_t count = slice_start(total, who->rank + 1, who->ranks) - first;
    size_t width = type == TYPE_U64 ? 8 : 4;
    bool pairs = type == TYPE_PAIRS;
    unsigned char *pristine = malloc(count * width + 8), *keys = malloc(count * width + 8);
    uint32_t *values = pairs ? malloc(count * 4 + 4) : NULL;
    double *phases = malloc(6 * (size_t)options->runs * sizeof *phases);
    bool ok = pristine && keys && (values || !pairs) && phases;
    if (!all_ranks(ok)) {
        report(who, "out of memory for %zu keys", count);
        free(pristine), free(keys), free(values), free(phases);
        return false;
    }
    uint64_t state = 0x1234 + (uint64_t)who->rank * 0x9876543ull;
    for (size_t i = 0; i < count; ++i) {
        uint64_t bits = next_random(&state);
        if (width == 8)
            ((uint64_t *)pristine)[i] = bits;
        else
            ((uint32_t *)pristine)[i] = (uint32_t)bits;
    }
    uint64_t before[2];
    checksum(pristine, count, width, before);
    bitonic_mpi_sort_options sort = {.key_type = type == TYPE_U64 ? BITONIC_KEY_U64
                                                 : type == TYPE_F32 ? BITONIC_KEY_F32
                                                                    : BITONIC_KEY_U32,
                                     .merge = options->merge};
    size_t largest_received = 0;
    bool chunked = false;
    for (unsigned run = 0; ok && run <= options->runs; ++run) {   /* run 0 warms up */
        memcpy(keys, pristine, count * width);
        if (values)
            for (size_t i = 0; i < count; ++i)
                values[i] = (uint32_t)(first + i);
        bitonic_mpi_result result = {0};
        bitonic_mpi_timing timing;
        MPI_Barrier(MPI_COMM_WORLD);
        bitonic_status status =
            options->ranges
                ? bitonic_mpi_sort_ranges(context, MPI_COMM_WORLD, keys, values, count, &sort, &result, &timing)
                : bitonic_mpi_sort(context, MPI_COMM_WORLD, keys, values, count, &sort, &timing);
        if (status != BITONIC_SUCCESS) {
            if (who->rank == 0)
                report(who, "the sort failed: %s", bitonic_status_string(status));
            ok = false;
            break;
        }
        ok = verify(who, options->ranges ? result.keys : keys, options->ranges ? result.count : count, type, before);
        bitonic_mpi_result_free(&result);
        double mine[6] = {timing.total_ms, timing.local_sort_ms, timing.splitters_ms, timing.exchange_ms,
                          timing.merge_ms, timing.balance_ms};
        double slowest[6];
        MPI_Reduce(mine, slowest, 6, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        unsigned long long received = timing.received_count, most = 0;
        MPI_Reduce(&received, &most, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
        if (run > 0)
            for (int p = 0; p < 6; ++p)
                phases[(size_t)p * options->runs + run - 1] = slowest[p];
        largest_received = (size_t)most;
        chunked = chunked || timing.chunked_exchange;
    }
    if (ok && who->rank == 0) {
        double m[6];
        for (int p = 0; p < 6; ++p)
            m[p] = median(phases + (size_t)p * options->runs, options->runs);
        static const char *names[] = {"u32", "f32", "pairs", "u64"};
        const char *name = names[type == TYPE_U32 ? 0 : type == TYPE_F32 ? 1 : type == TYPE_PAIRS ? 2 : 3];
        double keys_per_s = (double)total / (m[0] * 1e-3);
        printf("%d rank(s) [%s], 2^%u %s keys, median of %u: total %.1f ms = local sort %.1f + splitters %.1f + "
               "exchange %.1f + merge %.1f + balance %.1f ms (max over ranks per phase); %.1f Mkeys/s, %.1f Mkeys/s "
               "per rank; largest bucket %zu (%.3f of fair)%s\n",
               who->ranks, device_name, options->log, name, options->runs, m[0], m[1], m[2], m[3], m[4], m[5],
               keys_per_s * 1e-6, keys_per_s * 1e-6 / who->ranks, largest_received,
               (double)largest_received * who->ranks / (double)total, chunked ? ", chunked exchange" : "");
        fflush(stdout);
    }
    free(pristine), free(keys), free(values), free(phases);
    return ok;
}

static int distributed_bench(const rank_info *who, const distributed_options *options)
{
    bitonic_context *context = NULL;
    if (!all_ranks(open_context(who, options->device, options->cpu_threads, &context))) {
        bitonic_context_destroy(context);
        return 1;
    }
    /* Every rank's device, for the report: "name" when all match, else "name, name, ...". */
    bitonic_context_info info;
    bitonic_context_get_info(context, &info);
    char mine[64], *names = malloc(64 * (size_t)who->ranks), described[512] = "";
    memcpy(mine, info.device_name, sizeof mine - 1);   /* a long name is cut, which a report can bear */
    mine[sizeof mine - 1] = '\0';
    if (!names) {
        bitonic_context_destroy(context);
        return 1;
    }
    MPI_Allgather(mine, 64, MPI_CHAR, names, 64, MPI_CHAR, MPI_COMM_WORLD);
    for (int r = 0; r < who->ranks; ++r) {
        if (r > 0 && strcmp(names + 64 * r, names) == 0)
            continue;
        size_t used = strlen(described);
        snprintf(described + used, sizeof described - used, "%s%s", used ? "; " : "", names + 64 * r);
    }
    free(names);
    bool ok = true;
    for (unsigned type = 1; type <= TYPE_U64 && ok; type <<= 1)
        if (options->types & type)
            ok = bench_type(who, options, context, type, described);
    bitonic_context_destroy(context);
    return ok ? 0 : 1;
}

/* ---- arguments ---- */

static bool parse_types(const char *text, unsigned *out)
{
    static const struct { const char *name; unsigned bit; } names[] = {
        {"u32", TYPE_U32}, {"f32", TYPE_F32}, {"pairs", TYPE_PAIRS}, {"u64", TYPE_U64}};
    *out = 0;
    const char *start = text;
    while (*start) {
        size_t length = strcspn(start, ",");
        bool known = false;
        for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
            if (strlen(names[i].name) == length && strncmp(start, names[i].name, length) == 0) {
                *out |= names[i].bit;
                known = true;
            }
        if (!known)
            return false;
        start += length + (start[length] == ',');
    }
    return *out != 0;
}

static bool parse_number(const char *text, unsigned low, unsigned high, unsigned *out)
{
    char *end;
    errno = 0;
    unsigned long value = strtoul(text ? text : "", &end, 10);
    if (!text || !*text || *end || errno || value < low || value > high)
        return false;
    *out = (unsigned)value;
    return true;
}

static bool parse_arguments(int argc, char **argv, distributed_options *out, char *error, size_t error_size)
{
    *out = (distributed_options){.command = argv[1], .log = 20, .runs = 5, .types = TYPE_U32};
    const char *positional[2] = {NULL, NULL};
    int positional_count = 0;
    bool is_sort = strcmp(argv[1], "sort") == 0, is_bench = strcmp(argv[1], "bench") == 0;
    if (!is_sort && !is_bench) {
        snprintf(error, error_size, "--distributed goes with sort or bench, not '%s'", argv[1]);
        return false;
    }
    for (int i = 2; i < argc; ++i) {
        const char *arg = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(arg, "--distributed") == 0) {
        } else if (strcmp(arg, "--descending") == 0 && is_sort) {
            out->descending = true;
        } else if (strcmp(arg, "--device") == 0 && value) {
            out->device = value;
            ++i;
        } else if (strcmp(arg, "--ranges") == 0 && is_bench) {
            out->ranges = true;
        } else if (strcmp(arg, "--merge") == 0 && value) {
            if (strcmp(value, "auto") && strcmp(value, "host") && strcmp(value, "context")) {
                snprintf(error, error_size, "--merge is auto, host or context, not '%s'", value);
                return false;
            }
            out->merge = strcmp(value, "host") == 0      ? BITONIC_MPI_MERGE_HOST
                         : strcmp(value, "context") == 0 ? BITONIC_MPI_MERGE_CONTEXT
                                                         : BITONIC_MPI_MERGE_AUTO;
            ++i;
        } else if (strcmp(arg, "--log") == 0 && is_bench && value) {
            if (!parse_number(value, 0, 40, &out->log)) {
                snprintf(error, error_size, "--log wants a number from 0 to 40, not '%s'", value);
                return false;
            }
            ++i;
        } else if (strcmp(arg, "--cpu-threads") == 0 && value) {
            if (!parse_number(value, 0, 1024, &out->cpu_threads)) {
                snprintf(error, error_size, "--cpu-threads wants a number from 0 to 1024, not '%s'", value);
                return false;
            }
            ++i;
        } else if (strcmp(arg, "--runs") == 0 && is_bench && value) {
            if (!parse_number(value, 1, 1000, &out->runs)) {
                snprintf(error, error_size, "--runs wants a number from 1 to 1000, not '%s'", value);
                return false;
            }
            ++i;
        } else if (strcmp(arg, "--types") == 0 && is_bench && value) {
            if (!parse_types(value, &out->types)) {
                snprintf(error, error_size, "--types takes a list of u32, f32, pairs and u64, not '%s'", value);
                return false;
            }
            ++i;
        } else if (arg[0] == '-' && arg[1] != '\0') {
            snprintf(error, error_size, "unknown option '%s' for %s --distributed", arg, argv[1]);
            return false;
        } else if (positional_count < 2) {
            positional[positional_count++] = arg;
        } else {
            snprintf(error, error_size, "unexpected argument '%s'", arg);
            return false;
        }
    }
    if (is_sort && positional_count != 2) {
        snprintf(error, error_size, "usage: mpirun -np P bitonic sort --distributed IN OUT [--descending] [--device SEL] [--cpu-threads N]");
        return false;
    }
    if (is_bench && positional_count != 0) {
        snprintf(error, error_size, "bench --distributed takes no file");
        return false;
    }
    out->in_path = positional[0];
    out->out_path = positional[1];
    return true;
}

int distributed_main(int argc, char **argv)
{
    distributed_options options;
    char error[512];
    /* The same arguments reach every rank, so every rank fails here alike, before MPI. */
    if (!parse_arguments(argc, argv, &options, error, sizeof error)) {
        fprintf(stderr, "bitonic: %s\n", error);
        return 2;
    }
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
        fprintf(stderr, "bitonic: MPI_Init failed\n");
        return 1;
    }
    rank_info who;
    MPI_Comm_rank(MPI_COMM_WORLD, &who.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &who.ranks);
    int code = strcmp(options.command, "sort") == 0 ? distributed_sort(&who, &options)
                                                    : distributed_bench(&who, &options);
    MPI_Finalize();
    return code;
}
