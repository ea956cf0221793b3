// The mirror's byte planes (base::transpose_columns_to_planes) as a run makes them: a square
// tile of random two-byte values, strip of 16 columns by strip, with each code this CPU has
// (docs/benchmarks.md). One thread; the tile stays where the caches keep it between passes.
// Medians of five rounds, every code timed once a round.
//
// Usage: grundy_bench_planes [SIDE [PASSES]]   (default 512 and 2000)
//   -> a line per code: "CODE SIDE microseconds-per-tile"
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <random>
#include <vector>

#include "base/byte_planes.hpp"

namespace {

using grundy::base::PlanesCode;

// The microseconds a pass over the tile takes, over `passes` passes.
double time_code(PlanesCode code, const std::vector<uint32_t>& v, uint64_t side, long passes,
                 std::vector<uint8_t>& low, std::vector<uint8_t>& high) {
    const auto t0 = std::chrono::steady_clock::now();
    for (long p = 0; p < passes; ++p)
        for (uint64_t x = 0; x < side; x += 16)
            grundy::base::transpose_columns_to_planes(v.data(), side, side, x,
                                                      std::min(side, x + 16), low.data() + x * side,
                                                      high.data() + x * side, code);
    const std::chrono::duration<double, std::micro> t = std::chrono::steady_clock::now() - t0;
    return t.count() / static_cast<double>(passes);
}

long argument(int argc, char** argv, int i, long fallback) {
    if (argc <= i) return fallback;
    char* end = nullptr;
    const long n = std::strtol(argv[i], &end, 10);
    return *end == 0 && end != argv[i] ? n : -1;
}

}  // namespace

int main(int argc, char** argv) {
    const long side = argument(argc, argv, 1, 512), passes = argument(argc, argv, 2, 2000);
    if (argc > 3 || side < 16 || side > 4096 || passes < 1) {
        std::fprintf(stderr, "usage: grundy_bench_planes [SIDE (16..4096) [PASSES]]\n");
        return 2;
    }
    const auto n = static_cast<uint64_t>(side);
    std::vector<uint32_t> values(n * n);
    std::mt19937 rng(1);
    for (auto& v : values) v = rng() & 0xFFFF;
    std::vector<uint8_t> low(n * n), high(n * n);
    struct Code {
        const char* name;
        PlanesCode code;
        bool here;
    };
    const Code codes[] = {
        {"portable", PlanesCode::portable, true},
        {"avx2", PlanesCode::avx2, grundy::base::planes_transpose_has_avx2()},
        {"best", PlanesCode::best, true},
    };
    // Five rounds, each timing every code once, so that a slow spell of the machine falls on
    // all of them alike; the median of each.
    constexpr int kRounds = 5;
    std::vector<std::vector<double>> times(std::size(codes));
    for (int round = 0; round < kRounds; ++round)
        for (size_t k = 0; k < std::size(codes); ++k)
            if (codes[k].here)
                times[k].push_back(time_code(codes[k].code, values, n, passes, low, high));
    for (size_t k = 0; k < std::size(codes); ++k) {
        if (!codes[k].here) continue;
        std::sort(times[k].begin(), times[k].end());
        std::printf("%s %lu %.1f\n", codes[k].name, static_cast<unsigned long>(side),
                    times[k][kRounds / 2]);
    }
    return 0;
}
