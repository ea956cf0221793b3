// The analysis passes over a table in memory (grundy/array_analysis.hpp): the passes of the
// file analyses, fed by the in-memory streams of bands.cpp.
#include "grundy/array_analysis.hpp"

#include "analysis/passes.hpp"
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

std::vector<RowPeriod> row_periods(const TableArray& table, int threads) {
    check_table_array(table);
    analysis::PeriodicityPass pass(table.rows);
    analysis::RowBandPass* passes[] = {&pass};
    analysis::stream_row_bands(table, passes, threads);
    return pass.take();
}

VerifyReport verify_table(const TableArray& table, int threads) {
    check_table_array(table);
    analysis::VerifyPass pass(table.rows, table.cols, threads);
    analysis::ColumnBandPass* passes[] = {&pass};
    analysis::stream_column_bands(table, passes);
    return pass.report();
}

PPositionReport check_ppositions(const TableArray& table, int threads) {
    check_table_array(table);
    analysis::PPositionPass pass(table.rows, table.cols);
    analysis::RowBandPass* passes[] = {&pass};
    analysis::stream_row_bands(table, passes, threads);
    return pass.report();
}

PropertiesReport check_properties(const TableArray& table, int threads) {
    check_table_array(table);
    return analysis::check_properties(table, threads, true);
}

}  // namespace grundy
