// Certified row periods: the cycle search over the strip's relative state (phase 1), the exact
// per-row pass (phase 2), and the checkpoints that let either phase stop and resume anywhere.
//
// Phase 1 is Brent's cycle detection: the state after column s is saved at s = 2Y, then again
// whenever the distance to it reaches the current window length (growing by 1/8 each time,
// where Brent doubles it: any unbounded growth finds the cycle); every later column's live state is
// compared with the saved one, word by word, highest rows first (a mismatch almost always shows in
// the first word, so a column costs O(1) for it). A match is a full comparison, so it is a proof;
// no hash is involved. It gives x0 = s and P = the least period of the state sequence. Saving
// only from column 2Y on keeps every window of a compared state at values >= 0, where the
// relative description is exact (strip.hpp).
//
// The exact preperiods need, for every row, the last x where d(x + L) != d(x) for an eventual
// period L of the row: no mismatch can lie beyond x0 (the certificate), so x + 1 for the last
// one is the row's exact preperiod, and it is the same for every eventual period (if
// d(x + p) != d(x) at some x where d is already L-periodic, with p | L, the mismatch would
// repeat every L columns for ever), in particular for the row's minimal period p, a divisor of
// P. Phase 1 keeps a ring of the last L = 3 * 2^k values per row from column 0 on; when P
// divides L, sweeping on to column x0 + L settles everything in one pass. Otherwise phase 2
// sweeps a fresh strip over columns 0..x0 + P with a ring of exactly P. Either way the ring ends
// holding a whole P-block from x0 + 1, on which the divisors of P are tried.
//
// Settled rows: every comparison with the saved state also says how many of the lowest rows match
// (the sub-strip of rows 0..m-1 evolves on its own, so its state repeating is a certificate for
// those rows, found by the same full comparison). From the next block on, such rows take their
// values from the ring, `lambda` columns back, instead of a mex (Strip::settle), when the ring
// holds whole periods of them; the values are the same, so every result is too, and the sweep
// costs only the rows that have not repeated yet. A resumed run finds its settled rows again at
// the next match of their sub-strip.
//
// The strip is swept in blocks of columns by all its threads (strip.hpp); everything that needs
// the state after one particular column happens at a block's end: blocks end at every column
// whose state is saved (Brent's, phase 2's x0 and x0 + P) and at the end of each phase. The
// per-column work is done by the band threads themselves, each for its own rows: the ring and
// the mismatches (record_rows), and the comparison with the saved state (Strip::StripBlock).
// The driver then walks the block's columns in order with the same decisions as a sweep of one
// column at a time, so the results do not depend on the threads or on the block length.
#include "grundy/periods.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <thread>

#include "grundy/error.hpp"
#include "strip/checkpoint.hpp"
#include "strip/row_records.hpp"
#include "strip/strip.hpp"

namespace grundy {
namespace {

using engine::Strip;
using engine::StripSnapshot;
using namespace grundy::strip;
using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

constexpr uint64_t kMaxRows = 16384;  // block values g - x + 2y <= 3y fit 16 bits
// Columns per block of the threaded sweep: the threads meet at a block's end, where the
// pipeline drains (up to kStripLag columns of the lowest band's lead), so a block should be much
// longer than that; and it is the granularity of checkpoints and progress (a few ms at most).
constexpr uint64_t kBlockColumns = 65536;

// --- the two phases ----------------------------------------------------------------------

class Runner {
  public:
    explicit Runner(const PeriodsOptions& o) : o_(o), last_checkpoint_(Clock::now()) {}

    // Called after every block of `columns` columns: sleeps for tests, saves on time or on a
    // stop signal (taking the strip's snapshot only then: it costs O(Y^2)). Returns true when
    // the run must stop.
    bool after_block(SearchState& p, const Strip& strip, PeriodsResult& result, uint64_t columns) {
        // One sleep per column, as the tests' timings were set for (a sleep overshoots).
        for (uint64_t i = 0; o_.test_delay_us && i < columns; ++i)
            std::this_thread::sleep_for(std::chrono::microseconds(o_.test_delay_us));
        const bool stop = o_.cancel && o_.cancel->load(std::memory_order_relaxed);
        if (o_.checkpoint.empty()) {
            if (stop) result.status = PeriodsResult::Status::Interrupted;
            return stop;
        }
        const auto now = Clock::now();
        if (stop ||
            std::chrono::duration<double>(now - last_checkpoint_).count() >= o_.checkpoint_every) {
            strip.snapshot(p.strip);
            write_checkpoint(o_.checkpoint, p, o_.rows);
            ++result.checkpoints_written;
            last_checkpoint_ = Clock::now();
        }
        if (stop) {
            result.status = PeriodsResult::Status::Interrupted;
            result.checkpoint_saved = true;
        }
        return stop;
    }

  private:
    const PeriodsOptions& o_;
    Clock::time_point last_checkpoint_;
};

void report(PeriodsProgress* pr, int phase, uint64_t column, uint64_t target, uint64_t saved,
            const Strip& s) {
    if (!pr) return;
    pr->phase.store(phase, std::memory_order_relaxed);
    pr->column.store(column, std::memory_order_relaxed);
    pr->target.store(target, std::memory_order_relaxed);
    pr->saved_column.store(saved, std::memory_order_relaxed);
    pr->state_bits.store(s.state_bits(), std::memory_order_relaxed);
    pr->window_bytes.store(s.window_bytes(), std::memory_order_relaxed);
}

// whole periods of them (length a multiple of lambda). Takes effect at the next block.
void note_settled(engine::SettledRows& settled, SearchState& p, uint64_t m, uint64_t lambda) {
    if (m <= settled.rows || p.ring_len == 0 || p.ring_len % lambda != 0) return;
    settled.rows = m;
    settled.period = lambda;
    settled.values = p.ring.data();
    settled.length = p.ring_len;
    settled.stride = p.last_mismatch.size();
}

// Where sub-strips settled (rows m by column x), for the progress line's estimate of the
// certificate's column: a least-squares fit of log x against log m over the sub-strips of at
// least a quarter of the rows seen so far (the small ones settle before the growth law holds).
class SettleGrowth {
  public:
    void add(uint64_t rows, uint64_t column) { points_.emplace_back(rows, column); }
    uint64_t predict(uint64_t rows) const {
        double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
        for (const auto& [m, x] : points_) {
            if (4 * m < points_.back().first || m < 16) continue;
            const double lx = std::log(static_cast<double>(m)),
                         ly = std::log(static_cast<double>(x));
            n += 1, sx += lx, sy += ly, sxx += lx * lx, sxy += lx * ly;
        }
        if (n < 3 || sxx * n - sx * sx <= 0) return 0;
        const double b = (n * sxy - sx * sy) / (n * sxx - sx * sx), a = (sy - b * sx) / n;
        return static_cast<uint64_t>(std::exp(a + b * std::log(static_cast<double>(rows))));
    }

  private:
    std::vector<std::pair<uint64_t, uint64_t>> points_;
};

}  // namespace

PeriodsResult certify_row_periods(const PeriodsOptions& o) {
    const auto start_time = Clock::now();
    auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start_time).count(); };
    const uint64_t Y = o.rows;
    if (Y == 0 || Y > kMaxRows)
        throw Error("--rows must be between 1 and " + std::to_string(kMaxRows) + ", got " +
                    std::to_string(Y));
    if (!(o.checkpoint_every >= 0)) throw Error("--checkpoint-every must be >= 0 seconds");
    if (o.resume && o.checkpoint.empty()) throw Error("--resume needs --checkpoint FILE");

    PeriodsResult result;
    result.method =
        "Brent cycle detection on the relative strip state (row windows [x+1-2y, x+y], "
        "diagonal windows [x+2-2y, x+y-1]); candidates compared bit for bit in full, no hashing";
    Strip strip(Y, o.kernel, o.threads);
    result.kernel = strip.kernel_name();
    result.threads = strip.threads();
    result.state_bits = strip.state_bits();
    SearchState p;
    if (o.resume && fs::exists(o.checkpoint)) {
        p = load_checkpoint(o.checkpoint, Y, strip.state_words());
        result.resumed = true;
    } else {
        const uint64_t L = speculative_ring(Y, o.ring_budget_bytes);
        if (L) start_ring(p, Y, L);
    }
    Runner runner(o);
    result.bands = strip.bands();
    const uint64_t first_saved = 2 * Y;  // every window at values >= 0 from here on
    // Short blocks under --test-delay-us, so that tests can stop a run between any two of them.
    const uint64_t block = o.test_delay_us ? 16 : kBlockColumns;
    RecordErrors record_errors;
    const engine::StripRowsFn recorder = [&](uint64_t x, uint64_t y0, uint64_t y1,
                                             const uint64_t* g) {
        record_rows(p, x, y0, y1, g, Y, record_errors);
    };
    std::vector<uint32_t> matched_rows;
    // The lowest rows whose sub-strip has repeated (rows settled in the strip); see settle_rows.
    engine::SettledRows settled;
    SettleGrowth growth;

    if (p.phase == 1) {
        if (!p.strip.words.empty()) strip.restore(p.strip);
        bool done = false;
        while (!done) {
            const uint64_t next = strip.columns_done();
            if (!p.found && o.max_cols && next >= o.max_cols) {
                result.status = PeriodsResult::Status::NotCertified;
                result.seconds = elapsed();
                return result;
            }
            // The block ends where a state must be saved, or where the phase ends.
            uint64_t end = next + block;
            if (!p.found) {
                if (o.max_cols) end = std::min(end, o.max_cols);
                if (next <= first_saved)
                    end = std::min(end, first_saved + 1);
                else
                    end = std::min(end, p.saved.column + p.power + 1);
            } else {
                end = std::min(end, p.x0 + p.ring_len + 1);
            }
            engine::StripBlock b;
            b.columns = end - next;
            if (p.ring_len) b.rows_done = recorder;
            const bool comparing = !p.found && next > first_saved;
            if (comparing) {
                b.compare = &p.saved;
                b.matched_rows = &matched_rows;
            }
            strip.advance_block(b);
            uint64_t processed = 0;
            for (uint64_t x = next; x < end && !done; ++x) {
                ++processed;
                if (!p.found && x == first_saved) {
                    strip.snapshot(p.saved);  // x is the block's last column
                    p.has_saved = true;
                    p.power = 64;
                } else if (!p.found && x > first_saved) {
                    const uint64_t lambda = x - p.saved.column;
                    if (comparing) note_settled(settled, p, matched_rows[x - next], lambda);
                    if (comparing && matched_rows[x - next] == Y) {
                        // Compared in full by the bands, each match copied out and compared
                        // again (Strip::band_matches).
                        p.found = true;
                        p.x0 = p.saved.column;
                        p.period = lambda;
                        p.has_saved = false;
                        p.saved.words.clear();
                        // Without a ring that P divides, phase 2 must compute the preperiods.
                        if (p.ring_len == 0 || p.ring_len % p.period != 0) done = true;
                    } else if (lambda == p.power) {
                        // A longer window for the next saved state: 1/8 longer, not twice
                        // (Brent's choice), so the saved column overshoots the state's preperiod
                        // by at most about 1/8 once the window exceeds the period. x is the
                        // block's last column.
                        strip.snapshot(p.saved);
                        p.power += std::max<uint64_t>(p.power / 8, 1);
                    }
                }
                // With a ring of L = k P: mismatches d(x + L) != d(x) are all seen for x <= x0
                // once column x0 + L is swept, and the ring then holds columns x0 + 1 .. x0 + L.
                if (p.found && x >= p.x0 + p.ring_len) done = true;
            }
            result.columns_swept += processed;
            check_record(p, record_errors);
            if (done) break;
            // The whole strip repeats from x0 on: every row is settled for the ring's tail.
            if (p.found) note_settled(settled, p, Y, p.period);
            if (settled.rows > strip.settled_rows()) {
                strip.settle(settled);
                growth.add(settled.rows, end);
                if (o.progress) {
                    o.progress->settled_rows.store(settled.rows, std::memory_order_relaxed);
                    o.progress->expected_x0.store(growth.predict(Y), std::memory_order_relaxed);
                }
            }
            report(o.progress, 1, end, p.found ? p.x0 + p.ring_len + 1 : 0,
                   p.has_saved ? p.saved.column : p.x0, strip);
            if (runner.after_block(p, strip, result, processed)) {
                result.seconds = elapsed();
                return result;
            }
        }
        if (p.ring_len == 0 || p.ring_len % p.period != 0) {
            // Phase 2: a second sweep from column 0 with a ring of exactly P.
            p.phase = 2;
            p.strip.words.clear();
            const double bytes = static_cast<double>(Y) * static_cast<double>(p.period) * 2.0;
            if (bytes > 32.0 * (1ull << 30))
                throw Error("the strip's period " + std::to_string(p.period) + " needs a ring of " +
                            std::to_string(bytes / (1ull << 30)) +
                            " GiB for the exact preperiods; more than 32 GiB");
            start_ring(p, Y, p.period);
        }
    }

    result.x0 = p.x0;
    result.period = p.period;
    const uint64_t P = p.period;
    if (p.phase == 2) {
        Strip pass(Y, o.kernel, o.threads);
        if (!p.strip.words.empty()) pass.restore(p.strip);
        StripSnapshot at_x0;
        const uint64_t last = p.x0 + P;
        for (;;) {
            const uint64_t next = pass.columns_done();
            uint64_t end = std::min(next + block, last + 1);
            if (next <= p.x0) end = std::min(end, p.x0 + 1);
            engine::StripBlock b;
            b.columns = end - next;
            b.rows_done = recorder;
            pass.advance_block(b);
            result.columns_swept += b.columns;
            check_record(p, record_errors);
            // An independent re-check of the certificate on this second sweep (a resumed
            // phase 2 that started past x0 skips it; phase 1 proved it already).
            if (end - 1 == p.x0) pass.snapshot(at_x0);
            if (end - 1 == last) {
                if (!at_x0.words.empty() && !pass.matches(at_x0))
                    throw Error("internal: the certificate did not repeat in phase 2");
                break;
            }
            report(o.progress, 2, end, last + 1, p.x0, pass);
            if (runner.after_block(p, pass, result, b.columns)) {
                result.seconds = elapsed();
                return result;
            }
        }
    }

    const uint64_t L = p.ring_len;
    result.rows.resize(Y);
    for (uint64_t y = 0; y < Y; ++y) {
        CertifiedRowPeriod& r = result.rows[y];
        r.row = y;
        r.preperiod = p.last_mismatch[y] == kNone ? 0 : p.last_mismatch[y] + 1;
        // The ring holds columns x0 + 1 .. x0 + P (and more) at x mod L.
        std::vector<uint16_t> block(P);
        for (uint64_t i = 0; i < P; ++i) block[i] = p.ring[((p.x0 + 1 + i) % L) * Y + y];
        r.period = minimal_period(block);
        if (!o.keep_blocks) continue;
        r.block.resize(r.period);
        for (uint64_t i = 0; i < r.period; ++i) {
            uint64_t c = r.preperiod + i;  // columns from the preperiod on are r.period-periodic
            if (c < p.x0 + 1) c += ((p.x0 + 1 - c + r.period - 1) / r.period) * r.period;
            r.block[i] = block[c - (p.x0 + 1)];
        }
    }
    result.second_pass = p.phase == 2;
    result.ring_len = L;
    result.status = PeriodsResult::Status::Certified;
    result.seconds = elapsed();
    return result;
}

void write_periods_csv(const std::string& path, const PeriodsResult& result,
                       const std::vector<std::string>& comment, bool blocks) {
    const std::string tmp = path + ".part";
    {
        std::ofstream out(tmp);
        if (!out) throw Error("cannot write " + path);
        for (const auto& c : comment) out << "# " << c << "\n";
        out << "row,preperiod,period,certified,block\n";
        for (const auto& r : result.rows) {
            out << r.row << ',' << r.preperiod << ',' << r.period << ",1,";
            for (size_t i = 0; blocks && i < r.block.size(); ++i)
                out << (i ? " " : "") << r.block[i];
            out << '\n';
        }
        out.flush();
        if (!out) throw Error("cannot write " + path + " (disk full?)");
    }
    std::error_code ec;
    fs::rename(tmp, path, ec);
    if (ec) throw Error("cannot rename " + tmp + " to " + path + ": " + ec.message());
}

}  // namespace grundy
