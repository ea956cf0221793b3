// grundy compute --estimate: what a run would take, printed instead of running it.
#pragma once

#include <string>

#include "grundy/engine.hpp"
#include "grundy/hdf5_writer.hpp"
#include "grundy/memory.hpp"

namespace grundy::app {

// The memory of a run of `e` (the windows at their widest, the tile and chunk buffers, the
// writer's queue, the pyramid being built, the program), against `budget`, and the disk its
// output takes (`output` null: none): the same figures compute checks before it starts.
std::string compute_estimate(const EngineOptions& e, const std::string* output, bool pyramid,
                             const Compression& compression, const MemoryBudget& budget);

}  // namespace grundy::app
