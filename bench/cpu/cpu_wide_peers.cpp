// cpu_wide_peers.cpp: the peers of the CPU path's wide sorts, on one thread, on
// the inputs bitonic_cpu_types_bench sorts (the same generator and seed):
// Highway's vqsort (u32, u64 and f64 keys; pairs of 32-bit keys packed into
// u64 words, the way vqsort 1.0 sorts them; pairs of 64-bit keys as K64V64)
// and std::sort / std::stable_sort (keys, and pairs as structs compared by key).
//
//   bitonic_cpu_wide_peers <min log> <max log>
//
// Prints `peer type log2(n) cpu_ms`, the least of 3 sorts in thread CPU time
// (below 2^16, of the mean of 2^16/n sorts), with the type names of
// bitonic_cpu_types_bench, so the two outputs join on (type, n). Packing and
// unpacking the pairs is in vqsort's time, as it is in ours. Each result is
// checked against the input's order. C++ only because the peers are C++.
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#include <hwy/contrib/sort/vqsort.h>

namespace {

double thread_cpu_ms() {
    timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

uint64_t next_random(uint64_t *state) {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

struct Pair32 {
    uint32_t key, value;
};
struct Pair64 {
    uint64_t key;
    uint32_t value;
};

struct Inputs {
    std::vector<uint64_t> words;
    std::vector<double> doubles;
};

// One peer on one type: fill(shift) prepares an input, sort() sorts it,
// check() says whether it came out in order.
struct Case {
    const char *peer, *type;
    std::function<void(size_t count, size_t shift)> fill;
    std::function<void(size_t count)> sort;
    std::function<bool(size_t count)> check;
};

void time_case(const Case &c, int log) {
    size_t count = (size_t)1 << log, spare = (size_t)1 << 16, batch = count < spare ? spare / count : 1;
    double best = 1e300;
    for (int repeat = 0; repeat < 3; repeat++) {
        double total = 0;
        for (size_t b = 0; b < batch; b++) {
            c.fill(count, b);
            double start = thread_cpu_ms();
            c.sort(count);
            total += thread_cpu_ms() - start;
            if (!c.check(count)) {
                std::fprintf(stderr, "%s %s 2^%d: wrong result\n", c.peer, c.type, log);
                std::exit(1);
            }
        }
        best = std::min(best, total / (double)batch);
    }
    std::printf("%s %s %d %.4f\n", c.peer, c.type, log, best);
}

} // namespace

int main(int argc, char **argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s <min log> <max log>\n", argv[0]);
        return 2;
    }
    int min_log = std::atoi(argv[1]), max_log = std::atoi(argv[2]);
    if (min_log < 1 || max_log < min_log || max_log > 28) {
        std::fprintf(stderr, "logs must satisfy 1 <= min <= max <= 28\n");
        return 2;
    }
    size_t most = (size_t)1 << max_log, spare = (size_t)1 << 16;
    Inputs in;
    in.words.resize(most + spare);
    in.doubles.resize(most + spare);
    uint64_t state = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < most + spare; i++) {
        in.words[i] = next_random(&state);
        in.doubles[i] = (double)(int64_t)in.words[i] * 1e-9;
    }
    std::vector<uint32_t> keys32(most), values(most);
    std::vector<uint64_t> keys64(most), packed(most);
    std::vector<double> doubles(most);
    std::vector<Pair32> pairs32(most);
    std::vector<Pair64> pairs64(most);
    std::vector<hwy::K64V64> kv64(most);
    hwy::Sorter sorter;

    auto fill32 = [&](size_t n, size_t shift) {
        for (size_t i = 0; i < n; i++) {
            keys32[i] = (uint32_t)(in.words[i + shift] >> 32);
            values[i] = (uint32_t)i;
        }
    };
    auto fill_pairs32 = [&](size_t n, size_t shift) {
        for (size_t i = 0; i < n; i++)
            pairs32[i] = Pair32{(uint32_t)(in.words[i + shift] >> 32), (uint32_t)i};
    };
    auto fill_pairs64 = [&](size_t n, size_t shift) {
        for (size_t i = 0; i < n; i++)
            pairs64[i] = Pair64{in.words[i + shift], (uint32_t)i};
    };
    auto ordered32 = [&](size_t n) { return std::is_sorted(keys32.begin(), keys32.begin() + n); };
    auto ordered64 = [&](size_t n) { return std::is_sorted(keys64.begin(), keys64.begin() + n); };
    auto ordered_doubles = [&](size_t n) { return std::is_sorted(doubles.begin(), doubles.begin() + n); };
    auto ordered_pairs32 = [&](size_t n) {
        return std::is_sorted(pairs32.begin(), pairs32.begin() + n,
                              [](const Pair32 &a, const Pair32 &b) { return a.key < b.key; });
    };
    auto ordered_pairs64 = [&](size_t n) {
        return std::is_sorted(pairs64.begin(), pairs64.begin() + n,
                              [](const Pair64 &a, const Pair64 &b) { return a.key < b.key; });
    };
    // Pairs of 32-bit keys as vqsort 1.0 sorts them: packed into words, sorted, unpacked.
    auto vqsort_pairs32 = [&](size_t n) {
        for (size_t i = 0; i < n; i++)
            packed[i] = (uint64_t)keys32[i] << 32 | values[i];
        sorter(packed.data(), n, hwy::SortAscending());
        for (size_t i = 0; i < n; i++) {
            keys32[i] = (uint32_t)(packed[i] >> 32);
            values[i] = (uint32_t)packed[i];
        }
    };
    const Case cases[] = {
        {"vqsort", "u32", fill32, [&](size_t n) { sorter(keys32.data(), n, hwy::SortAscending()); }, ordered32},
        {"vqsort", "u64",
         [&](size_t n, size_t shift) { std::memcpy(keys64.data(), in.words.data() + shift, n * 8); },
         [&](size_t n) { sorter(keys64.data(), n, hwy::SortAscending()); }, ordered64},
        {"vqsort", "f64",
         [&](size_t n, size_t shift) { std::memcpy(doubles.data(), in.doubles.data() + shift, n * 8); },
         [&](size_t n) { sorter(doubles.data(), n, hwy::SortAscending()); }, ordered_doubles},
        {"vqsort", "pairs", fill32, vqsort_pairs32, ordered32},
        {"vqsort", "pairs64",
         [&](size_t n, size_t shift) {
             for (size_t i = 0; i < n; i++) {
                 kv64[i].key = in.words[i + shift];
                 kv64[i].value = i;
             }
         },
         [&](size_t n) { sorter(kv64.data(), n, hwy::SortAscending()); },
         [&](size_t n) {
             for (size_t i = 1; i < n; i++)
                 if (kv64[i - 1].key > kv64[i].key)
                     return false;
             return true;
         }},
        {"std::sort", "u32", fill32, [&](size_t n) { std::sort(keys32.begin(), keys32.begin() + n); }, ordered32},
        {"std::sort", "u64",
         [&](size_t n, size_t shift) { std::memcpy(keys64.data(), in.words.data() + shift, n * 8); },
         [&](size_t n) { std::sort(keys64.begin(), keys64.begin() + n); }, ordered64},
        {"std::sort", "f64",
         [&](size_t n, size_t shift) { std::memcpy(doubles.data(), in.doubles.data() + shift, n * 8); },
         [&](size_t n) { std::sort(doubles.begin(), doubles.begin() + n); }, ordered_doubles},
        {"std::sort", "pairs", fill_pairs32,
         [&](size_t n) {
             std::sort(pairs32.begin(), pairs32.begin() + n,
                       [](const Pair32 &a, const Pair32 &b) { return a.key < b.key; });
         },
         ordered_pairs32},
        {"std::stable_sort", "stable", fill_pairs32,
         [&](size_t n) {
             std::stable_sort(pairs32.begin(), pairs32.begin() + n,
                              [](const Pair32 &a, const Pair32 &b) { return a.key < b.key; });
         },
         ordered_pairs32},
        {"std::sort", "pairs64", fill_pairs64,
         [&](size_t n) {
             std::sort(pairs64.begin(), pairs64.begin() + n,
                       [](const Pair64 &a, const Pair64 &b) { return a.key < b.key; });
         },
         ordered_pairs64},
    };
    for (int log = min_log; log <= max_log; log++)
        for (const Case &c : cases)
            time_case(c, log);
    return 0;
}
