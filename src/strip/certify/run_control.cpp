// RunControl: the observer, the stop and checkpoint decisions, and the checkpoints' files.
#include "strip/certify/run_control.hpp"

#include <filesystem>

#include "grundy/error.hpp"
#include "strip/certify/checkpoint.hpp"
#include "strip/ranks/rank_link.hpp"

namespace grundy::strip {

namespace fs = std::filesystem;

RunControl::RunControl(const PeriodsOptions& o, const RunHooks& hooks,
                       const std::vector<uint64_t>& starts)
    : o_(o), hooks_(hooks), starts_(starts), last_checkpoint_(Clock::now()) {}

void RunControl::resumed_from(std::string part, uint64_t column) {
    part_ = std::move(part);
    if (hooks_.link->rank() == 0) remove_stray_parts(o_.checkpoint, column);
}

bool RunControl::after_block(SearchState& p, const Strip& strip, PeriodsResult& result,
                             uint64_t columns) {
    bool stop = o_.cancel && o_.cancel->load(std::memory_order_relaxed);
    bool due = !o_.checkpoint.empty() &&
               std::chrono::duration<double>(Clock::now() - last_checkpoint_).count() >=
                   o_.checkpoint_every;
    if (RankLink* link = hooks_.link) {
        const uint64_t wish = (stop ? 1 : 0) | (due && link->rank() == 0 ? 2 : 0);
        const uint64_t agreed = link->max_of(wish);
        stop = agreed & 1;
        due = agreed & 2;
    }
    if (stop) result.status = PeriodsResult::Status::Interrupted;
    if (!o_.checkpoint.empty() && (stop || due)) {
        if (!checkpoint(p, strip, result)) return true;
        result.checkpoint_saved = stop;
        // A stopped run writes its files at its end.
        const std::string error = !stop && after_checkpoint_ ? after_checkpoint_() : "";
        if (!error.empty()) {
            result.status = PeriodsResult::Status::Interrupted;
            result.checkpoint_error = error;
            return true;
        }
    }
    // After the checkpoint: a test that kills the run as soon as a checkpoint appears lands in
    // the observer's sleep, between two blocks.
    if (!stop && hooks_.after_block) hooks_.after_block(columns);
    return stop;
}

void RunControl::at_max_cols(SearchState& p, const Strip& strip, PeriodsResult& result) {
    if (!o_.checkpoint.empty()) checkpoint(p, strip, result);
}

bool RunControl::checkpoint(SearchState& p, const Strip& strip, PeriodsResult& result) {
    strip.snapshot(p.strip);
    const std::string error = save(p, strip.columns_done());
    if (!error.empty()) {
        // A full disk stops the run like a signal, keeping the previous checkpoint.
        result.status = PeriodsResult::Status::Interrupted;
        result.checkpoint_error = error;
        return false;
    }
    ++result.checkpoints_written;
    last_checkpoint_ = Clock::now();
    if (o_.progress) o_.progress->checkpoint_column.store(strip.columns_done());
    return true;
}

std::string RunControl::save(const SearchState& p, uint64_t column) {
    RankLink* link = hooks_.link;
    if (!link) {
        try {
            write_checkpoint(o_.checkpoint, p, o_.rows, hooks_.before_commit);
        } catch (const Error& e) {
            return e.what();
        }
        return "";
    }
    const std::string part = rank_part_path(o_.checkpoint, link->rank(), column);
    std::string error;
    try {
        write_checkpoint(part, p, o_.rows, hooks_.before_commit);
    } catch (const Error& e) {
        error = e.what();
    }
    error = link->first_error(error);
    if (error.empty() && link->rank() == 0) {
        try {
            write_manifest(o_.checkpoint,
                           {o_.rows, static_cast<uint64_t>(link->ranks()), column, starts_});
        } catch (const Error& e) {
            error = e.what();
        }
    }
    error = link->first_error(error);
    std::error_code ec;
    if (!error.empty()) {
        if (part != part_) fs::remove(part, ec);
        return error;
    }
    if (!part_.empty() && part_ != part) fs::remove(part_, ec);
    part_ = part;
    // Parts and .tmp files of a save that an earlier run never committed (killed while writing).
    if (link->rank() == 0) remove_stray_parts(o_.checkpoint, column);
    return "";
}

}  // namespace grundy::strip
