// What a strip swept by several ranks (rank_link.hpp) reports besides the public PeriodsResult:
// the figures of grundy-mpi's summary line. Internal, as the ranks are.
#pragma once

#include <cstdint>
#include <vector>

namespace grundy::strip {

struct RankStats {
    int ranks = 1;            // processes (MPI ranks) that swept the strip
    uint64_t bytes_sent = 0;  // between the ranks, all together
    // times the rows were cut again as rows settled, and rows that changed hands, all together
    uint64_t rebalances = 0, rows_moved = 0;
    // on rank 0: each rank's time spent waiting for messages and for the others
    std::vector<double> wait_seconds;
};

}  // namespace grundy::strip
