// A program of someone else's, built against an installed grundy (tests/consumer/run.cmake),
// through the front door: every public header, none of which may need anything not installed.
#include <cstdio>
#include <grundy/grundy.hpp>

int main(int argc, char** argv) {
    grundy::EngineOptions options;
    options.rows = 64;
    options.cols = 96;
    grundy::MemoryTable table;  // the whole table in memory: small tables only
    grundy::compute_table(options, table);
    const unsigned row3[12] = {3, 4, 5, 6, 2, 0, 1, 9, 10, 12, 8, 7};  // g(x, 3), x = 0..11
    for (unsigned x = 0; x < 12; ++x)
        if (table(x, 3) != row3[x]) return std::printf("g(%u, 3) = %u\n", x, table(x, 3)), 1;
    if (table(8, 13) != 0 || table(13, 8) != 0 || table(25, 30) != table(30, 25)) return 1;
    if (argc > 1) {  // the same table through an HDF5 file, written and read back
        grundy::Hdf5Writer writer(grundy::Hdf5WriterOptions{.path = argv[1], .force = true});
        const grundy::EngineStats stats = grundy::compute_table(options, writer);
        writer.finish(stats);
        if (grundy::Hdf5TableReader(argv[1]).at(30, 25) != table(30, 25)) return 1;
    }
    std::printf("ok: g(30, 25) = %u\n", table(30, 25));
}
