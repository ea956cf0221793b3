// The row-band stream's own paths: the next band fetched on a helper thread while the current
// one is decoded, each chunk's column and diagonal checks run as soon as it is decoded (a
// diagonal crossing into a chunk waits for the chunk to its left), and the plain read path
// for chunks the reader cannot decode itself. Each must give what the others give, with one
// thread or two, at every band and chunk boundary.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <sstream>
#include <string>
#include <vector>

#include "grundy/analysis.hpp"
#include "grundy/hdf5_reader.hpp"
#include "io/stored_chunks.hpp"
#include "support/analysis_fixtures.hpp"

namespace grundy {
namespace {

using namespace testing;  // tests/support: scratch directories, the CLI, tables

// A copy of `source` with chunks of chunk_rows x chunk_cols, filtered by deflate (the reader
// decodes it itself: the fetch path) or by HDF5's scale-offset filter, lossless on integers (it
// cannot: the read path).
void write_copy(const std::string& source, const std::string& path, hsize_t chunk_rows,
                hsize_t chunk_cols, bool foreign) {
    const Hdf5TableReader in(source);
    const hsize_t dims[2] = {in.rows(), in.cols()}, chunk[2] = {chunk_rows, chunk_cols};
    std::vector<uint32_t> values(in.rows() * in.cols());
    in.read(0, 0, in.cols(), in.rows(), values.data());
    const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const hid_t space = H5Screate_simple(2, dims, nullptr);
    const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 2, chunk);
    if (foreign)
        H5Pset_scaleoffset(dcpl, H5Z_SO_INT, H5Z_SO_INT_MINBITS_DEFAULT);
    else
        H5Pset_deflate(dcpl, 1);
    const hid_t dataset =
        H5Dcreate2(file, "grundy", H5T_STD_U16LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    const herr_t rc =
        H5Dwrite(dataset, H5T_NATIVE_UINT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
    const hid_t scalar = H5Screate(H5S_SCALAR);
    const int one = 1;
    const hid_t attr =
        H5Acreate2(file, "complete", H5T_STD_I32LE, scalar, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(attr, H5T_NATIVE_INT, &one);
    H5Aclose(attr);
    H5Sclose(scalar);
    H5Dclose(dataset);
    H5Pclose(dcpl);
    H5Sclose(space);
    H5Fclose(file);
    ASSERT_GE(rc, 0) << path;
    ASSERT_EQ(StoredChunks::decodable(Hdf5TableReader(path)), !foreign);
}

// Everything the three row-band passes report, as one text to compare.
std::string everything(const std::string& path, int threads) {
    const Hdf5TableReader table(path);
    std::ostringstream out;  // not "literal" + std::string: GCC 12 warns falsely on it
    out << testing::periods_text(row_periods(table, threads));
    const PPositionReport p = check_ppositions(table, threads);
    out << "zeros " << p.zeros << " of " << p.expected << ": "
        << p.first_disagreement.value_or("ok") << "\n";
    out << properties_text(check_properties(table, threads));
    return out.str();
}

// Chunks of 64 rows x 16 columns: diagonal x - y = -44 meets columns 20 (row 64, the band's
// first) to 83 (row 127) inside the band of rows 64..127, across four chunks. A value copied
// from its cell in the second chunk to its cell in the fifth must be named at the latter, so
// the chunks' diagonal checks must take the diagonal's cells in order even when two threads
// decode and check chunks side by side.
TEST(AnalysisStream, DiagonalRepeatAcrossChunksOfOneBandIsNamedAtItsSecondCell) {
    ScratchDir dir;
    const std::string square = dir.file("square.h5");
    write_table(square, 300, 400, 64);
    const uint32_t first = Hdf5TableReader(square).at(20, 64);
    std::ostringstream expected;
    expected << "value " << first << " twice on diagonal x - y = -44 (again at (70, 114))";
    const std::string fetched = dir.file("fetched.h5"), read = dir.file("read.h5");
    write_copy(square, fetched, 64, 16, false);
    write_copy(square, read, 64, 16, true);
    for (const std::string& path : {square, fetched, read}) {
        corrupt_cell(path, 70, 114, first);
        for (int threads : {1, 2, 2, 2, 2, 2, 2, 2, 2}) {  // two threads race: try several times
            const auto diags =
                find_check(check_properties(Hdf5TableReader(path), threads), "distinct_diagonals");
            ASSERT_TRUE(diags.first_violation) << path << ", " << threads << " threads";
            EXPECT_EQ(*diags.first_violation, expected.str())
                << path << ", " << threads << " threads";
            EXPECT_EQ(diags.checked, 300u * 400u);
        }
    }
}

// One band only, several bands with a short last one, chunks wider than tall and taller than
// wide, by the fetch path and the read path, one thread and two: all the same reports, on a
// correct table and on one with a wrong cell where two chunks and two bands meet.
TEST(AnalysisStream, FetchAndReadPathsAgreeAtEveryBoundary) {
    ScratchDir dir;
    const std::string source = dir.file("source.h5");
    write_table(source, 150, 333, 32);
    const std::string reference = everything(source, 1);
    EXPECT_NE(reference.find("distinct_diagonals 49950: ok"), std::string::npos) << reference;
    struct Layout {
        hsize_t rows, cols;
        bool foreign;
    };
    int n = 0;
    for (const Layout& l : {Layout{32, 32, false}, Layout{32, 32, true}, Layout{150, 24, false},
                            Layout{100, 24, true}, Layout{24, 100, false}, Layout{24, 100, true},
                            Layout{7, 333, false}}) {
        const std::string path = dir.file("copy" + std::to_string(n++) + ".h5");
        write_copy(source, path, l.rows, l.cols, l.foreign);
        for (int threads : {1, 2})
            EXPECT_EQ(everything(path, threads), reference)
                << l.rows << " x " << l.cols << (l.foreign ? " scale-offset" : " deflate") << ", "
                << threads << " threads";
    }
    // A wrong cell at the corner of four chunks of 24 x 100: (100, 48) holds g(99, 48), twice
    // in its row, and breaks symmetry, a column and perhaps a diagonal.
    const uint32_t left = Hdf5TableReader(source).at(99, 48);
    corrupt_cell(source, 100, 48, left);
    const std::string wrong = everything(source, 1);
    EXPECT_NE(wrong.find("twice in row 48 (again at (100, 48))"), std::string::npos) << wrong;
    for (bool foreign : {false, true}) {
        const std::string path = dir.file(foreign ? "wrong-read.h5" : "wrong-fetched.h5");
        write_copy(source, path, 24, 100, foreign);
        for (int threads : {1, 2}) EXPECT_EQ(everything(path, threads), wrong) << path;
    }
}

// fetch then decode, chunk by chunk and in any order, gives what read gives.
TEST(AnalysisReader, FetchAndDecodeMatchRead) {
    ScratchDir dir;
    const std::string path = dir.file("t.h5");
    write_table(path, 70, 129, 24);
    const Hdf5TableReader table(path);
    ASSERT_TRUE(StoredChunks::decodable(table));
    std::vector<uint32_t> expected(50 * 100), got(50 * 110, 7);
    table.read(13, 7, 100, 50, expected.data());
    StoredChunks chunks;
    chunks.fetch(table, 13, 7, 100, 50);
    ASSERT_EQ(chunks.size(), 3u * 5u);  // rows 7..56 meet 3 chunk rows, columns 13..112 five
    for (size_t k = chunks.size(); k-- > 0;) {
        EXPECT_EQ(chunks.x_begin(k), k % 5 == 0 ? 13u : 24u * (k % 5));
        EXPECT_EQ(chunks.x_end(k), k % 5 == 4 ? 113u : 24u * (k % 5 + 1));
        ASSERT_TRUE(chunks.decode(table, k, got.data(), 110));
    }
    for (uint64_t j = 0; j < 50; ++j)
        for (uint64_t i = 0; i < 100; ++i)
            ASSERT_EQ(got[j * 110 + i], expected[j * 100 + i]) << i << ", " << j;
    for (uint64_t j = 0; j < 50; ++j)  // the stride's padding is left alone
        for (uint64_t i = 100; i < 110; ++i) ASSERT_EQ(got[j * 110 + i], 7u);
}

}  // namespace
}  // namespace grundy
