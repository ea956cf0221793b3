// What `grundy analyze` makes of its options and its report: the passes named on its command
// line, and the summary it prints (text or JSON). The command's own, not the library's API: a
// program of the library's reads the AnalysisReport (grundy/analysis.hpp) itself.
#pragma once

#include <string>

#include "grundy/analysis.hpp"

namespace grundy {

// Parses "periodicity,verify,ppositions,properties" (any subset) into options. Throws Error.
void parse_passes(const std::string& text, AnalysisOptions& options);

std::string summary_text(const AnalysisReport& report);
std::string summary_json(const AnalysisReport& report);

}  // namespace grundy
