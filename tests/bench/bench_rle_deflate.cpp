// The run-length deflate encoder (src/io/rle_deflate.cpp) against libdeflate's level 1 on what
// it is made for: the high byte planes of a table's 512 x 512 chunks, as `compute -o` writes
// them. One thread; CPU time of the encoding alone, each plane encoded `reps` times.
//
// Usage: grundy_bench_rle_deflate [N [REPS]]   (an N x N table, N a multiple of 512; 4096 20)
//   -> one line per encoder: its bytes, its CPU seconds and MB/s of input
#include <libdeflate.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

#include "grundy/engine.hpp"
#include "grundy/memory_table.hpp"
#include "io/rle_deflate.hpp"

namespace {

constexpr uint64_t kChunk = 512;

// Encodes every plane `reps` times with `encode` (returning the bytes written): the bytes of
// one round and the CPU seconds of all.
template <typename Encode>
void measure(const char* name, const std::vector<std::vector<uint8_t>>& planes, long reps,
             Encode encode) {
    size_t bytes = 0, input = 0;
    const std::clock_t t0 = std::clock();
    for (long r = 0; r < reps; ++r)
        for (const auto& p : planes) {
            const size_t n = encode(p);
            if (r == 0) bytes += n, input += p.size();
        }
    const double seconds = static_cast<double>(std::clock() - t0) / CLOCKS_PER_SEC;
    std::printf("%-22s %10zu bytes of %zu  %6.3f s  %6.0f MB/s\n", name, bytes, input, seconds,
                static_cast<double>(input) * static_cast<double>(reps) / seconds / 1e6);
}

}  // namespace

int main(int argc, char** argv) {
    char* end = nullptr;
    const unsigned long n = argc > 1 ? std::strtoul(argv[1], &end, 10) : 4096;
    const bool n_ok = argc <= 1 || (*end == 0 && n > 0 && n % kChunk == 0 && n <= 65536);
    const long reps = argc > 2 ? std::strtol(argv[2], &end, 10) : 20;
    if (!n_ok || (argc > 2 && (*end != 0 || reps < 1 || reps > 100000)) || argc > 3) {
        std::fprintf(stderr, "usage: grundy_bench_rle_deflate [N [REPS]] (N a multiple of 512)\n");
        return 2;
    }
    grundy::EngineOptions o;
    o.rows = o.cols = n;
    grundy::MemoryTable table;
    grundy::compute_table(o, table);
    std::vector<std::vector<uint8_t>> planes;
    for (uint64_t y0 = 0; y0 < n; y0 += kChunk)
        for (uint64_t x0 = 0; x0 < n; x0 += kChunk) {
            std::vector<uint8_t>& plane = planes.emplace_back();
            plane.reserve(kChunk * kChunk);
            for (uint64_t y = y0; y < y0 + kChunk; ++y)
                for (uint64_t x = x0; x < x0 + kChunk; ++x)
                    plane.push_back(static_cast<uint8_t>(table(x, y) >> 8));
        }
    std::vector<uint8_t> out;
    measure("rle_deflate", planes, reps, [&](const std::vector<uint8_t>& p) {
        out.clear();
        grundy::io::rle_deflate(p.data(), p.size(), out);
        return out.size();
    });
    libdeflate_compressor* c = libdeflate_alloc_compressor(1);
    out.resize(libdeflate_deflate_compress_bound(c, kChunk * kChunk));
    measure("libdeflate level 1", planes, reps, [&](const std::vector<uint8_t>& p) {
        return libdeflate_deflate_compress(c, p.data(), p.size(), out.data(), out.size());
    });
    libdeflate_free_compressor(c);
    return 0;
}
