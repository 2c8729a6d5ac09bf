// cpu_bench.cpp: the fast CPU sort (bitonic_cpu_sort_u32) beside glibc qsort,
// std::sort, pdqsort_branchless and Highway's vqsort, in one process on the same
// inputs. For each input shape and size it times every sort on fresh copies
// (several different inputs per timing at small sizes, so the branch predictor
// cannot learn one input), checks every result against std::sort, and prints a
// markdown table of million keys per second (median of the repetitions) with
// ratios, or CSV with --csv.
//
//   bitonic_cpu_bench [--csv] [--reps N] [--min-log K] [--max-log K] [--log-step S]
//                     [--threads T] [--shapes random,sorted,reverse,equal,few]
//                     [--target auto|portable|avx2|avx512] [--no-slow]
// (--target avx2 also holds vqsort to AVX2, and portable holds it to SSE4.)
//                     [--sorters ours-1t,ours-mt,vqsort,pdqsort,std::sort,qsort] [--descending]
//                     [--scaling]
// --scaling measures only ours, one thread against T threads, alternating the two
// on a fresh input each repetition (so drifting machine load hits both alike),
// and prints the medians and their ratio.
// Ours runs twice: on one thread ("ours-1t") and on T threads ("ours-mt", T = 0
// means all cores). C++ is used only because the peers are C++ templates.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <hwy/contrib/sort/vqsort.h>
#include <hwy/targets.h>
#include <pdqsort.h>

extern "C" {
#include "fast_sort.h"
}

namespace {

struct Options {
    bool csv = false;
    int reps = 5;
    int min_log = 10, max_log = 24, log_step = 2;
    uint32_t threads = 0;
    std::vector<std::string> shapes = {"random", "sorted", "reverse", "equal", "few"};
    bitonic_cpu_target target = BITONIC_CPU_TARGET_AUTO;
    bool skip_slow = false; // qsort and std::sort above 2^20 take seconds each
    std::vector<std::string> only; // sorter names to run; empty = all
    bool descending = false;
    bool scaling = false; // alternate ours-1t and ours-mt on fresh inputs instead
};

uint64_t rng_state = 0x9E3779B97F4A7C15ull;

uint32_t next_random() {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 32);
}

void fill(uint32_t *keys, size_t n, const std::string &shape) {
    if (shape == "random") {
        for (size_t i = 0; i < n; i++) keys[i] = next_random();
    } else if (shape == "sorted") {
        uint32_t start = next_random() >> 8;
        for (size_t i = 0; i < n; i++) keys[i] = start + (uint32_t)i;
    } else if (shape == "reverse") {
        uint32_t start = next_random() >> 8;
        for (size_t i = 0; i < n; i++) keys[i] = start + (uint32_t)(n - i);
    } else if (shape == "equal") {
        uint32_t value = next_random();
        for (size_t i = 0; i < n; i++) keys[i] = value;
    } else if (shape == "few") { // 16 distinct values
        for (size_t i = 0; i < n; i++) keys[i] = (next_random() % 16u) * 0x01010101u;
    } else {
        std::fprintf(stderr, "unknown shape %s\n", shape.c_str());
        std::exit(2);
    }
}

int compare_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

int compare_u32_descending(const void *a, const void *b) { return compare_u32(b, a); }

struct Sorter {
    const char *name;
    bool slow;
};

enum SorterId { OURS_1T, OURS_MT, VQSORT, PDQSORT, STD_SORT, QSORT, SORTER_COUNT };
const Sorter sorters[SORTER_COUNT] = {
    {"ours-1t", false}, {"ours-mt", false}, {"vqsort", false},
    {"pdqsort", false}, {"std::sort", true}, {"qsort", true},
};

bool run_sorter(int id, uint32_t *keys, size_t n, const Options &opt, const hwy::Sorter &vq) {
    bool desc = opt.descending;
    switch (id) {
    case OURS_1T:
    case OURS_MT: {
        bitonic_cpu_sort_config config = {opt.target, id == OURS_1T ? 1u : opt.threads};
        return bitonic_cpu_sort_u32(keys, n, desc ? BITONIC_ORDER_DESCENDING : BITONIC_ORDER_ASCENDING, &config) ==
               BITONIC_SUCCESS;
    }
    case VQSORT:
        if (desc) vq(keys, n, hwy::SortDescending());
        else vq(keys, n, hwy::SortAscending());
        return true;
    case PDQSORT:
        if (desc) pdqsort_branchless(keys, keys + n, std::greater<uint32_t>());
        else pdqsort_branchless(keys, keys + n);
        return true;
    case STD_SORT:
        if (desc) std::sort(keys, keys + n, std::greater<uint32_t>());
        else std::sort(keys, keys + n);
        return true;
    case QSORT: std::qsort(keys, n, sizeof *keys, desc ? compare_u32_descending : compare_u32); return true;
    }
    return false;
}

double now_seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Spins every core for a while before a timing. On this project's shared VMs an
// idle vCPU comes back slowly and at a low clock: without this, the first
// multi-threaded sort after a long single-threaded stretch (generating inputs,
// std::sort for the expected result) ran ~10% slower.
void warm_cores(double seconds) {
    unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    std::vector<std::thread> spinners;
    auto spin = [seconds] {
        double end = now_seconds() + seconds;
        volatile unsigned sink = 0;
        while (now_seconds() < end) sink = sink + 1;
    };
    for (unsigned i = 1; i < cores; i++) spinners.emplace_back(spin);
    spin();
    for (std::thread &t : spinners) t.join();
}

struct Result {
    double median_mkeys = 0, best_mkeys = 0;
    int reps = 0;
    bool ok = true;
    bool skipped = false;
};

Result measure(int id, const std::vector<uint32_t> &inputs, const std::vector<uint32_t> &expected, size_t n,
               size_t batch, const Options &opt, const hwy::Sorter &vq) {
    Result result;
    std::vector<uint32_t> work(inputs.size());
    std::vector<double> rates;
    double spent = 0;
    warm_cores(0.05);
    // Warm-up run (page faults, thread start, CPU clocks), also verified.
    for (int rep = -1; rep < opt.reps; rep++) {
        std::memcpy(work.data(), inputs.data(), inputs.size() * sizeof(uint32_t));
        double start = now_seconds();
        for (size_t b = 0; b < batch; b++)
            result.ok &= run_sorter(id, work.data() + b * n, n, opt, vq);
        double seconds = now_seconds() - start;
        result.ok &= std::memcmp(work.data(), expected.data(), work.size() * sizeof(uint32_t)) == 0;
        if (rep >= 0) {
            rates.push_back((double)(n * batch) / seconds / 1e6);
            spent += seconds;
        }
        // Slow peers at large sizes: three repetitions are enough for a median.
        if (rep >= 2 && spent > 3.0) break;
    }
    std::sort(rates.begin(), rates.end());
    result.reps = (int)rates.size();
    result.median_mkeys = rates[rates.size() / 2];
    result.best_mkeys = rates.back();
    return result;
}

std::vector<std::string> split(const std::string &text) {
    std::vector<std::string> parts;
    size_t start = 0;
    while (start <= text.size()) {
        size_t comma = text.find(',', start);
        if (comma == std::string::npos) comma = text.size();
        if (comma > start) parts.push_back(text.substr(start, comma - start));
        start = comma + 1;
    }
    return parts;
}

Options parse(int argc, char **argv) {
    Options opt;
    for (int i = 1; i < argc; i++) {
        std::string arg = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) { std::fprintf(stderr, "%s needs a value\n", arg.c_str()); std::exit(2); }
            return argv[++i];
        };
        if (arg == "--csv") opt.csv = true;
        else if (arg == "--reps") opt.reps = std::max(1, std::atoi(value().c_str()));
        else if (arg == "--min-log") opt.min_log = std::atoi(value().c_str());
        else if (arg == "--max-log") opt.max_log = std::atoi(value().c_str());
        else if (arg == "--log-step") opt.log_step = std::max(1, std::atoi(value().c_str()));
        else if (arg == "--threads") opt.threads = (uint32_t)std::atoi(value().c_str());
        else if (arg == "--shapes") opt.shapes = split(value());
        else if (arg == "--no-slow") opt.skip_slow = true;
        else if (arg == "--sorters") opt.only = split(value());
        else if (arg == "--descending") opt.descending = true;
        else if (arg == "--scaling") opt.scaling = true;
        else if (arg == "--target") {
            std::string t = value();
            opt.target = t == "portable" ? BITONIC_CPU_TARGET_PORTABLE
                       : t == "avx2"     ? BITONIC_CPU_TARGET_AVX2
                       : t == "avx512"   ? BITONIC_CPU_TARGET_AVX512
                                         : BITONIC_CPU_TARGET_AUTO;
        } else {
            std::fprintf(stderr,
                         "usage: %s [--csv] [--reps N] [--min-log K] [--max-log K] [--log-step S] [--threads T]\n"
                         "          [--shapes random,sorted,reverse,equal,few] [--target auto|portable|avx2|avx512]"
                         " [--no-slow]\n"
                         "          [--sorters ours-1t,ours-mt,vqsort,pdqsort,std::sort,qsort] [--descending]"
                         " [--scaling]\n",
                         argv[0]);
            std::exit(2);
        }
    }
    return opt;
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

// One thread against opt.threads threads, alternating on fresh inputs.
bool run_scaling(const Options &opt, const hwy::Sorter &vq) {
    bool all_ok = true;
    std::printf("| shape | n | ours-1t ms | ours-mt ms | ours-1t M keys/s | ours-mt M keys/s | mt/1t |\n"
                "|---|--:|--:|--:|--:|--:|--:|\n");
    for (const std::string &shape : opt.shapes) {
        for (int log = opt.min_log; log <= opt.max_log; log += opt.log_step) {
            size_t n = (size_t)1 << log;
            std::vector<uint32_t> input(n), work(n), expected;
            std::vector<double> one, many;
            for (int rep = -1; rep < opt.reps; rep++) {
                fill(input.data(), n, shape);
                expected = input;
                std::sort(expected.begin(), expected.end());
                if (opt.descending) std::reverse(expected.begin(), expected.end());
                for (int id : {OURS_1T, OURS_MT}) {
                    work = input;
                    warm_cores(0.05);
                    double start = now_seconds();
                    bool ok = run_sorter(id, work.data(), n, opt, vq);
                    double seconds = now_seconds() - start;
                    ok &= work == expected;
                    all_ok &= ok;
                    if (rep >= 0) (id == OURS_1T ? one : many).push_back(seconds);
                }
            }
            double t1 = median(one), tm = median(many);
            std::printf("| %s | 2^%d | %.3f | %.3f | %.1f | %.1f | %.2f |\n", shape.c_str(), log, t1 * 1e3, tm * 1e3,
                        n / t1 / 1e6, n / tm / 1e6, t1 / tm);
            std::fflush(stdout);
        }
    }
    return all_ok;
}

} // namespace

int main(int argc, char **argv) {
    Options opt = parse(argc, argv);
    if (!bitonic_cpu_target_supported(opt.target)) {
        std::fprintf(stderr, "target %s is not supported by this CPU\n", bitonic_cpu_target_name(opt.target));
        return 2;
    }
    bitonic_cpu_target resolved = opt.target == BITONIC_CPU_TARGET_AUTO ? bitonic_cpu_best_target() : opt.target;
    // Hold vqsort to the same instruction set as ours when a target is forced.
    if (opt.target == BITONIC_CPU_TARGET_AVX2) hwy::SetSupportedTargetsForTest(HWY_AVX2 | HWY_SSE4);
    if (opt.target == BITONIC_CPU_TARGET_PORTABLE) hwy::SetSupportedTargetsForTest(HWY_SSE4);
    hwy::Sorter vq;
    bool all_ok = true;
    if (opt.scaling) {
        std::printf("Target %s; %s order; ours-mt threads=%u (0 = all cores); median of %d alternating runs.\n\n",
                    bitonic_cpu_target_name(resolved), opt.descending ? "descending" : "ascending", opt.threads,
                    opt.reps);
        all_ok = run_scaling(opt, vq);
        if (!all_ok) std::fprintf(stderr, "some results were WRONG\n");
        return all_ok ? 0 : 1;
    }

    if (opt.csv) {
        std::printf("order,shape,n,sorter,median_mkeys_per_s,best_mkeys_per_s,reps,verified\n");
    } else {
        std::printf("Target %s; %s order; ours-mt threads=%u (0 = all cores); M keys/s, median of %d runs; "
                    "ratios are ours-1t / peer.\n\n",
                    bitonic_cpu_target_name(resolved), opt.descending ? "descending" : "ascending", opt.threads,
                    opt.reps);
        std::printf("| shape | n |");
        for (int s = 0; s < SORTER_COUNT; s++) std::printf(" %s |", sorters[s].name);
        std::printf(" mt/1t | 1t/vqsort | 1t/pdqsort | 1t/std::sort | 1t/qsort |\n|---|--:|");
        for (int s = 0; s < SORTER_COUNT + 5; s++) std::printf("--:|");
        std::printf("\n");
    }

    for (const std::string &shape : opt.shapes) {
        for (int log = opt.min_log; log <= opt.max_log; log += opt.log_step) {
            size_t n = (size_t)1 << log;
            // At least 2^16 keys per timing, in separate inputs for small n.
            size_t batch = n >= ((size_t)1 << 16) ? 1 : ((size_t)1 << 16) / n;
            std::vector<uint32_t> inputs(n * batch), expected;
            for (size_t b = 0; b < batch; b++) fill(inputs.data() + b * n, n, shape);
            expected = inputs;
            for (size_t b = 0; b < batch; b++) {
                std::sort(expected.begin() + b * n, expected.begin() + (b + 1) * n);
                if (opt.descending) std::reverse(expected.begin() + b * n, expected.begin() + (b + 1) * n);
            }

            Result results[SORTER_COUNT];
            for (int s = 0; s < SORTER_COUNT; s++) {
                bool wanted = opt.only.empty() || std::find(opt.only.begin(), opt.only.end(),
                                                            std::string(sorters[s].name)) != opt.only.end();
                if (!wanted || (opt.skip_slow && sorters[s].slow && log > 20)) {
                    results[s].skipped = true;
                    continue;
                }
                results[s] = measure(s, inputs, expected, n, batch, opt, vq);
                all_ok &= results[s].ok;
            }
            if (opt.csv) {
                for (int s = 0; s < SORTER_COUNT; s++) {
                    if (results[s].skipped) continue;
                    std::printf("%s,%s,%zu,%s,%.2f,%.2f,%d,%s\n", opt.descending ? "desc" : "asc", shape.c_str(), n,
                                sorters[s].name,
                                results[s].median_mkeys, results[s].best_mkeys, results[s].reps,
                                results[s].ok ? "yes" : "NO");
                }
            } else {
                std::printf("| %s | 2^%d |", shape.c_str(), log);
                for (int s = 0; s < SORTER_COUNT; s++) {
                    if (results[s].skipped) std::printf(" - |");
                    else std::printf(" %.1f%s |", results[s].median_mkeys, results[s].ok ? "" : " WRONG");
                }
                double ours = results[OURS_1T].median_mkeys;
                if (results[OURS_1T].skipped || results[OURS_MT].skipped) std::printf(" - |");
                else std::printf(" %.2f |", results[OURS_MT].median_mkeys / ours);
                for (int s : {VQSORT, PDQSORT, STD_SORT, QSORT}) {
                    if (results[s].skipped || results[OURS_1T].skipped) std::printf(" - |");
                    else std::printf(" %.2f |", ours / results[s].median_mkeys);
                }
                std::printf("\n");
            }
            std::fflush(stdout);
        }
    }
    if (!all_ok) std::fprintf(stderr, "some results were WRONG\n");
    return all_ok ? 0 : 1;
}
