// The CLI's names for the library's arguments, for the messages of grundy::ArgumentError: the
// library says "{rows} must be ...", the CLI "--rows must be ...". (The Python module spells
// them its own way: src/python/module.cpp, python_message.)
#pragma once

#include <exception>
#include <string>
#include <string_view>

#include "grundy/error.hpp"

namespace grundy::app {

// --name with '_' as '-', except where the option is named otherwise.
inline std::string option_name(std::string_view argument) {
    if (argument == "csv_path") return "--csv";
    if (argument == "store=false") return "--no-store";
    std::string out = "--";
    for (char c : argument) out += c == '_' ? '-' : c;
    return out;
}

// An exception's message in the CLI's words.
inline std::string cli_message(const std::exception& e) {
    if (const auto* a = dynamic_cast<const ArgumentError*>(&e)) return a->render(option_name);
    return e.what();
}

}  // namespace grundy::app
