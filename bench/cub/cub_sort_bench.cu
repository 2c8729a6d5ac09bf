// cub_sort_bench.cu: times NVIDIA CUB's sorts on the GPU, the peer we measure bitonic against.
//
// For each key type and size it draws fresh random keys on the host, uploads them, and times
// cub::DeviceRadixSort and cub::DeviceMergeSort (plus a device-to-device copy of the same bytes,
// the bandwidth floor) with CUDA events around the sort call alone. Every run's output is checked
// on the GPU against a CPU-sorted reference, and the last timed run's output is also checked on
// the host, so a wrong sort can never be reported as a fast one. It prints a table, or with --csv
// lines of `impl,type,n,median_ms,min_ms,runs,verified`, the same columns `bitonic bench --csv`
// prints, so bench/report/compare.py can put both side by side. Exit status: 0 all verified,
// 1 some output was wrong, 2 a CUDA error or bad arguments.
//
// Build: bench/cub/build.sh (or the CMake target cub_sort_bench). Run with --help for options.

#include <cub/device/device_merge_sort.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/version.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#define CUDA_CHECK(call)                                                                      \
  do {                                                                                        \
    cudaError_t cuda_check_err_ = (call);                                                     \
    if (cuda_check_err_ != cudaSuccess) {                                                     \
      std::fprintf(stderr, "cub_sort_bench: CUDA error at %s:%d: %s returned %s (%s)\n",     \
                   __FILE__, __LINE__, #call, cudaGetErrorName(cuda_check_err_),              \
                   cudaGetErrorString(cuda_check_err_));                                      \
      std::exit(2);                                                                           \
    }                                                                                         \
  } while (0)

// After a kernel launch: a bad configuration shows up here, a fault at the next synchronisation.
#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())

namespace {

// ---------------------------------------------------------------------------------------------
// Options

enum Impl { IMPL_RADIX = 1, IMPL_MERGE = 2, IMPL_COPY = 4 };

struct Options {
  std::vector<std::string> types{"u32", "pairs", "u64", "f32"};
  std::vector<long long> sizes;  // filled from --sizes, or from the log range
  bool sizes_given = false;
  int min_log = 10;
  int max_log = 28;
  bool non_pow2 = true;  // add 2^k+1 and 3*2^(k-1) between the powers of two
  int runs = 10;
  int warmup = 2;
  bool csv = false;
  bool flush_l2 = false;
  unsigned impls = IMPL_RADIX | IMPL_MERGE | IMPL_COPY;
  uint64_t seed = 0x5eed0b170b1c5eedull;
  int device = 0;
  bool list_sizes = false;
  bool host_self_test = false;
  bool corrupt = false;  // damage each output before checking it, to prove the checks can fail
};

const int kMinRuns = 10;

void print_usage(FILE* out) {
  std::fprintf(out,
      "usage: cub_sort_bench [options]\n"
      "  --types LIST      key types, from u32,pairs,u64,f32 (default: all four)\n"
      "                    pairs = u32 keys with u32 values (the values are original indices)\n"
      "  --sizes LIST      explicit sizes, e.g. 1024,2^20,2^20+1,3*2^19 (overrides the range)\n"
      "  --min-log K       smallest power of two of the range (default 10)\n"
      "  --max-log K       largest power of two of the range (default 28)\n"
      "  --non-pow2        also 2^k+1 and 1.5*2^k (k < max) in the range (the default)\n"
      "  --pow2-only       only the powers of two of the range\n"
      "  --impls LIST      from cub_radix,cub_merge,d2d_copy (default: all three)\n"
      "  --runs N          timed runs per size, at least %d (default 10); median and min reported\n"
      "  --warmup N        untimed runs first (default 2)\n"
      "  --flush-l2        overwrite a buffer twice the L2 size before each timed run\n"
      "                    (default off: the input was just copied, so it may sit in L2)\n"
      "  --seed S          base seed of the key generator (default fixed)\n"
      "  --device D        CUDA device ordinal (default 0)\n"
      "  --csv             print impl,type,n,median_ms,min_ms,runs,verified lines\n"
      "  --list-sizes      print the sizes that would run and exit (needs no GPU)\n"
      "  --host-self-test  check the host generator and reference sort and exit (needs no GPU)\n"
      "  --corrupt         damage each output before it is checked: every result must then\n"
      "                    show verified=0 and the exit status must be 1 (tests the checks)\n"
      "Times are GPU times from CUDA events around the sort call alone; temporary storage is\n"
      "allocated once beforehand and the input is copied into the working buffer before each\n"
      "run, outside the timing. d2d_copy copies the n keys (and n values for pairs).\n",
      kMinRuns);
}

[[noreturn]] void usage_error(const char* message, const char* argument) {
  std::fprintf(stderr, "cub_sort_bench: %s%s%s\n", message, argument ? ": " : "",
               argument ? argument : "");
  std::fprintf(stderr, "run cub_sort_bench --help for the options\n");
  std::exit(2);
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    if (comma > start) items.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return items;
}

// Parses "1000", "2^20", "3*2^19", "2^20+1", "2^20-1". Returns -1 when it is none of those.
long long parse_size(const std::string& text) {
  size_t sign = text.find_first_of("+-", 1);
  std::string product = text.substr(0, sign);
  long long offset = 0;
  if (sign != std::string::npos) {
    char* end = nullptr;
    offset = std::strtoll(text.c_str() + sign + 1, &end, 10);
    if (end == text.c_str() + sign + 1 || *end != '\0') return -1;
    if (text[sign] == '-') offset = -offset;
  }
  long long value = 1;
  for (const std::string& factor : [&] {
         std::vector<std::string> factors;
         size_t start = 0;
         for (;;) {
           size_t star = product.find('*', start);
           factors.push_back(product.substr(start, star - start));
           if (star == std::string::npos) break;
           start = star + 1;
         }
         return factors;
       }()) {
    if (factor.empty()) return -1;
    char* end = nullptr;
    long long number;
    if (factor.compare(0, 2, "2^") == 0) {
      long long exponent = std::strtoll(factor.c_str() + 2, &end, 10);
      if (end == factor.c_str() + 2 || *end != '\0' || exponent < 0 || exponent > 40) return -1;
      number = 1LL << exponent;
    } else {
      number = std::strtoll(factor.c_str(), &end, 10);
      if (end == factor.c_str() || *end != '\0' || number < 0) return -1;
    }
    if (number != 0 && value > (1LL << 50) / number) return -1;
    value *= number;
  }
  value += offset;
  return value;
}

int parse_int(const char* text, const char* option) {
  char* end = nullptr;
  long value = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || value < 0 || value > INT_MAX) usage_error("bad number", option);
  return static_cast<int>(value);
}

// Powers of two from 2^min_log to 2^max_log; with non_pow2 also 2^k+1 (just past a power of two,
// where a padding sort is slowest) and 3*2^(k-1) = 1.5*2^k (half way to the next power, so only
// for k < max_log).
std::vector<long long> range_sizes(int min_log, int max_log, bool non_pow2) {
  std::vector<long long> sizes;
  for (int k = min_log; k <= max_log; ++k) {
    sizes.push_back(1LL << k);
    if (non_pow2) sizes.push_back((1LL << k) + 1);
    if (non_pow2 && k < max_log) sizes.push_back(3LL << (k - 1));
  }
  std::sort(sizes.begin(), sizes.end());
  return sizes;
}

Options parse_options(int argc, char** argv) {
  Options options;
  bool range_given = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) usage_error("missing value after", argv[i]);
      return argv[++i];
    };
    if (arg == "--help" || arg == "-h") {
      print_usage(stdout);
      std::exit(0);
    } else if (arg == "--types") {
      options.types = split_list(value());
      for (const std::string& type : options.types)
        if (type != "u32" && type != "pairs" && type != "u64" && type != "f32")
          usage_error("unknown type (want u32, pairs, u64 or f32)", type.c_str());
    } else if (arg == "--sizes") {
      options.sizes_given = true;
      for (const std::string& item : split_list(value())) {
        long long size = parse_size(item);
        if (size < 1 || size > INT_MAX) usage_error("bad size (want 1 .. 2^31-1)", item.c_str());
        options.sizes.push_back(size);
      }
    } else if (arg == "--min-log") {
      options.min_log = parse_int(value(), "--min-log");
      range_given = true;
    } else if (arg == "--max-log") {
      options.max_log = parse_int(value(), "--max-log");
      range_given = true;
    } else if (arg == "--non-pow2") {
      options.non_pow2 = true;
    } else if (arg == "--pow2-only") {
      options.non_pow2 = false;
    } else if (arg == "--impls") {
      options.impls = 0;
      for (const std::string& impl : split_list(value())) {
        if (impl == "cub_radix") options.impls |= IMPL_RADIX;
        else if (impl == "cub_merge") options.impls |= IMPL_MERGE;
        else if (impl == "d2d_copy") options.impls |= IMPL_COPY;
        else usage_error("unknown impl (want cub_radix, cub_merge or d2d_copy)", impl.c_str());
      }
    } else if (arg == "--runs") {
      options.runs = parse_int(value(), "--runs");
    } else if (arg == "--warmup") {
      options.warmup = parse_int(value(), "--warmup");
    } else if (arg == "--seed") {
      const char* text = value();
      char* end = nullptr;
      options.seed = std::strtoull(text, &end, 0);
      if (end == text || *end != '\0') usage_error("bad seed", text);
    } else if (arg == "--device") {
      options.device = parse_int(value(), "--device");
    } else if (arg == "--csv") {
      options.csv = true;
    } else if (arg == "--flush-l2") {
      options.flush_l2 = true;
    } else if (arg == "--list-sizes") {
      options.list_sizes = true;
    } else if (arg == "--host-self-test") {
      options.host_self_test = true;
    } else if (arg == "--corrupt") {
      options.corrupt = true;
    } else {
      usage_error("unknown option", arg.c_str());
    }
  }
  if (options.runs < kMinRuns) usage_error("--runs must be at least 10", nullptr);
  if (options.types.empty()) usage_error("--types is empty", nullptr);
  if (options.impls == 0) usage_error("--impls is empty", nullptr);
  if (options.sizes_given && range_given)
    usage_error("give either --sizes or --min-log/--max-log, not both", nullptr);
  if (!options.sizes_given) {
    if (options.min_log > options.max_log || options.max_log > 30)
      usage_error("want --min-log <= --max-log <= 30", nullptr);
    options.sizes = range_sizes(options.min_log, options.max_log, options.non_pow2);
  }
  if (options.sizes.empty()) usage_error("no sizes", nullptr);
  return options;
}

// ---------------------------------------------------------------------------------------------
// Host side: key generation and the reference sort, both spread over the host's cores so that a
// full sweep is not dominated by std::sort of 2^28 keys.

unsigned host_threads() {
  unsigned count = std::thread::hardware_concurrency();
  return std::max(1u, std::min(count, 64u));
}

// Calls body(begin, end) on `threads` contiguous slices of [0, n) at once.
template <typename Body>
void parallel_for(size_t n, unsigned threads, Body body) {
  if (threads <= 1 || n < (1u << 16)) {
    body(size_t{0}, n);
    return;
  }
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < threads; ++t) {
    size_t begin = n * t / threads, end = n * (t + 1) / threads;
    workers.emplace_back([=] { body(begin, end); });
  }
  for (std::thread& worker : workers) worker.join();
}

// The first i in [0, n) for which bad(i) holds, or n; slices are scanned at once.
template <typename Bad>
size_t parallel_find(size_t n, unsigned threads, Bad bad) {
  std::atomic<size_t> first{n};
  parallel_for(n, threads, [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      if (!bad(i)) continue;
      size_t current = first.load();
      while (i < current && !first.compare_exchange_weak(current, i)) {
      }
      return;
    }
  });
  return first.load();
}

// Host memory for n elements, pinned when the system allows (faster, truly asynchronous copies).
template <typename T>
class HostBuffer {
 public:
  HostBuffer() = default;
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;
  ~HostBuffer() { release(); }

  void allocate(size_t n) {
    release();
    if (cudaMallocHost(&data_, n * sizeof(T)) == cudaSuccess) {
      pinned_ = true;
      return;
    }
    (void)cudaGetLastError();
    data_ = static_cast<T*>(std::malloc(n * sizeof(T)));
    if (!data_) {
      std::fprintf(stderr, "cub_sort_bench: out of host memory for %zu elements\n", n);
      std::exit(2);
    }
  }
  T* get() const { return data_; }
  T& operator[](size_t i) const { return data_[i]; }

 private:
  void release() {
    if (data_ && pinned_) CUDA_CHECK(cudaFreeHost(data_));
    if (data_ && !pinned_) std::free(data_);
    data_ = nullptr;
    pinned_ = false;
  }
  T* data_ = nullptr;
  bool pinned_ = false;
};

// splitmix64 evaluated at a position, so any slice of the stream can be drawn independently.
inline uint64_t splitmix64_at(uint64_t seed, uint64_t index) {
  uint64_t z = seed + (index + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

inline void key_from_bits(uint64_t bits, uint32_t* key) { *key = static_cast<uint32_t>(bits >> 32); }
inline void key_from_bits(uint64_t bits, uint64_t* key) { *key = bits; }
// Uniform over bit patterns of finite floats: both signs, every exponent, zeros and subnormals.
// An all-ones exponent (infinity or NaN) is turned into the largest finite exponent.
inline void key_from_bits(uint64_t bits, float* key) {
  uint32_t pattern = static_cast<uint32_t>(bits >> 32);
  if (((pattern >> 23) & 0xFFu) == 0xFFu) pattern ^= 1u << 23;
  std::memcpy(key, &pattern, sizeof pattern);
}

template <typename Key>
void generate_keys(Key* keys, size_t n, uint64_t seed, unsigned threads) {
  parallel_for(n, threads, [=](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) key_from_bits(splitmix64_at(seed, i), &keys[i]);
  });
}

// How many of the first `k` outputs of merging sorted a[0, a_size) and b[0, b_size) come from a:
// the smallest i with a[i] >= b[k-i-1] (the "merge path" split), so that merging a[0, i) with
// b[0, k-i) and the rest separately gives the same sorted sequence.
template <typename Key>
size_t merge_split(const Key* a, size_t a_size, const Key* b, size_t b_size, size_t k) {
  size_t low = k > b_size ? k - b_size : 0, high = std::min(k, a_size);
  while (low < high) {
    size_t i = low + (high - low) / 2;
    if (a[i] < b[k - i - 1]) low = i + 1;
    else high = i;
  }
  return low;
}

// std::sort on slices in parallel, then rounds of pairwise merges; each merge is itself cut into
// parts by merge_split so that every round keeps all threads busy. `scratch` holds n keys.
template <typename Key>
void reference_sort(Key* keys, size_t n, Key* scratch, unsigned threads) {
  size_t slices = 1;
  while (slices * 2 <= threads && n / (slices * 2) >= (1u << 16)) slices *= 2;
  if (slices == 1) {
    std::sort(keys, keys + n);
    return;
  }
  std::vector<size_t> bounds(slices + 1);
  for (size_t s = 0; s <= slices; ++s) bounds[s] = n * s / slices;
  std::vector<std::thread> workers;
  for (size_t s = 0; s < slices; ++s)
    workers.emplace_back([=, &bounds] { std::sort(keys + bounds[s], keys + bounds[s + 1]); });
  for (std::thread& worker : workers) worker.join();
  Key* from = keys;
  Key* to = scratch;
  for (size_t width = 1; width < slices; width *= 2) {
    size_t merges = slices / (2 * width);
    size_t parts = std::max<size_t>(1, threads / merges);
    workers.clear();
    for (size_t s = 0; s < slices; s += 2 * width) {
      const Key* a = from + bounds[s];
      const Key* b = from + bounds[s + width];
      size_t a_size = bounds[s + width] - bounds[s], b_size = bounds[s + 2 * width] - bounds[s + width];
      Key* out = to + bounds[s];
      for (size_t part = 0; part < parts; ++part) {
        workers.emplace_back([=] {
          size_t total = a_size + b_size;
          size_t k0 = total * part / parts, k1 = total * (part + 1) / parts;
          size_t i0 = merge_split(a, a_size, b, b_size, k0);
          size_t i1 = merge_split(a, a_size, b, b_size, k1);
          std::merge(a + i0, a + i1, b + (k0 - i0), b + (k1 - i1), out + k0);
        });
      }
    }
    for (std::thread& worker : workers) worker.join();
    std::swap(from, to);
  }
  if (from != keys) {
    parallel_for(n, threads, [=](size_t begin, size_t end) {
      std::copy(from + begin, from + end, keys + begin);
    });
  }
}

template <typename Key>
bool keys_sorted(const Key* keys, size_t n) {
  for (size_t i = 1; i < n; ++i)
    if (keys[i] < keys[i - 1]) return false;
  return true;
}

// Checks the generator and the reference sort against plain std::sort; no GPU needed.
template <typename Key>
bool host_self_test_type(const char* name, unsigned threads) {
  bool ok = true;
  const size_t sizes[] = {1, 2, 1000, (1u << 16) + 1, 3u << 19, (1u << 22) + 7};
  for (size_t n : sizes) {
    for (bool few_values : {false, true}) {
      std::vector<Key> keys(n), scratch(n);
      generate_keys(keys.data(), n, 12345 + n, threads);
      if (few_values)  // only 7 distinct keys: the merge splits must handle ties
        for (size_t i = 7; i < n; ++i) keys[i] = keys[i % 7];
      std::vector<Key> expected(keys);
      std::sort(expected.begin(), expected.end());
      for (unsigned thread_count : {1u, 3u, 8u, threads}) {
        std::vector<Key> sorted(keys);
        reference_sort(sorted.data(), n, scratch.data(), thread_count);
        bool same = std::equal(sorted.begin(), sorted.end(), expected.begin(),
                               [](Key a, Key b) { return !(a < b) && !(b < a); });
        if (!same || !keys_sorted(sorted.data(), n)) {
          std::fprintf(stderr, "host self-test: %s n=%zu%s, %u threads: reference sort differs "
                       "from std::sort\n", name, n, few_values ? " (7 distinct keys)" : "",
                       thread_count);
          ok = false;
        }
      }
    }
  }
  return ok;
}

bool host_self_test() {
  unsigned threads = host_threads();
  bool ok = host_self_test_type<uint32_t>("u32", threads) &&
            host_self_test_type<uint64_t>("u64", threads) &&
            host_self_test_type<float>("f32", threads);
  // The float generator must give finite keys of both signs over a wide range of magnitudes.
  const size_t n = 1u << 20;
  std::vector<float> keys(n);
  generate_keys(keys.data(), n, 99, threads);
  size_t negative = 0, not_finite = 0, tiny = 0, huge = 0;
  for (float key : keys) {
    negative += key < 0;
    not_finite += !std::isfinite(key);
    tiny += std::fabs(key) < 1e-30f;
    huge += std::fabs(key) > 1e30f;
  }
  if (not_finite || negative < n / 3 || negative > 2 * n / 3 || tiny == 0 || huge == 0) {
    std::fprintf(stderr, "host self-test: f32 generator: %zu negative, %zu not finite, "
                 "%zu below 1e-30, %zu above 1e30 of %zu\n", negative, not_finite, tiny, huge, n);
    ok = false;
  }
  // Fresh data for each size: two seeds must give different keys.
  std::vector<uint32_t> first(1000), second(1000);
  generate_keys(first.data(), 1000, 1, 1);
  generate_keys(second.data(), 1000, 2, 1);
  if (first == second) {
    std::fprintf(stderr, "host self-test: different seeds gave the same keys\n");
    ok = false;
  }
  std::fprintf(stderr, "host self-test (%u threads): %s\n", threads, ok ? "passed" : "FAILED");
  return ok;
}

// ---------------------------------------------------------------------------------------------
// Device side: the comparison CUB's merge sort needs, and the checking kernels.

struct LessThan {
  template <typename Key>
  __host__ __device__ bool operator()(const Key& a, const Key& b) const { return a < b; }
};

// Counts positions where got differs from want. For floats `==` treats -0 and +0 as equal, as
// the reference (std::sort with <) cannot order them.
template <typename Key>
__global__ void count_key_mismatches(const Key* got, const Key* want, size_t n,
                                     unsigned long long* mismatches) {
  unsigned long long local = 0;
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n;
       i += size_t{gridDim.x} * blockDim.x)
    local += !(got[i] == want[i]);
  if (local) atomicAdd(mismatches, local);
}

// For sorted pairs whose values were the original indices: keys must match the reference,
// each value must point at an input key equal to its key, and the values must be a permutation
// (each index stamped exactly once; count_unstamped finds the ones no value named).
__global__ void check_pairs(const uint32_t* keys, const uint32_t* values, const uint32_t* want_keys,
                            const uint32_t* input_keys, size_t n, uint32_t* seen, uint32_t stamp,
                            unsigned long long* mismatches) {
  unsigned long long local = 0;
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n;
       i += size_t{gridDim.x} * blockDim.x) {
    uint32_t value = values[i];
    if (keys[i] != want_keys[i] || value >= n || input_keys[value] != keys[i]) {
      ++local;
    } else {
      seen[value] = stamp;
    }
  }
  if (local) atomicAdd(mismatches, local);
}

__global__ void count_unstamped(const uint32_t* seen, size_t n, uint32_t stamp,
                                unsigned long long* mismatches) {
  unsigned long long local = 0;
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n;
       i += size_t{gridDim.x} * blockDim.x)
    local += seen[i] != stamp;
  if (local) atomicAdd(mismatches, local);
}

__global__ void fill_indices(uint32_t* values, size_t n) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n;
       i += size_t{gridDim.x} * blockDim.x)
    values[i] = static_cast<uint32_t>(i);
}

// The same width as Key, compared bit for bit (for checking a copy).
template <typename Key>
using Bits = typename std::conditional<sizeof(Key) == 4, uint32_t, uint64_t>::type;

// ---------------------------------------------------------------------------------------------
// One GPU, its stream, events and scratch shared by every type.

struct Gpu {
  cudaDeviceProp props{};
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  unsigned long long* d_mismatches = nullptr;
  unsigned long long* h_mismatches = nullptr;  // pinned
  void* d_flush = nullptr;                     // for --flush-l2
  size_t flush_bytes = 0;
  uint32_t stamp = 0;

  unsigned grid_for(size_t n) const {
    size_t blocks = (n + 255) / 256;
    size_t limit = size_t(props.multiProcessorCount) * 8;
    return static_cast<unsigned>(std::max<size_t>(1, std::min(blocks, limit)));
  }

  // Copies on the benchmark stream, so they are ordered with its work, and waits for them.
  void copy_and_wait(void* destination, const void* source, size_t bytes) {
    CUDA_CHECK(cudaMemcpyAsync(destination, source, bytes, cudaMemcpyDefault, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  void begin_check() { CUDA_CHECK(cudaMemsetAsync(d_mismatches, 0, sizeof *d_mismatches, stream)); }

  unsigned long long end_check() {
    CUDA_CHECK(cudaMemcpyAsync(h_mismatches, d_mismatches, sizeof *d_mismatches,
                               cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    return *h_mismatches;
  }
};

// ---------------------------------------------------------------------------------------------
// Timing and reporting

struct Result {
  double median_ms = 0, min_ms = 0;
  int runs = 0;
  bool verified = false;
};

// Runs prepare (untimed), then run between two events, warmup + runs times; checks each output
// on the GPU with check_on_device and the last one on the host with check_on_host.
template <typename Prepare, typename Run, typename CheckDevice, typename CheckHost>
Result time_runs(const Options& options, Gpu& gpu, Prepare prepare, Run run,
                 CheckDevice check_on_device, CheckHost check_on_host, const char* what) {
  std::vector<float> times;
  unsigned long long bad_runs = 0;
  for (int i = 0; i < options.warmup + options.runs; ++i) {
    prepare();
    if (options.flush_l2) {
      CUDA_CHECK(cudaMemsetAsync(gpu.d_flush, i & 0xFF, gpu.flush_bytes, gpu.stream));
    }
    CUDA_CHECK(cudaEventRecord(gpu.start, gpu.stream));
    run();
    CUDA_CHECK(cudaEventRecord(gpu.stop, gpu.stream));
    CUDA_CHECK(cudaEventSynchronize(gpu.stop));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, gpu.start, gpu.stop));
    if (i >= options.warmup) times.push_back(ms);
    unsigned long long mismatches = check_on_device();
    if (mismatches) {
      std::fprintf(stderr, "cub_sort_bench: WRONG OUTPUT: %s run %d: %llu mismatches\n", what, i,
                   mismatches);
      ++bad_runs;
    }
  }
  bool host_ok = check_on_host();
  if (!host_ok) std::fprintf(stderr, "cub_sort_bench: WRONG OUTPUT: %s: host check failed\n", what);

  Result result;
  std::sort(times.begin(), times.end());
  size_t count = times.size();
  result.median_ms = count % 2 ? times[count / 2] : 0.5 * (times[count / 2 - 1] + times[count / 2]);
  result.min_ms = times.front();
  result.runs = static_cast<int>(count);
  result.verified = bad_runs == 0 && host_ok;
  return result;
}

void print_header(const Options& options) {
  if (options.csv) {
    std::printf("impl,type,n,median_ms,min_ms,runs,verified\n");
  } else {
    std::printf("%-10s %-6s %11s %11s %11s %9s %5s %8s\n", "impl", "type", "n", "median_ms",
                "min_ms", "Gkeys/s", "runs", "verified");
  }
  std::fflush(stdout);
}

void print_result(const Options& options, const char* impl, const char* type, size_t n,
                  const Result& result) {
  if (options.csv) {
    std::printf("%s,%s,%zu,%.6f,%.6f,%d,%d\n", impl, type, n, result.median_ms, result.min_ms,
                result.runs, result.verified ? 1 : 0);
  } else {
    double keys_per_s = result.median_ms > 0 ? n / (result.median_ms * 1e-3) / 1e9 : 0;
    std::printf("%-10s %-6s %11zu %11.4f %11.4f %9.2f %5d %8s\n", impl, type, n, result.median_ms,
                result.min_ms, keys_per_s, result.runs, result.verified ? "yes" : "NO");
  }
  std::fflush(stdout);
}

// ---------------------------------------------------------------------------------------------
// One key type: buffers sized once for the largest size that fits, then every size in turn.

template <typename Key, bool kPairs>
struct TypeBench {
  const Options& options;
  Gpu& gpu;
  const char* type_name;
  uint64_t type_seed;
  unsigned threads = host_threads();

  size_t capacity = 0;  // keys the buffers below hold
  Key* d_input_keys = nullptr;  // pristine input, kept for the whole size
  Key* d_work_keys = nullptr;   // a fresh copy before each run (merge sort sorts it in place)
  Key* d_out_keys = nullptr;    // radix sort and copy output
  Key* d_want_keys = nullptr;   // the CPU reference
  uint32_t* d_input_values = nullptr;
  uint32_t* d_work_values = nullptr;
  uint32_t* d_out_values = nullptr;
  uint32_t* d_seen = nullptr;
  void* d_temp = nullptr;
  size_t temp_bytes = 0;

  HostBuffer<Key> h_input, h_want, h_out;
  HostBuffer<uint32_t> h_out_values;

  // Where a sweep's wall time goes, printed at the end of each type.
  struct {
    double generate = 0, reference_sort = 0, upload = 0, gpu_runs = 0, host_checks = 0;
  } seconds;

  TypeBench(const Options& o, Gpu& g, const char* name, uint64_t seed)
      : options(o), gpu(g), type_name(name), type_seed(seed) {}
  ~TypeBench() { free_device(); }

  size_t radix_temp_bytes(size_t n) const {
    size_t bytes = 0;
    int count = static_cast<int>(n);
    if constexpr (kPairs) {
      CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, d_work_keys, d_out_keys,
                                                 d_work_values, d_out_values, count, 0,
                                                 int(sizeof(Key) * 8), gpu.stream));
    } else {
      CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, bytes, d_work_keys, d_out_keys, count, 0,
                                                int(sizeof(Key) * 8), gpu.stream));
    }
    return bytes;
  }

  size_t merge_temp_bytes(size_t n) const {
    size_t bytes = 0;
    int count = static_cast<int>(n);
    if constexpr (kPairs) {
      CUDA_CHECK(cub::DeviceMergeSort::SortPairs(nullptr, bytes, d_work_keys, d_work_values, count,
                                                 LessThan{}, gpu.stream));
    } else {
      CUDA_CHECK(cub::DeviceMergeSort::SortKeys(nullptr, bytes, d_work_keys, count, LessThan{},
                                                gpu.stream));
    }
    return bytes;
  }

  size_t temp_bytes_for(size_t n) const {
    size_t bytes = 0;
    if (options.impls & IMPL_RADIX) bytes = std::max(bytes, radix_temp_bytes(n));
    if (options.impls & IMPL_MERGE) bytes = std::max(bytes, merge_temp_bytes(n));
    return std::max<size_t>(bytes, 1);
  }

  size_t device_bytes_for(size_t n) const {
    size_t per_key = 4 * sizeof(Key) + (kPairs ? 4 * sizeof(uint32_t) : 0);
    return n * per_key + temp_bytes_for(n);
  }

  void free_device() {
    void* buffers[] = {d_input_keys, d_work_keys, d_out_keys, d_want_keys, d_input_values,
                       d_work_values, d_out_values, d_seen, d_temp};
    for (void* buffer : buffers)
      if (buffer) CUDA_CHECK(cudaFree(buffer));
    d_input_keys = d_work_keys = d_out_keys = d_want_keys = nullptr;
    d_input_values = d_work_values = d_out_values = d_seen = nullptr;
    d_temp = nullptr;
    capacity = 0;
    temp_bytes = 0;
  }

  // cudaMalloc that reports running out of memory instead of exiting.
  static bool try_malloc(void** pointer, size_t bytes) {
    cudaError_t err = cudaMalloc(pointer, bytes);
    if (err == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();  // not sticky; clear it
      *pointer = nullptr;
      return false;
    }
    CUDA_CHECK(err);
    return true;
  }

  bool try_allocate(size_t n) {
    size_t key_bytes = n * sizeof(Key), value_bytes = n * sizeof(uint32_t);
    size_t temp = temp_bytes_for(n);
    bool ok = try_malloc((void**)&d_input_keys, key_bytes) &&
              try_malloc((void**)&d_work_keys, key_bytes) &&
              try_malloc((void**)&d_out_keys, key_bytes) &&
              try_malloc((void**)&d_want_keys, key_bytes) && try_malloc(&d_temp, temp);
    if (kPairs && ok) {
      ok = try_malloc((void**)&d_input_values, value_bytes) &&
           try_malloc((void**)&d_work_values, value_bytes) &&
           try_malloc((void**)&d_out_values, value_bytes) &&
           try_malloc((void**)&d_seen, value_bytes);
      if (ok) CUDA_CHECK(cudaMemset(d_seen, 0, value_bytes));  // no stamp is 0
    }
    if (!ok) {
      free_device();
      return false;
    }
    capacity = n;
    temp_bytes = temp;
    return true;
  }

  // Allocates once for the largest listed size that fits in free device memory.
  void allocate(const std::vector<long long>& sizes) {
    size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    size_t margin = (256u << 20) + free_bytes / 50;
    std::vector<long long> candidates(sizes);
    std::sort(candidates.rbegin(), candidates.rend());
    for (long long n : candidates) {
      if (device_bytes_for(n) + margin > free_bytes) continue;
      if (try_allocate(n)) break;
    }
    if (capacity) {
      h_input.allocate(capacity);
      h_want.allocate(capacity);
      h_out.allocate(capacity);
      if constexpr (kPairs) h_out_values.allocate(capacity);
    }
  }

  void grow_temp(size_t bytes) {
    if (bytes <= temp_bytes) return;
    CUDA_CHECK(cudaFree(d_temp));
    CUDA_CHECK(cudaMalloc(&d_temp, bytes));
    temp_bytes = bytes;
  }

  // Fresh keys for this size, their reference order on the host and on the device.
  void prepare_input(size_t n) {
    uint64_t seed = splitmix64_at(type_seed, n);
    Key* input = h_input.get();
    Key* want = h_want.get();
    add_seconds(seconds.generate, [&] {
      generate_keys(input, n, seed, threads);
      parallel_for(n, threads, [=](size_t begin, size_t end) {
        std::copy(input + begin, input + end, want + begin);
      });
    });
    add_seconds(seconds.reference_sort, [&] { reference_sort(want, n, h_out.get(), threads); });
    add_seconds(seconds.upload, [&] {
      gpu.copy_and_wait(d_input_keys, input, n * sizeof(Key));
      gpu.copy_and_wait(d_want_keys, want, n * sizeof(Key));
      if constexpr (kPairs) {
        fill_indices<<<gpu.grid_for(n), 256, 0, gpu.stream>>>(d_input_values, n);
        CUDA_CHECK_LAUNCH();
        CUDA_CHECK(cudaStreamSynchronize(gpu.stream));
      }
    });
  }

  template <typename Work>
  static void add_seconds(double& total, Work work) {
    auto start = std::chrono::steady_clock::now();
    work();
    total += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  void copy_input_to_work(size_t n) {
    CUDA_CHECK(cudaMemcpyAsync(d_work_keys, d_input_keys, n * sizeof(Key),
                               cudaMemcpyDeviceToDevice, gpu.stream));
    if constexpr (kPairs)
      CUDA_CHECK(cudaMemcpyAsync(d_work_values, d_input_values, n * sizeof(uint32_t),
                                 cudaMemcpyDeviceToDevice, gpu.stream));
  }

  // So that an element the sort never wrote cannot pass as right.
  void poison_output(size_t n) {
    CUDA_CHECK(cudaMemsetAsync(d_out_keys, 0xA5, n * sizeof(Key), gpu.stream));
    if constexpr (kPairs)
      CUDA_CHECK(cudaMemsetAsync(d_out_values, 0xA5, n * sizeof(uint32_t), gpu.stream));
  }

  // For --corrupt: copies the last element over the first (a value for pairs, so that the
  // permutation check is the one that must notice).
  void corrupt_output(Key* keys, uint32_t* values, size_t n) {
    if (!options.corrupt || n < 2) return;
    if constexpr (kPairs) {
      CUDA_CHECK(cudaMemcpyAsync(values, values + n - 1, sizeof *values, cudaMemcpyDeviceToDevice,
                                 gpu.stream));
    } else {
      CUDA_CHECK(cudaMemcpyAsync(keys, keys + n - 1, sizeof *keys, cudaMemcpyDeviceToDevice,
                                 gpu.stream));
    }
  }

  unsigned long long check_sorted_on_device(Key* keys, uint32_t* values, size_t n) {
    corrupt_output(keys, values, n);
    gpu.begin_check();
    unsigned grid = gpu.grid_for(n);
    if constexpr (kPairs) {
      uint32_t stamp = ++gpu.stamp;
      check_pairs<<<grid, 256, 0, gpu.stream>>>(
          reinterpret_cast<const uint32_t*>(keys), values,
          reinterpret_cast<const uint32_t*>(d_want_keys),
          reinterpret_cast<const uint32_t*>(d_input_keys), n, d_seen, stamp, gpu.d_mismatches);
      CUDA_CHECK_LAUNCH();
      count_unstamped<<<grid, 256, 0, gpu.stream>>>(d_seen, n, stamp, gpu.d_mismatches);
      CUDA_CHECK_LAUNCH();
    } else {
      count_key_mismatches<<<grid, 256, 0, gpu.stream>>>(keys, d_want_keys, n, gpu.d_mismatches);
      CUDA_CHECK_LAUNCH();
    }
    return gpu.end_check();
  }

  // The same checks again on the host, independent of the checking kernels above.
  bool check_sorted_on_host(const Key* keys, const uint32_t* values, size_t n) {
    bool ok = true;
    add_seconds(seconds.host_checks, [&] {
      gpu.copy_and_wait(h_out.get(), keys, n * sizeof(Key));
      const Key* got = h_out.get();
      const Key* want = h_want.get();
      size_t bad = parallel_find(n, threads, [=](size_t i) { return !(got[i] == want[i]); });
      if (bad < n) {
        std::fprintf(stderr, "cub_sort_bench: %s n=%zu: first wrong key at %zu\n", type_name, n,
                     bad);
        ok = false;
      } else if constexpr (kPairs) {
        ok = check_values_on_host(got, values, n);
      }
    });
    return ok;
  }

  // Each value names the input position its key came from, and each position appears once.
  bool check_values_on_host(const Key* got, const uint32_t* values, size_t n) {
    gpu.copy_and_wait(h_out_values.get(), values, n * sizeof(uint32_t));
    const uint32_t* value = h_out_values.get();
    const Key* input = h_input.get();
    std::unique_ptr<std::atomic<uint8_t>[]> seen(new std::atomic<uint8_t>[n]);
    parallel_for(n, threads, [&](size_t begin, size_t end) {
      for (size_t i = begin; i < end; ++i) seen[i].store(0, std::memory_order_relaxed);
    });
    size_t bad = parallel_find(n, threads, [&](size_t i) {
      if (value[i] >= n || !(input[value[i]] == got[i])) return true;
      seen[value[i]].store(1, std::memory_order_relaxed);
      return false;
    });
    if (bad == n)
      bad = parallel_find(n, threads,
                          [&](size_t i) { return seen[i].load(std::memory_order_relaxed) == 0; });
    if (bad < n)
      std::fprintf(stderr, "cub_sort_bench: %s n=%zu: values are not a permutation matching the "
                   "keys (at %zu)\n", type_name, n, bad);
    return bad == n;
  }

  unsigned long long check_copy_on_device(size_t n) {
    corrupt_output(d_out_keys, d_out_values, n);
    gpu.begin_check();
    unsigned grid = gpu.grid_for(n);
    count_key_mismatches<<<grid, 256, 0, gpu.stream>>>(
        reinterpret_cast<const Bits<Key>*>(d_out_keys),
        reinterpret_cast<const Bits<Key>*>(d_input_keys), n, gpu.d_mismatches);
    CUDA_CHECK_LAUNCH();
    if constexpr (kPairs) {
      count_key_mismatches<<<grid, 256, 0, gpu.stream>>>(d_out_values, d_input_values, n,
                                                          gpu.d_mismatches);
      CUDA_CHECK_LAUNCH();
    }
    return gpu.end_check();
  }

  bool check_copy_on_host(size_t n) {
    bool ok = true;
    add_seconds(seconds.host_checks, [&] {
      gpu.copy_and_wait(h_out.get(), d_out_keys, n * sizeof(Key));
      const Key* got = h_out.get();
      const Key* input = h_input.get();
      ok = parallel_find(n, threads, [=](size_t i) {
             return std::memcmp(&got[i], &input[i], sizeof(Key)) != 0;
           }) == n;
    });
    return ok;
  }

  std::string label(const char* impl, size_t n) const {
    return std::string(impl) + " " + type_name + " n=" + std::to_string(n);
  }

  Result bench_radix(size_t n) {
    grow_temp(radix_temp_bytes(n));
    int count = static_cast<int>(n);
    int end_bit = int(sizeof(Key) * 8);
    return time_runs(
        options, gpu,
        [&] {
          copy_input_to_work(n);
          poison_output(n);
        },
        [&] {
          size_t bytes = temp_bytes;
          if constexpr (kPairs) {
            CUDA_CHECK(cub::DeviceRadixSort::SortPairs(d_temp, bytes, d_work_keys, d_out_keys,
                                                       d_work_values, d_out_values, count, 0,
                                                       end_bit, gpu.stream));
          } else {
            CUDA_CHECK(cub::DeviceRadixSort::SortKeys(d_temp, bytes, d_work_keys, d_out_keys,
                                                      count, 0, end_bit, gpu.stream));
          }
        },
        [&] { return check_sorted_on_device(d_out_keys, d_out_values, n); },
        [&] { return check_sorted_on_host(d_out_keys, d_out_values, n); },
        label("cub_radix", n).c_str());
  }

  Result bench_merge(size_t n) {
    grow_temp(merge_temp_bytes(n));
    int count = static_cast<int>(n);
    return time_runs(
        options, gpu, [&] { copy_input_to_work(n); },
        [&] {
          size_t bytes = temp_bytes;
          if constexpr (kPairs) {
            CUDA_CHECK(cub::DeviceMergeSort::SortPairs(d_temp, bytes, d_work_keys, d_work_values,
                                                       count, LessThan{}, gpu.stream));
          } else {
            CUDA_CHECK(cub::DeviceMergeSort::SortKeys(d_temp, bytes, d_work_keys, count,
                                                      LessThan{}, gpu.stream));
          }
        },
        [&] { return check_sorted_on_device(d_work_keys, d_work_values, n); },
        [&] { return check_sorted_on_host(d_work_keys, d_work_values, n); },
        label("cub_merge", n).c_str());
  }

  Result bench_copy(size_t n) {
    return time_runs(
        options, gpu, [&] { poison_output(n); },
        [&] {
          CUDA_CHECK(cudaMemcpyAsync(d_out_keys, d_input_keys, n * sizeof(Key),
                                     cudaMemcpyDeviceToDevice, gpu.stream));
          if constexpr (kPairs)
            CUDA_CHECK(cudaMemcpyAsync(d_out_values, d_input_values, n * sizeof(uint32_t),
                                       cudaMemcpyDeviceToDevice, gpu.stream));
        },
        [&] { return check_copy_on_device(n); }, [&] { return check_copy_on_host(n); },
        label("d2d_copy", n).c_str());
  }

  // Returns the number of results that failed verification.
  int run_all() {
    allocate(options.sizes);
    int failures = 0;
    for (long long size : options.sizes) {
      size_t n = static_cast<size_t>(size);
      if (n > capacity) {
        std::fprintf(stderr, "cub_sort_bench: skipping %s n=%zu: does not fit in GPU memory "
                     "(needs about %.2f GB)\n", type_name, n, device_bytes_for(n) / 1e9);
        continue;
      }
      prepare_input(n);
      struct {
        unsigned impl;
        const char* name;
        Result (TypeBench::*bench)(size_t);
      } const impls[] = {{IMPL_COPY, "d2d_copy", &TypeBench::bench_copy},
                         {IMPL_RADIX, "cub_radix", &TypeBench::bench_radix},
                         {IMPL_MERGE, "cub_merge", &TypeBench::bench_merge}};
      for (const auto& impl : impls) {
        if (!(options.impls & impl.impl)) continue;
        Result result;
        add_seconds(seconds.gpu_runs, [&] { result = (this->*impl.bench)(n); });
        if (!result.verified) {
          std::fprintf(stderr, "cub_sort_bench: FAILED verification: %s %s n=%zu\n", impl.name,
                       type_name, n);
          ++failures;
        }
        print_result(options, impl.name, type_name, n, result);
      }
    }
    std::fprintf(stderr, "# %s: %.1f s: generate %.1f, reference sort %.1f, upload %.1f, "
                 "GPU runs and checks %.1f (of which host checks %.1f)\n", type_name,
                 seconds.generate + seconds.reference_sort + seconds.upload + seconds.gpu_runs,
                 seconds.generate, seconds.reference_sort, seconds.upload, seconds.gpu_runs,
                 seconds.host_checks);
    return failures;
  }
};

void setup_gpu(const Options& options, Gpu& gpu) {
  CUDA_CHECK(cudaSetDevice(options.device));
  CUDA_CHECK(cudaGetDeviceProperties(&gpu.props, options.device));
  CUDA_CHECK(cudaStreamCreateWithFlags(&gpu.stream, cudaStreamNonBlocking));
  CUDA_CHECK(cudaEventCreate(&gpu.start));
  CUDA_CHECK(cudaEventCreate(&gpu.stop));
  CUDA_CHECK(cudaMalloc(&gpu.d_mismatches, sizeof *gpu.d_mismatches));
  CUDA_CHECK(cudaMallocHost(&gpu.h_mismatches, sizeof *gpu.h_mismatches));
  if (options.flush_l2) {
    gpu.flush_bytes = std::max<size_t>(2 * size_t(gpu.props.l2CacheSize), 64u << 20);
    CUDA_CHECK(cudaMalloc(&gpu.d_flush, gpu.flush_bytes));
  }
  int driver = 0, runtime = 0;
  CUDA_CHECK(cudaDriverGetVersion(&driver));
  CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  std::fprintf(stderr,
               "# cub_sort_bench: %s, %d SMs, compute %d.%d, L2 %d MiB, %.1f GiB; driver %d, "
               "runtime %d, CUB %d; runs %d after %d warm-up, L2 flush %s, %u host threads\n",
               gpu.props.name, gpu.props.multiProcessorCount, gpu.props.major, gpu.props.minor,
               gpu.props.l2CacheSize >> 20, gpu.props.totalGlobalMem / 1073741824.0, driver,
               runtime, CUB_VERSION, options.runs, options.warmup, options.flush_l2 ? "on" : "off",
               host_threads());
}

void teardown_gpu(Gpu& gpu) {
  CUDA_CHECK(cudaFree(gpu.d_flush));
  CUDA_CHECK(cudaFree(gpu.d_mismatches));
  CUDA_CHECK(cudaFreeHost(gpu.h_mismatches));
  CUDA_CHECK(cudaEventDestroy(gpu.start));
  CUDA_CHECK(cudaEventDestroy(gpu.stop));
  CUDA_CHECK(cudaStreamDestroy(gpu.stream));
}

}  // namespace

int main(int argc, char** argv) {
  Options options = parse_options(argc, argv);
  if (options.list_sizes) {
    for (long long n : options.sizes) std::printf("%lld\n", n);
    return 0;
  }
  if (options.host_self_test) return host_self_test() ? 0 : 1;

  auto started = std::chrono::steady_clock::now();
  Gpu gpu;
  setup_gpu(options, gpu);
  print_header(options);
  int failures = 0;
  for (const std::string& type : options.types) {
    // Each type gets its own seed so that u32 and f32 keys are not the same bits.
    uint64_t tag = type == "u32" ? 1 : type == "pairs" ? 2 : type == "u64" ? 3 : 4;
    uint64_t seed = splitmix64_at(options.seed, tag << 40);
    if (type == "u32") failures += TypeBench<uint32_t, false>(options, gpu, "u32", seed).run_all();
    if (type == "pairs") failures += TypeBench<uint32_t, true>(options, gpu, "pairs", seed).run_all();
    if (type == "u64") failures += TypeBench<uint64_t, false>(options, gpu, "u64", seed).run_all();
    if (type == "f32") failures += TypeBench<float, false>(options, gpu, "f32", seed).run_all();
  }
  teardown_gpu(gpu);
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (failures) {
    std::fprintf(stderr, "cub_sort_bench: FAILED: %d results did not verify (%.1f s)\n", failures,
                 seconds);
    return 1;
  }
  std::fprintf(stderr, "# cub_sort_bench: all results verified (%.1f s)\n", seconds);
  return 0;
}
