// The analysis passes against published values (the Wythoff pairs), independent computations
// (direct mex, exact inequalities), deliberately corrupted tables and bad files; the row periods
// are test_analysis_periods.cpp's. CLI behaviour (exit statuses, CSV, JSON, /analysis) is in
// test_analysis_cli.cpp.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "analysis/passes.hpp"
#include "grundy/analysis.hpp"
#include "grundy/error.hpp"
#include "grundy/hdf5_reader.hpp"
#include "grundy/memory_table.hpp"
#include "grundy/play.hpp"
#include "play/exact_sqrt.hpp"
#include "support/analysis_fixtures.hpp"
#include "support/reference.hpp"

namespace grundy {
namespace {

using namespace testing;  // tests/support: scratch directories, the CLI, tables

// bits_from against a bit-by-bit reading, offsets negative, inside and past the bitset.
TEST(AnalysisVerify, BitsFromReadsSixtyFourBitsAtAnyOffset) {
    std::mt19937_64 rng(5);
    const std::vector<uint64_t> bits = {rng(), rng(), rng(), ~uint64_t{0}, 0, rng()};
    const int64_t n = static_cast<int64_t>(bits.size());
    for (int64_t o = -200; o < 64 * n + 200; ++o) {
        uint64_t expected = 0;
        for (int64_t j = 0; j < 64; ++j) {
            const int64_t i = o + j;
            if (i >= 0 && i < 64 * n && (bits[static_cast<size_t>(i / 64)] >> (i % 64) & 1))
                expected |= uint64_t{1} << j;
        }
        ASSERT_EQ(analysis::bits_from(bits.data(), bits.size(), o), expected) << "offset " << o;
    }
}

// verify's sets skip full words by their summary bits: after every insert, in random order
// and with values below the stored words (a diagonal's late low values), each summary bit
// must say exactly whether its word is full, and every word must hold what was inserted.
TEST(AnalysisVerify, LineSetSummaryFollowsItsWords) {
    std::mt19937_64 rng(11);
    for (int round = 0; round < 20; ++round) {
        analysis::LineSet set;
        std::vector<char> in(4096, 0);
        const uint64_t offset = rng() % 3 * 1000;  // values from here: first() above base()
        std::vector<uint64_t> order(in.size());
        for (uint64_t v = 0; v < order.size(); ++v) order[v] = v;
        // Mostly ascending with local shuffles, as along a row: the low words fill and drop.
        for (uint64_t v = 0; v + 1 < order.size(); ++v)
            if (rng() % 3 == 0)
                std::swap(order[v], order[std::min<uint64_t>(order.size() - 1, v + rng() % 300)]);
        for (uint64_t step = 0; step < order.size(); ++step) {
            const uint64_t v = offset + order[step];
            EXPECT_TRUE(set.insert(v));
            in[order[step]] = 1;
            if (step % 97 != 0 && step + 1 != order.size()) continue;
            for (uint64_t w = set.base(); w < (offset + in.size()) / 64 + 2; w += 7) {
                const uint64_t full = set.full_from(w);
                for (uint64_t j = 0; j < 64; ++j)
                    ASSERT_EQ((full >> j) & 1, set.word(w + j) == ~uint64_t{0} ? 1u : 0u)
                        << "round " << round << " step " << step << " word " << w + j;
            }
            for (uint64_t u = 0; u < in.size(); u += 13)
                ASSERT_EQ(set.contains(offset + u), in[u] != 0 || offset + u < 64 * set.base());
        }
        EXPECT_EQ(set.mex(), offset == 0 ? in.size() : 0u);  // 0 .. offset - 1 never went in
    }
}

TEST(AnalysisVerify, CorrectTableIsAccepted) {
    ScratchDir dir;
    const std::string path = dir.file("t.h5");
    write_table(path, 300, 400, 64);  // several bands, edge chunks
    const Hdf5TableReader table(path);
    for (int threads : {1, 2}) {
        const VerifyReport r = verify_table(table, threads);
        EXPECT_TRUE(r.ok()) << (r.wrong ? r.wrong->describe() : "");
        EXPECT_EQ(r.cells_checked, 300u * 400u);
    }
    EXPECT_TRUE(verify_sample(table, 300, 7).ok());
}

TEST(AnalysisVerify, OneCorruptedCellIsNamed) {
    ScratchDir dir;
    const std::string path = dir.file("t.h5");
    write_table(path, 300, 400, 64);
    const uint32_t original = Hdf5TableReader(path).at(150, 97);
    corrupt_cell(path, 150, 97, original + 1);
    const Hdf5TableReader table(path);
    for (int threads : {1, 2}) {
        const VerifyReport r = verify_table(table, threads);
        ASSERT_FALSE(r.ok());
        EXPECT_EQ(r.wrong->x, 150u);
        EXPECT_EQ(r.wrong->y, 97u);
        EXPECT_EQ(r.wrong->found, original + 1);
        EXPECT_EQ(r.wrong->expected, original);
        EXPECT_NE(r.wrong->describe().find("(150, 97)"), std::string::npos);
    }
}

// Above the diagonal, cells whose mirror is in the table are checked against it, the others
// by their mex: a wrong cell is named either way, in a wide and in a tall table, and a cell
// that is wrong alike with its mirror is found at the mirror (the proof by symmetry holds).
TEST(AnalysisVerify, CellsAboveTheDiagonal) {
    ScratchDir dir;
    struct Case {
        uint64_t rows, cols, x, y;  // x < y: above the diagonal
    };
    for (const Case c :
         {Case{300, 400, 97, 150}, Case{400, 300, 97, 150}, Case{400, 300, 100, 350}}) {
        SCOPED_TRACE(std::to_string(c.rows) + " x " + std::to_string(c.cols));
        const std::string path = dir.file("t.h5");
        write_table(path, c.rows, c.cols, 64);
        const uint32_t original = Hdf5TableReader(path).at(c.x, c.y);
        corrupt_cell(path, c.x, c.y, original + 1);
        for (int threads : {1, 2}) {
            const VerifyReport r = verify_table(Hdf5TableReader(path), threads);
            ASSERT_FALSE(r.ok());
            EXPECT_EQ(r.wrong->x, c.x);
            EXPECT_EQ(r.wrong->y, c.y);
            EXPECT_EQ(r.wrong->found, original + 1);
            EXPECT_EQ(r.wrong->expected, original);
        }
    }
    const std::string path = dir.file("pair.h5");
    write_table(path, 300, 400, 64);
    const uint32_t original = Hdf5TableReader(path).at(150, 97);
    corrupt_cell(path, 150, 97, original + 1);
    corrupt_cell(path, 97, 150, original + 1);
    for (int threads : {1, 2}) {
        const VerifyReport r = verify_table(Hdf5TableReader(path), threads);
        ASSERT_FALSE(r.ok());
        EXPECT_EQ(r.wrong->x, 150u);
        EXPECT_EQ(r.wrong->y, 97u);
        EXPECT_EQ(r.wrong->expected, original);
    }
    // A pair beyond the bound g <= x + y is named at once, above the diagonal, by a direct mex.
    const std::string huge = dir.file("huge.h5");
    write_table(huge, 20, 30, 16);
    const uint32_t small = Hdf5TableReader(huge).at(11, 19);
    corrupt_cell(huge, 11, 19, 60000);
    corrupt_cell(huge, 19, 11, 60000);
    const VerifyReport r = verify_table(Hdf5TableReader(huge), 2);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.wrong->x, 11u);
    EXPECT_EQ(r.wrong->y, 19u);
    EXPECT_EQ(r.wrong->found, 60000u);
    EXPECT_EQ(r.wrong->expected, small);
}

TEST(AnalysisVerify, HugeWrongValueAndSampling) {
    ScratchDir dir;
    const std::string path = dir.file("t.h5");
    write_table(path, 20, 30, 16);
    const uint32_t original = Hdf5TableReader(path).at(23, 11);
    corrupt_cell(path, 23, 11, 60000);
    const Hdf5TableReader table(path);
    const VerifyReport full = verify_table(table, 2);
    ASSERT_FALSE(full.ok());
    EXPECT_EQ(full.wrong->x, 23u);
    EXPECT_EQ(full.wrong->y, 11u);
    EXPECT_EQ(full.wrong->found, 60000u);
    EXPECT_EQ(full.wrong->expected, original);
    // 12000 samples over 600 cells miss a given one with probability e^-20.
    const VerifyReport sampled = verify_sample(table, 12000, 3);
    ASSERT_FALSE(sampled.ok());
    EXPECT_EQ(sampled.wrong->x, 23u);
    EXPECT_EQ(sampled.wrong->y, 11u);
    EXPECT_EQ(sampled.wrong->expected, original);
}

TEST(AnalysisPPositions, IsqrtIsExact) {
    for (uint64_t v = 0; v < 100000; ++v) {
        const uint64_t r = isqrt128(v);
        ASSERT_LE(r * r, v);
        ASSERT_GT((r + 1) * (r + 1), v);
    }
    std::mt19937_64 rng(11);
    for (int i = 0; i < 20000; ++i) {
        const uint128 v = (static_cast<uint128>(rng()) << 64 | rng()) >> (rng() % 64);
        const uint128 r = isqrt128(v);
        ASSERT_LE(r * r, v);
        ASSERT_GT((r + 1) * (r + 1), v);
    }
    EXPECT_EQ(isqrt128(~static_cast<uint128>(0)), ~uint64_t{0});
}

// a_n = floor(n phi): OEIS A000201, and for large n the exact characterisation
// (2a - n)^2 < 5 n^2 < (2a - n + 2)^2, which follows from 2a <= n + n sqrt 5 < 2a + 2.
TEST(AnalysisPPositions, LowerWythoffSequence) {
    const uint64_t oeis[] = {0, 1, 3, 4, 6, 8, 9, 11, 12, 14, 16, 17, 19, 21, 22, 24, 25, 27, 29};
    for (uint64_t n = 0; n < std::size(oeis); ++n) EXPECT_EQ(wythoff_a(n), oeis[n]);
    std::mt19937_64 rng(5);
    for (int i = 0; i < 20000; ++i) {
        const uint64_t n = 1 + rng() % (uint64_t{1} << 48);
        const uint128 a = wythoff_a(n), five = 5 * static_cast<uint128>(n) * n;
        ASSERT_LT((2 * a - n) * (2 * a - n), five) << n;
        ASSERT_GT((2 * a - n + 2) * (2 * a - n + 2), five) << n;
    }
}

TEST(AnalysisPPositions, ZerosMatchAndDisagreementIsNamed) {
    ScratchDir dir;
    const std::string path = dir.file("t.h5");
    write_table(path, 90, 300, 64);
    const auto direct = testing::direct_mex_table(90, 300);
    const uint64_t zeros = static_cast<uint64_t>(std::count(direct.begin(), direct.end(), 0u));
    const PPositionReport good = check_ppositions(Hdf5TableReader(path));
    EXPECT_TRUE(good.ok()) << good.first_disagreement.value_or("");
    EXPECT_EQ(good.zeros, zeros);
    EXPECT_EQ(good.expected, zeros);

    corrupt_cell(path, 200, 70, 0);
    const PPositionReport bad = check_ppositions(Hdf5TableReader(path));
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.first_disagreement->find("(200, 70) holds 0"), std::string::npos)
        << *bad.first_disagreement;
}

TEST(AnalysisProperties, CorrectTableHasAll) {
    ScratchDir dir;
    const std::string path = dir.file("t.h5");
    write_table(path, 150, 333, 32);
    const PropertiesReport r = check_properties(Hdf5TableReader(path), 2);
    for (const auto& c : r.checks)
        EXPECT_FALSE(c.first_violation) << c.name << ": " << *c.first_violation;
    EXPECT_EQ(r.checks.size(), 6u);
}

TEST(AnalysisProperties, CorruptedCellBreaksThem) {
    ScratchDir dir;
    const std::string path = dir.file("t.h5");
    write_table(path, 300, 400, 64);
    const uint32_t left = Hdf5TableReader(path).at(149, 97);
    const uint32_t original = Hdf5TableReader(path).at(150, 97);
    corrupt_cell(path, 150, 97, left);  // now twice in row 97; (97, 150) is unchanged
    const PropertiesReport r = check_properties(Hdf5TableReader(path), 2);
    EXPECT_FALSE(r.ok());
    const auto sym = find_check(r, "symmetry");
    ASSERT_TRUE(sym.first_violation);
    EXPECT_EQ(*sym.first_violation, "(150, 97) holds " + std::to_string(left) +
                                        " but (97, 150) holds " + std::to_string(original));
    const auto rows = find_check(r, "distinct_rows");
    ASSERT_TRUE(rows.first_violation);
    EXPECT_NE(rows.first_violation->find("twice in row 97"), std::string::npos);

    corrupt_cell(path, 10, 200, 5000);  // far above x + y
    const auto bounds = find_check(check_properties(Hdf5TableReader(path), 1), "bounds");
    ASSERT_TRUE(bounds.first_violation);
    EXPECT_NE(bounds.first_violation->find("(10, 200) holds 5000"), std::string::npos);
}

// A row is checked in two sets, one for its even cells and one for its odd ones: a repeat must
// be found, and named at its second cell, whether its two cells share a set or not.
TEST(AnalysisProperties, RowRepeatsOfEitherParityAreNamed) {
    ScratchDir dir;
    const std::string clean = dir.file("clean.h5");
    write_table(clean, 300, 400, 64);
    const uint32_t v = Hdf5TableReader(clean).at(150, 97);
    for (uint64_t d : {1u, 2u, 3u, 40u}) {
        const std::string path = dir.file(std::to_string(d) + ".h5");
        std::filesystem::copy_file(clean, path);
        corrupt_cell(path, 150 + d, 97, v);
        const auto rows = find_check(check_properties(Hdf5TableReader(path), 1), "distinct_rows");
        ASSERT_TRUE(rows.first_violation) << d;
        std::string expected = "value " + std::to_string(v) + " twice in row 97 (again at (";
        expected += std::to_string(150 + d) + ", 97))";
        EXPECT_EQ(*rows.first_violation, expected);
    }
}

// Where rows <= cols the pass leaves the columns x < rows and the diagonals x < y to symmetry.
// That may stand only on a table where every check passes: a repeat in a left-out column must
// still be named at its own cell, here one made symmetric (the same wrong value at (150, 97)
// and (97, 150)), so the symmetry check passes and only the row repeat shows. Also each
// corruption below gives exactly the report of the full checks, and tall tables (rows > cols)
// are checked in full.
TEST(AnalysisProperties, ShortcutBySymmetryStandsOnlyOnCorrectTables) {
    ScratchDir dir;
    const std::string path = dir.file("t.h5");
    write_table(path, 300, 400, 64);
    const PropertiesReport fine = check_properties(Hdf5TableReader(path), 2);
    EXPECT_TRUE(fine.ok()) << properties_text(fine);
    EXPECT_NE(fine.method.find("by symmetry"), std::string::npos) << fine.method;
    EXPECT_EQ(properties_text(fine),
              properties_text(analysis::check_properties(Hdf5TableReader(path), 2, false)));

    const uint32_t left = Hdf5TableReader(path).at(149, 97);
    corrupt_cell(path, 150, 97, left);
    corrupt_cell(path, 97, 150, left);
    const PropertiesReport r = check_properties(Hdf5TableReader(path), 2);
    EXPECT_FALSE(find_check(r, "symmetry").first_violation);
    const auto cols = find_check(r, "distinct_columns");
    ASSERT_TRUE(cols.first_violation);
    std::ostringstream expected;
    expected << "value " << left << " twice in column 97 (again at (97, 150))";
    EXPECT_EQ(*cols.first_violation, expected.str());
    EXPECT_EQ(r.method, "every row, column and diagonal set checked");

    std::mt19937_64 random(7);
    for (int i = 0; i < 6; ++i) {
        const std::string copy = dir.file(std::to_string(i) + ".h5");
        write_table(copy, 130, 200, 32);
        const uint32_t x = random() % 200, y = random() % 130, sx = random() % 200,
                       sy = random() % 130;
        const uint32_t value = Hdf5TableReader(copy).at(sx, sy);
        corrupt_cell(copy, x, y, value);
        if (i % 2 && x < 130 && y < 200) corrupt_cell(copy, y, x, value);
        for (int threads : {1, 2})
            EXPECT_EQ(
                properties_text(check_properties(Hdf5TableReader(copy), threads)),
                properties_text(analysis::check_properties(Hdf5TableReader(copy), threads, false)))
                << "(" << x << ", " << y << ") := " << value;
    }

    const std::string tall = dir.file("tall.h5");
    write_table(tall, 200, 130, 32);
    const PropertiesReport t = check_properties(Hdf5TableReader(tall), 2);
    EXPECT_TRUE(t.ok()) << properties_text(t);
    EXPECT_EQ(t.method, "every row, column and diagonal set checked");
}

// The row-band stream meets a column and a diagonal across bands (chunks of 64 rows here):
// a value repeated in a column or on a diagonal must be named at its second cell, the same with
// one thread or two, and the symmetry break it causes located.
TEST(AnalysisProperties, RepeatsAcrossBandsAreNamedAtTheSecondCell) {
    ScratchDir dir;
    const std::string column = dir.file("column.h5"), diagonal = dir.file("diagonal.h5");
    write_table(column, 300, 400, 64);
    std::filesystem::copy_file(column, diagonal);
    const uint32_t below = Hdf5TableReader(column).at(150, 127);     // band of rows 64..127
    const uint32_t down_left = Hdf5TableReader(column).at(99, 127);  // diagonal x - y = -28
    const uint32_t mirror = Hdf5TableReader(column).at(128, 100);
    corrupt_cell(column, 150, 128, below);  // column 150, first row of the next band
    corrupt_cell(diagonal, 100, 128, down_left);
    for (int threads : {1, 2}) {
        const PropertiesReport c = check_properties(Hdf5TableReader(column), threads);
        const auto cols = find_check(c, "distinct_columns");
        ASSERT_TRUE(cols.first_violation);
        EXPECT_EQ(*cols.first_violation,
                  "value " + std::to_string(below) + " twice in column 150 (again at (150, 128))");
        EXPECT_EQ(cols.checked, 300u * 400u);

        const PropertiesReport d = check_properties(Hdf5TableReader(diagonal), threads);
        const auto diags = find_check(d, "distinct_diagonals");
        ASSERT_TRUE(diags.first_violation);
        EXPECT_EQ(*diags.first_violation,
                  "value " + std::to_string(down_left) +
                      " twice on diagonal x - y = -28 (again at (100, 128))");
        const auto sym = find_check(d, "symmetry");
        ASSERT_TRUE(sym.first_violation);
        EXPECT_EQ(*sym.first_violation, "(128, 100) holds " + std::to_string(mirror) +
                                            " but (100, 128) holds " + std::to_string(down_left));
    }
}

// The reader's parallel chunk decoding against the direct-mex table, for each stored layout.
TEST(AnalysisReader, FastReadsMatchTheTable) {
    ScratchDir dir;
    const auto direct = testing::direct_mex_table(70, 129);
    for (const char* compression : {"deflate", "none", "deflate:1"}) {
        const std::string path = dir.file(std::string("t-") + compression + ".h5");
        write_table(path, 70, 129, 24, Compression::parse(compression));
        const Hdf5TableReader table(path);
        std::vector<uint32_t> all(70 * 129);
        table.read(0, 0, 129, 70, all.data());
        EXPECT_EQ(all, direct) << compression;
        std::vector<uint32_t> part(50 * 41);
        table.read(13, 7, 50, 41, part.data());
        for (uint64_t j = 0; j < 41; ++j)
            for (uint64_t i = 0; i < 50; ++i)
                ASSERT_EQ(part[j * 50 + i], direct[(7 + j) * 129 + 13 + i]) << compression;
    }
}

TEST(AnalysisBadFiles, EachIsOneClearError) {
    ScratchDir dir;
    const std::string good = dir.file("good.h5");
    write_table(good, 64, 300, 32);
    for (const auto& [path, needle] : testing::bad_files(dir, good)) {
        try {
            analyze_table(path, AnalysisOptions{});
            ADD_FAILURE() << path << " was accepted";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(needle), std::string::npos)
                << path << ": " << e.what();
        }
    }
    AnalysisOptions allow;
    allow.allow_incomplete = true;
    allow.store = false;
    const AnalysisReport r = analyze_table(dir.file("incomplete.h5"), allow);
    EXPECT_FALSE(r.complete);
    EXPECT_TRUE(r.ok());
}

}  // namespace
}  // namespace grundy
