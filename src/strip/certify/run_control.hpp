// RunControl: a certification's timing and checkpoints. After every block it calls the run's
// observer, then decides whether the run stops (a signal, or a checkpoint that could not be
// written) and whether a checkpoint is due; with ranks, every rank takes the same decision, and
// the checkpoint is one part per rank committed by rank 0's manifest (checkpoint.hpp).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "grundy/periods.hpp"
#include "strip/certify/run_hooks.hpp"
#include "strip/certify/search_state.hpp"

namespace grundy::strip {

class RunControl {
  public:
    // `starts`: with ranks, each rank's rows as they are at each checkpoint (kept by the caller).
    RunControl(const PeriodsOptions& o, const RunHooks& hooks, const std::vector<uint64_t>& starts);

    // The part this process resumed from, at `column` (a run of ranks removes it once a newer
    // one is saved). Rank 0 removes what an interrupted save left beside the manifest.
    void resumed_from(std::string part, uint64_t column);
    // Called after each checkpoint of a run that goes on, before the observer: writes what goes
    // with it (the rows certified so far) and returns why it could not, or "" (with ranks: the
    // same on every rank). A failure stops the run as a checkpoint that cannot be written does.
    void after_checkpoint(std::function<std::string()> f) { after_checkpoint_ = std::move(f); }

    // Called after every block of `columns` columns: a checkpoint on time or on a stop signal
    // (taking the strip's snapshot only then: it costs O(Y^2)), then, unless the run stops, the
    // observer (RunHooks::after_block). Returns true when the run must stop. With ranks, the
    // decision is rank 0's clock and any rank's signal.
    bool after_block(SearchState& p, const Strip& strip, PeriodsResult& result, uint64_t columns);
    // A stop at --max-cols: a checkpoint (if the run keeps one), so that --resume with a larger
    // --max-cols goes on from here rather than from the last one on time.
    void at_max_cols(SearchState& p, const Strip& strip, PeriodsResult& result);

  private:
    using Clock = std::chrono::steady_clock;
    // Snapshot and save; false, with result's checkpoint_error and status set, if it could not
    // be written (a full disk stops the run like a signal, keeping the previous checkpoint).
    bool checkpoint(SearchState& p, const Strip& strip, PeriodsResult& result);
    // Writes the checkpoint; returns why it could not be, or "" (with ranks: any rank's reason).
    std::string save(const SearchState& p, uint64_t column);

    const PeriodsOptions& o_;
    const RunHooks& hooks_;
    const std::vector<uint64_t>& starts_;
    Clock::time_point last_checkpoint_;
    std::string part_;
    std::function<std::string()> after_checkpoint_;
};

}  // namespace grundy::strip
