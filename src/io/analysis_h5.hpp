// The results of `grundy analyze` stored in the analysed file, under /analysis.
#pragma once

#include <string>

#include "grundy/analysis.hpp"

namespace grundy::io {

// Opens `path` read-write and replaces what the report holds under /analysis (the group and
// its datasets are created where missing). Throws grundy::Error.
void store_analysis(const std::string& path, const AnalysisReport& report);

}  // namespace grundy::io
