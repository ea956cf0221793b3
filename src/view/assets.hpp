// The page's own files (src/view/assets), compiled into the program by embed_assets.cmake.
#pragma once

#include <string>
#include <vector>

namespace grundy::view {

struct Asset {
    std::string name;  // the file's name in src/view/assets
    std::string bytes;
};

const std::vector<Asset>& assets();

}  // namespace grundy::view
