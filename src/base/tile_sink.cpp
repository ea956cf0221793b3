#include "grundy/tile_sink.hpp"

#include "base/transpose.hpp"

namespace grundy {

void TileSink::consume_transpose(const TileView& source) {
    consume(TileView{source.y0, source.x0, source.height, source.width,
                     base::transposed(source.values, source.width, source.height)});
}

void TileSink::consume_with_transpose(const TileView& tile) {
    consume(tile);
    consume_transpose(tile);
}

}  // namespace grundy
