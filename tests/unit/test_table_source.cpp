// TableSource (grundy/table_source.hpp): the passes read a stored file (its chunks fetched
// ahead and decoded in pieces), an array (copied in pieces) and a source of a user's own (the
// defaults: each band read whole, cells one by one) through one interface, and every analysis
// comes out the same from all three, on a correct table and on tables with a wrong cell. A
// piece that cannot be read stops the analysis with its error.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include "analysis/summary.hpp"
#include "grundy/analysis.hpp"
#include "grundy/array_analysis.hpp"
#include "grundy/error.hpp"
#include "grundy/hdf5_reader.hpp"
#include "support/analysis_fixtures.hpp"

namespace grundy::testing {
namespace {

// A source of a user's own over values in a vector, keeping every default of TableSource; it
// counts its reads, so a test can see that the passes went through it.
// With `band` set, its bands are that many rows and columns instead of the default 256.
class VectorSource final : public TableSource {
  public:
    VectorSource(std::vector<uint32_t> values, uint64_t rows, uint64_t cols, uint64_t band = 0)
        : values_(std::move(values)), rows_(rows), cols_(cols), band_(band) {}
    uint64_t rows() const override { return rows_; }
    uint64_t cols() const override { return cols_; }
    uint64_t band_rows() const override { return band_ ? band_ : TableSource::band_rows(); }
    uint64_t band_cols() const override { return band_ ? band_ : TableSource::band_cols(); }
    void read(uint64_t x0, uint64_t y0, uint64_t width, uint64_t height, uint32_t* out,
              uint64_t stride) const override {
        if (x0 + width > cols_ || y0 + height > rows_) throw Error("read outside the vector");
        if (stride == 0) stride = width;
        for (uint64_t j = 0; j < height; ++j)
            for (uint64_t i = 0; i < width; ++i)
                out[j * stride + i] = values_[(y0 + j) * cols_ + x0 + i];
        ++reads;
    }
    mutable std::atomic<uint64_t> reads{0};

  private:
    std::vector<uint32_t> values_;
    uint64_t rows_, cols_, band_;
};

// Every pass at once, as `grundy analyze` runs them, rendered whole.
std::string analysis_of(const TableSource& table, int threads) {
    AnalysisOptions o;
    o.threads = threads;
    return summary_json(analyze(table, o));
}

// The analysis without verify's count of cells checked, which on a table with a wrong cell
// depends on the width of the bands (verify stops after the band of the cell).
std::string without_count(std::string json) {
    const size_t at = json.find("\"cells_checked\":");
    if (at != std::string::npos) json.erase(at, json.find(',', at) - at);
    return json;
}

std::vector<uint32_t> values_of(const Hdf5TableReader& file) {
    std::vector<uint32_t> values(file.rows() * file.cols());
    file.read(0, 0, file.cols(), file.rows(), values.data());
    return values;
}

TEST(TableSource, FileArrayAndOwnSourceGiveTheSameAnalysis) {
    ScratchDir dir;
    // Tall and wide, chunks of 16 (bands of 16 rows and columns from the file, 256 and pieces
    // of 512 from the array), and tables with one wrong cell: below the diagonal, above it
    // (where verify checks a cell against its mirror), in row 0.
    struct Case {
        uint64_t rows, cols, x, y;
        bool corrupt;
    };
    for (const Case& c :
         {Case{70, 300, 0, 0, false}, Case{300, 70, 0, 0, false}, Case{90, 260, 200, 40, true},
          Case{90, 260, 30, 60, true}, Case{90, 260, 17, 0, true}}) {
        const std::string path = dir.file("t.h5");
        write_table(path, c.rows, c.cols, 16);
        if (c.corrupt) {
            const uint32_t right = Hdf5TableReader(path).at(c.x, c.y);  // closed before the write
            corrupt_cell(path, c.x, c.y, right + 1);
        }
        const Hdf5TableReader file(path);
        const std::vector<uint32_t> values = values_of(file);
        TableArray array;
        array.rows = c.rows;
        array.cols = c.cols;
        array.values32 = values.data();
        const TableArraySource in_memory(array);
        const VectorSource own(values, c.rows, c.cols);        // the array's bands
        const VectorSource own16(values, c.rows, c.cols, 16);  // the file's
        SCOPED_TRACE(
            std::to_string(c.rows) + " x " + std::to_string(c.cols) +
            (c.corrupt ? " wrong at " + std::to_string(c.x) + ", " + std::to_string(c.y) : ""));
        const std::string from_file = analysis_of(file, 2), from_array = analysis_of(in_memory, 2);
        EXPECT_EQ(without_count(from_array), without_count(from_file));
        EXPECT_EQ(analysis_of(in_memory, 1), from_array);
        EXPECT_EQ(analysis_of(own, 2), from_array);
        EXPECT_EQ(analysis_of(own16, 2), from_file);
        EXPECT_EQ(analysis_of(own16, 1), from_file);
        EXPECT_GT(own.reads.load(), 0u);
        if (!c.corrupt) {
            EXPECT_EQ(from_array, from_file);
        }
        // Not only alike: right. Verify names the cell that was changed (it is the first wrong
        // one in its order: every option of it is right), and a correct table passes all.
        const VerifyReport v = verify_table(in_memory, 2);
        if (c.corrupt) {
            ASSERT_FALSE(v.ok());
            EXPECT_EQ(v.wrong->x, c.x);
            EXPECT_EQ(v.wrong->y, c.y);
        } else {
            EXPECT_TRUE(v.ok());
            EXPECT_EQ(v.cells_checked, c.rows * c.cols);
            EXPECT_NE(from_file.find("\"ok\":true"), std::string::npos) << from_file;
        }
    }
}

// A source whose second band cannot be read: read whole by the default reader (the error
// comes from start()), or in pieces of which one fails (from a thread of the pass).
class BrokenSource final : public TableSource {
  public:
    explicit BrokenSource(bool in_pieces) : in_pieces_(in_pieces) {}
    uint64_t rows() const override { return 600; }
    uint64_t cols() const override { return 700; }
    void read(uint64_t, uint64_t y0, uint64_t, uint64_t, uint32_t*, uint64_t) const override {
        if (y0 >= 256) throw Error("band at row " + std::to_string(y0) + " is unreadable");
    }
    std::unique_ptr<RowBandReader> row_bands() const override {
        if (!in_pieces_) return TableSource::row_bands();
        struct Pieces final : RowBandReader {
            uint64_t y0 = 0;
            uint64_t start(uint64_t y, uint64_t, uint32_t*, uint64_t) override {
                y0 = y;
                return 7;
            }
            std::pair<uint64_t, uint64_t> piece(uint64_t k) override {
                if (y0 >= 256 && k == 3) throw Error("piece 3 at row 256 is unreadable");
                return {k * 100, k * 100 + 100};
            }
        };
        return std::make_unique<Pieces>();
    }

  private:
    bool in_pieces_;
};

TEST(TableSource, AnUnreadableBandStopsTheAnalysisWithItsError) {
    for (bool in_pieces : {false, true})
        for (int threads : {1, 2}) {
            AnalysisOptions o;
            o.verify = false;  // the row-band passes
            o.threads = threads;
            try {
                analyze(BrokenSource(in_pieces), o);
                ADD_FAILURE() << "no error";
            } catch (const Error& e) {
                EXPECT_EQ(std::string(e.what()), in_pieces ? "piece 3 at row 256 is unreadable"
                                                           : "band at row 256 is unreadable");
            }
        }
}

}  // namespace
}  // namespace grundy::testing
