// The one exception type the library throws for problems a user can fix: bad sizes, bad
// options, missing or wrong files, unwritable paths, a full disk. The CLI prints what() on one
// line and exits with status 2, so messages must say what was wrong and with which value.
#pragma once

#include <stdexcept>
#include <string>

namespace grundy {

class Error : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

}  // namespace grundy
