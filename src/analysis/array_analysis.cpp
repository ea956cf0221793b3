// The analysis passes over a table in memory (grundy/array_analysis.hpp): the passes of the
// file analyses, read through the array's TableSource.
#include "grundy/array_analysis.hpp"

#include <algorithm>

#include "grundy/error.hpp"

namespace grundy {

void TableArray::read(uint64_t x0, uint64_t y0, uint64_t width, uint64_t height, uint32_t* out,
                      uint64_t out_stride) const {
    if (out_stride == 0) out_stride = width;
    const uint64_t s = row_stride();
    for (uint64_t j = 0; j < height; ++j) {
        uint32_t* to = out + j * out_stride;
        const uint64_t from = (y0 + j) * s + x0;
        if (values32)
            std::copy(values32 + from, values32 + from + width, to);
        else
            std::copy(values16 + from, values16 + from + width, to);
    }
}

void check_table_array(const TableArray& table) {
    if ((table.values16 == nullptr) == (table.values32 == nullptr))
        throw Error("a table array needs exactly one of 16-bit and 32-bit values");
    if (table.stride != 0 && table.stride < table.cols)
        throw Error("a table array's stride (" + std::to_string(table.stride) +
                    ") is less than its columns (" + std::to_string(table.cols) + ")");
}

TableArraySource::TableArraySource(const TableArray& table) : table_(table) {
    check_table_array(table);
}

void TableArraySource::read(uint64_t x0, uint64_t y0, uint64_t width, uint64_t height,
                            uint32_t* out, uint64_t stride) const {
    if (x0 + width > table_.cols || y0 + height > table_.rows)
        throw Error("read outside the table array");
    table_.read(x0, y0, width, height, out, stride);
}

namespace {

class ArrayBandReader final : public RowBandReader {
  public:
    explicit ArrayBandReader(const TableArray& table) : table_(table) {}
    uint64_t start(uint64_t y0, uint64_t height, uint32_t* band, uint64_t stride) override {
        y0_ = y0;
        height_ = height;
        band_ = band;
        stride_ = stride;
        return (table_.cols + kWidth - 1) / kWidth;
    }
    std::pair<uint64_t, uint64_t> piece(uint64_t k) override {
        const uint64_t x0 = k * kWidth, x1 = std::min(table_.cols, x0 + kWidth);
        table_.read(x0, y0_, x1 - x0, height_, band_ + x0, stride_);
        return {x0, x1};
    }

  private:
    static constexpr uint64_t kWidth = 512;
    const TableArray& table_;
    uint64_t y0_ = 0, height_ = 0, stride_ = 0;
    uint32_t* band_ = nullptr;
};

}  // namespace

std::unique_ptr<RowBandReader> TableArraySource::row_bands() const {
    return std::make_unique<ArrayBandReader>(table_);
}

std::vector<RowPeriod> row_periods(const TableArray& table, int threads) {
    return row_periods(TableArraySource(table), threads);
}

VerifyReport verify_table(const TableArray& table, int threads) {
    return verify_table(TableArraySource(table), threads);
}

PPositionReport check_ppositions(const TableArray& table, int threads) {
    return check_ppositions(TableArraySource(table), threads);
}

PropertiesReport check_properties(const TableArray& table, int threads) {
    return check_properties(TableArraySource(table), threads);
}

}  // namespace grundy
