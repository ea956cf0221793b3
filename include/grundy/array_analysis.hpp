// The analysis passes of grundy/analysis.hpp over a table held in memory (a numpy array, a
// MemoryTable through table_array()) instead of a stored file: the same passes and the same
// results, read through TableArraySource, the TableSource of an array.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "grundy/analysis.hpp"
#include "grundy/memory_table.hpp"

namespace grundy {

// A read-only view of rows 0..rows-1, columns 0..cols-1 of a table in memory:
// g(x, y) = values[y * stride + x], 2 or 4 bytes a value (exactly one pointer is set).
struct TableArray {
    uint64_t rows = 0, cols = 0;
    uint64_t stride = 0;  // values from one row to the next; 0: cols
    const uint16_t* values16 = nullptr;
    const uint32_t* values32 = nullptr;

    uint64_t row_stride() const { return stride ? stride : cols; }
    uint32_t at(uint64_t x, uint64_t y) const {
        const uint64_t i = y * row_stride() + x;
        return values32 ? values32[i] : values16[i];
    }
    // Copies rows y0..y0+height-1, columns x0..x0+width-1 into out (row-major, `out_stride`
    // values from one row to the next; 0: width).
    void read(uint64_t x0, uint64_t y0, uint64_t width, uint64_t height, uint32_t* out,
              uint64_t out_stride = 0) const;
};

// A view of a table computed into memory (compute_table into a MemoryTable); valid while it is.
inline TableArray table_array(const MemoryTable& table) {
    TableArray a;
    a.rows = table.rows();
    a.cols = table.cols();
    a.values32 = table.values().data();
    return a;
}

// Throws grundy::Error when neither or both pointers are set or the stride is below cols.
void check_table_array(const TableArray& table);

// An array as a TableSource (valid while the array is): bands of 256 rows, each cut into
// pieces of 512 columns that the threads of a pass copy (and widen to 32 bits) in parallel,
// while they are in that thread's cache, as a file's chunks are decoded.
class TableArraySource final : public TableSource {
  public:
    // Throws as check_table_array.
    explicit TableArraySource(const TableArray& table);
    uint64_t rows() const override { return table_.rows; }
    uint64_t cols() const override { return table_.cols; }
    void read(uint64_t x0, uint64_t y0, uint64_t width, uint64_t height, uint32_t* out,
              uint64_t stride = 0) const override;
    std::unique_ptr<RowBandReader> row_bands() const override;

  private:
    TableArray table_;
};

std::vector<RowPeriod> row_periods(const TableArray& table, int threads = 0);
VerifyReport verify_table(const TableArray& table, int threads = 0);
PPositionReport check_ppositions(const TableArray& table, int threads = 0);
PropertiesReport check_properties(const TableArray& table, int threads = 0);

}  // namespace grundy
