// What a certified run takes besides the public PeriodsOptions, for the library's own front
// ends: the ranks of grundy-mpi and an observer of the run's blocks; and what it gives besides
// the public PeriodsResult: the ranks' figures. Internal: the public entry,
// grundy::certify_row_periods (include/grundy/periods.hpp), runs without ranks or observer.
#pragma once

#include <cstdint>
#include <functional>

#include "grundy/periods.hpp"
#include "strip/ranks/rank_stats.hpp"

namespace grundy::strip {

class RankLink;

struct RunHooks {
    // This process is one rank of a strip cut into bands of rows, one per rank; every rank calls
    // certify_row_periods with the same options, and rank 0's result has every row. Null: the
    // whole strip in this process.
    RankLink* link = nullptr;
    // Called on the driving thread after every block of `columns` swept columns that does not
    // end the run, after its checkpoint if one was due; the blocks are the production ones. The
    // CLI's hidden --test-delay-us sleeps in it so that tests can stop a run between two blocks;
    // a unit test may raise the cancel flag from it (the run then stops after the next block).
    std::function<void(uint64_t columns)> after_block;
    // Called by each process once its checkpoint (or its rank's part) is written to PATH.tmp,
    // before it replaces PATH: the CLI's hidden --test-save-delay-us sleeps in it so that tests
    // can kill a run while a save is half done.
    std::function<void()> before_commit;
};

struct RunResult {
    PeriodsResult periods;
    RankStats ranks;  // with RunHooks::link; one process: the defaults
};

// certify_row_periods with hooks. Throws grundy::Error like it.
RunResult certify_row_periods(const PeriodsOptions& options, const RunHooks& hooks);

}  // namespace grundy::strip
