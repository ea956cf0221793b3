#include "grundy/tile_sink.hpp"

#include <vector>

#include "base/transpose.hpp"

namespace grundy {

void TileSink::consume_transpose(const TileView& source) {
    thread_local std::vector<uint32_t> mirror;
    mirror.resize(uint64_t{source.width} * source.height);
    base::transpose_tile(source.values, source.width, source.height, mirror.data());
    consume(TileView{source.y0, source.x0, source.height, source.width, mirror.data()});
}

}  // namespace grundy
