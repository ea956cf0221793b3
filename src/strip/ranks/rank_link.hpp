// RankLink: what a strip swept by several processes (the ranks of an MPI job, grundy-mpi) needs
// from the transport between them; src/mpi/mpi_link.cpp implements it over MPI, and a strip
// without one runs alone as before.
//
// Rank r sweeps rows lo_r .. hi_r - 1 (cut_rank_rows). Those rows read the rows below them only
// through each column's set and through the diagonal that enters row lo_r, so rank r - 1 sends,
// for every column x, its column set over rows 0..lo_r - 1 and the diagonal x - lo_r over its
// cells below lo_r (boundary_bits.hpp: 2 x 3Y bits per column), in messages of
// kStripMessageColumns columns; several are in flight, so the ranks overlap like the bands of
// one process. Everything else is decided in step: at the end of every block all ranks combine
// their comparisons (min_each), their stop and checkpoint wishes (max_of), and rank 0 gathers
// the rows' results. As rank 0's lowest rows settle, the rows are cut again (rank_moves.hpp):
// rows change hands with their part of the state (all_or) and of the ring (exchange).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace grundy::strip {

class RankLink {
  public:
    virtual ~RankLink() = default;
    virtual int rank() const = 0;
    virtual int ranks() const = 0;

    // To rank + 1, without waiting for it: the words are copied (a few messages stay in
    // flight; the call waits only when all of them are).
    virtual void send_up(const uint64_t* words, uint64_t count) = 0;
    // The next message from rank - 1 (exactly `count` words), waiting for it.
    virtual void receive_from_below(uint64_t* words, uint64_t count) = 0;

    // Element-wise minimum over every rank's `v` (the same length on each), on every rank.
    virtual void min_each(std::vector<uint32_t>& v) = 0;
    virtual uint64_t max_of(uint64_t v) = 0;
    virtual uint64_t sum_of(uint64_t v) = 0;
    // Bitwise OR of every rank's `words` (the same length on each), on every rank.
    virtual void all_or(std::vector<uint64_t>& words) = 0;
    // Every rank at once: sends counts[r] words to each rank r, taken in rank order from
    // `words` (counts has ranks() entries; 0 sends nothing), and returns what the ranks sent to
    // this one, in rank order, with received[r] words from rank r. One buffer each way: the
    // words may be rows' rings.
    virtual std::vector<uint64_t> exchange(const std::vector<uint64_t>& words,
                                           const std::vector<uint64_t>& counts,
                                           std::vector<uint64_t>& received) = 0;
    // On every rank: the message of the lowest rank whose `error` is not empty, or "".
    virtual std::string first_error(const std::string& error) = 0;
    // On rank 0: every rank's words, in rank order; elsewhere: empty.
    virtual std::vector<uint64_t> gather(const std::vector<uint64_t>& mine) = 0;
    // Ends the whole job (every rank) after printing `message`: for a failure of one rank
    // that the others cannot know about, so that none waits for ever.
    [[noreturn]] virtual void abort(const std::string& message, int status) = 0;

    // What this rank sent and how long it waited for messages and for the others.
    virtual uint64_t bytes_sent() const = 0;
    virtual double wait_seconds() const = 0;
};

// The first row of each rank's rows, then `rows`: R bands of equal work per column under the
// strip's cost model (strip_row_cost), where rows 0..settled-1 have settled (they cost nothing
// per column) and stay with rank 0, above which rank 0 keeps at least one row to sweep, and
// where rank 0 has `rank0_extra` units of other work per column (what its settled rows still
// cost: measured by RankPlan). At least 2 rows for every other rank; throws
// grundy::ArgumentError when there are too few rows.
std::vector<uint64_t> cut_rank_rows(uint64_t rows, int ranks, uint64_t settled = 0,
                                    double rank0_extra = 0);

// The work per column of the busiest rank of the cut `starts` with rows 0..settled-1 settled
// (and rank 0's extra work), over the mean: 1 for a perfect cut.
double cut_imbalance(const std::vector<uint64_t>& starts, uint64_t settled, double rank0_extra = 0);

}  // namespace grundy::strip
