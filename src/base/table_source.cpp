// What every TableSource has unless it says otherwise (grundy/table_source.hpp): cells read one
// at a time, bands of 256, and row bands read whole, one read() each.
#include "grundy/table_source.hpp"

#include <algorithm>

namespace grundy {

void TableSource::read_cells(const std::vector<std::pair<uint64_t, uint64_t>>& cells,
                             uint32_t* out) const {
    for (size_t i = 0; i < cells.size(); ++i) read(cells[i].first, cells[i].second, 1, 1, out + i);
}

uint32_t TableSource::at(uint64_t x, uint64_t y) const {
    uint32_t v = 0;
    read(x, y, 1, 1, &v);
    return v;
}

uint64_t TableSource::band_rows() const {
    return std::min<uint64_t>(256, rows());
}

uint64_t TableSource::band_cols() const {
    return std::min<uint64_t>(256, std::max<uint64_t>(1, cols()));
}

namespace {

// The band read whole in start(), on the stream's thread (for sources that cannot be read from
// several threads at once); its pieces, band_cols() wide, have nothing left to do.
class WholeBandReader final : public RowBandReader {
  public:
    explicit WholeBandReader(const TableSource& table)
        : table_(table), width_(std::max<uint64_t>(1, table.band_cols())) {}
    uint64_t start(uint64_t y0, uint64_t height, uint32_t* band, uint64_t stride) override {
        const uint64_t cols = table_.cols();
        table_.read(0, y0, cols, height, band, stride);
        return (cols + width_ - 1) / width_;
    }
    std::pair<uint64_t, uint64_t> piece(uint64_t k) override {
        return {k * width_, std::min(table_.cols(), (k + 1) * width_)};
    }

  private:
    const TableSource& table_;
    uint64_t width_;
};

}  // namespace

std::unique_ptr<RowBandReader> TableSource::row_bands() const {
    return std::make_unique<WholeBandReader>(*this);
}

}  // namespace grundy
