// Options shared by `grundy move --sum` and `grundy play --sum`: where the Wythoff components'
// values come from (a stored table, or the engine on the fly within a size limit).
#pragma once

#include <optional>

#include "app/command.hpp"
#include "grundy/play.hpp"

namespace grundy::app {

// The position X Y of `grundy move` and `grundy play` (positional "position"). Throws
// grundy::Error unless it is two whole numbers.
WythoffPosition parse_position(const po::variables_map& v);

// Adds --table, --max-cells and --threads.
void describe_sum_value_options(po::options_description& o);

// The values the sum's Wythoff components need: from --table, else computed (only if the sum
// has a Wythoff component). Throws grundy::Error for a table too small or a limit exceeded.
std::optional<WythoffValues> wythoff_values_for(const po::variables_map& v, const GameSum& sum);

}  // namespace grundy::app
