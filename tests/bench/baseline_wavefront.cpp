// The baseline the benchmarks compare with (scripts/bench): the plain tiled anti-diagonal
// wavefront with full-width 64-bit bitsets per row, column and diagonal, the scan starting at
// the highest low-water mark, no windows, no summaries, no symmetry, no output. Deliberately
// simple and independent of the library: the starting point README's benchmarks compare with
// (the schedule of src/DESIGN.md, section 2.1, without its windows).
//
// Usage: grundy_baseline N [THREADS [TILE]]  -> prints "N seconds checksum"
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

struct Bits {
    std::vector<uint64_t> w;
    uint64_t low = 0;
    void insert(uint64_t v) {
        w[v / 64] |= uint64_t{1} << (v % 64);
        while (w[low / 64] >> (low % 64) & 1) ++low;
    }
};

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: grundy_baseline N [THREADS [TILE]]\n");
        return 2;
    }
    const uint64_t n = std::strtoull(argv[1], nullptr, 10);
    const int threads = argc > 2 ? std::atoi(argv[2]) : omp_get_max_threads();
    const uint64_t tile = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 256;
    const uint64_t words = (2 * n) / 64 + 2;
    std::vector<Bits> rows(n), cols(n), diags(2 * n);
    for (auto* v : {&rows, &cols, &diags})
        for (auto& b : *v) b.w.assign(words, 0);
    const uint64_t tiles = (n + tile - 1) / tile;
    uint64_t checksum = 0;
    const auto start = std::chrono::steady_clock::now();
#pragma omp parallel num_threads(threads) reduction(+ : checksum)
    for (uint64_t s = 0; s + 1 < 2 * tiles; ++s) {
#pragma omp for schedule(dynamic, 1)
        for (uint64_t i = (s >= tiles ? s - tiles + 1 : 0); i <= std::min(s, tiles - 1); ++i) {
            const uint64_t j = s - i;
            for (uint64_t y = j * tile; y < std::min(n, j * tile + tile); ++y)
                for (uint64_t x = i * tile; x < std::min(n, i * tile + tile); ++x) {
                    Bits& r = rows[y];
                    Bits& c = cols[x];
                    Bits& d = diags[x + n - y];
                    uint64_t lo = std::max({r.low, c.low, d.low});
                    uint64_t k = lo / 64;
                    uint64_t taken = r.w[k] | c.w[k] | d.w[k] | ((uint64_t{1} << (lo % 64)) - 1);
                    while (taken == ~uint64_t{0}) {
                        ++k;
                        taken = r.w[k] | c.w[k] | d.w[k];
                    }
                    const uint64_t g = k * 64 + static_cast<uint64_t>(__builtin_ctzll(~taken));
                    r.insert(g);
                    c.insert(g);
                    d.insert(g);
                    checksum += g * (x + 1);
                }
        }
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("%llu %.3f %llu\n", static_cast<unsigned long long>(n), seconds,
                static_cast<unsigned long long>(checksum));
    return 0;
}
