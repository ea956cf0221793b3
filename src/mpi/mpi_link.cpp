// MpiLink (mpi_link.hpp).
#include "mpi/mpi_link.hpp"

#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "grundy/error.hpp"
#include "strip/strip_config.hpp"

namespace grundy::mpi {
namespace {
constexpr int kBoundaryTag = 1;

uint64_t microseconds_since(std::chrono::steady_clock::time_point start) {
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                     std::chrono::steady_clock::now() - start)
                                     .count());
}

int checked_count(uint64_t n) {
    if (n > static_cast<uint64_t>(INT_MAX)) throw Error("internal: an MPI message over 2^31 words");
    return static_cast<int>(n);
}

// Where each rank's words start in a buffer holding counts[0], counts[1], ... words in rank
// order (the displacements of MPI's v-collectives); `total` gets the buffer's length.
std::vector<int> offsets_of(const std::vector<int>& counts, uint64_t& total) {
    std::vector<int> offsets(counts.size());
    total = 0;
    for (size_t r = 0; r < counts.size(); ++r) {
        offsets[r] = checked_count(total);
        total += static_cast<uint64_t>(counts[r]);
    }
    checked_count(total);
    return offsets;
}
}  // namespace

MpiLink::MpiLink(MPI_Comm comm) : comm_(comm), out_(strip::kStripMessagesInFlight) {
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &ranks_);
}

MpiLink::~MpiLink() {
    for (auto& o : out_)
        if (o.request != MPI_REQUEST_NULL) MPI_Wait(&o.request, MPI_STATUS_IGNORE);
}

// Spins a little, then sleeps in growing steps up to 1 ms: on a node with as many ranks as
// cores (or more, as in the tests) a spinning waiter would take the CPU of the rank it waits
// for.
void MpiLink::wait(MPI_Request& request) {
    const auto start = std::chrono::steady_clock::now();
    for (unsigned tries = 0;; ++tries) {
        int done = 0;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            MPI_Test(&request, &done, MPI_STATUS_IGNORE);
        }
        if (done) break;
        if (tries < 64)
            std::this_thread::yield();
        else
            std::this_thread::sleep_for(std::chrono::microseconds(tries < 1000 ? 20 : 1000));
    }
    wait_us_ += microseconds_since(start);
}

void MpiLink::send_up(const uint64_t* words, uint64_t count) {
    Outgoing& o = out_[next_out_];
    next_out_ = (next_out_ + 1) % out_.size();
    if (o.request != MPI_REQUEST_NULL) wait(o.request);  // the oldest buffer, free again
    o.words.assign(words, words + count);
    std::lock_guard<std::mutex> lock(mutex_);
    MPI_Isend(o.words.data(), checked_count(count), MPI_UINT64_T, rank_ + 1, kBoundaryTag, comm_,
              &o.request);
    bytes_sent_ += count * 8;
}

void MpiLink::receive_from_below(uint64_t* words, uint64_t count) {
    MPI_Request request;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        MPI_Irecv(words, checked_count(count), MPI_UINT64_T, rank_ - 1, kBoundaryTag, comm_,
                  &request);
    }
    wait(request);
}

void MpiLink::min_each(std::vector<uint32_t>& v) {
    std::lock_guard<std::mutex> lock(mutex_);
    MPI_Allreduce(MPI_IN_PLACE, v.data(), checked_count(v.size()), MPI_UINT32_T, MPI_MIN, comm_);
}

uint64_t MpiLink::reduce(uint64_t v, MPI_Op op) {
    const auto start = std::chrono::steady_clock::now();
    uint64_t r = 0;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        MPI_Allreduce(&v, &r, 1, MPI_UINT64_T, op, comm_);
    }
    // Where a rank that finished its block early waits for the slowest.
    wait_us_ += microseconds_since(start);
    return r;
}

uint64_t MpiLink::max_of(uint64_t v) {
    return reduce(v, MPI_MAX);
}
uint64_t MpiLink::sum_of(uint64_t v) {
    return reduce(v, MPI_SUM);
}

void MpiLink::all_or(std::vector<uint64_t>& words) {
    std::lock_guard<std::mutex> lock(mutex_);
    MPI_Allreduce(MPI_IN_PLACE, words.data(), checked_count(words.size()), MPI_UINT64_T, MPI_BOR,
                  comm_);
}

std::vector<uint64_t> MpiLink::exchange(const std::vector<uint64_t>& words,
                                        const std::vector<uint64_t>& counts,
                                        std::vector<uint64_t>& received) {
    if (counts.size() != static_cast<size_t>(ranks_))
        throw Error("internal: an exchange without one count per rank");
    std::vector<int> send_counts(ranks_), receive_counts(ranks_);
    for (int r = 0; r < ranks_; ++r) send_counts[r] = checked_count(counts[r]);
    uint64_t sent = 0, total = 0;
    const std::vector<int> send_offsets = offsets_of(send_counts, sent);
    if (sent != words.size()) throw Error("internal: an exchange's counts miss its words");
    std::lock_guard<std::mutex> lock(mutex_);
    MPI_Alltoall(send_counts.data(), 1, MPI_INT, receive_counts.data(), 1, MPI_INT, comm_);
    const std::vector<int> receive_offsets = offsets_of(receive_counts, total);
    std::vector<uint64_t> receiving(total);
    MPI_Alltoallv(words.data(), send_counts.data(), send_offsets.data(), MPI_UINT64_T,
                  receiving.data(), receive_counts.data(), receive_offsets.data(), MPI_UINT64_T,
                  comm_);
    bytes_sent_ += (sent - counts[rank_]) * 8;
    received.assign(receive_counts.begin(), receive_counts.end());
    return receiving;
}

std::string MpiLink::first_error(const std::string& error) {
    const uint64_t first = reduce(error.empty() ? static_cast<uint64_t>(ranks_) : rank_, MPI_MIN);
    if (first == static_cast<uint64_t>(ranks_)) return "";
    const int root = static_cast<int>(first);
    std::lock_guard<std::mutex> lock(mutex_);
    uint64_t length = rank_ == root ? error.size() : 0;
    MPI_Bcast(&length, 1, MPI_UINT64_T, root, comm_);
    std::string text = rank_ == root ? error : std::string(length, ' ');
    MPI_Bcast(text.data(), checked_count(length), MPI_CHAR, root, comm_);
    return text;
}

std::vector<uint64_t> MpiLink::gather(const std::vector<uint64_t>& mine) {
    std::lock_guard<std::mutex> lock(mutex_);
    const int count = checked_count(mine.size());
    std::vector<int> counts(rank_ == 0 ? ranks_ : 0);
    MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm_);
    uint64_t total = 0;
    const std::vector<int> offsets = offsets_of(counts, total);
    std::vector<uint64_t> all(total);
    MPI_Gatherv(mine.data(), count, MPI_UINT64_T, all.data(), counts.data(), offsets.data(),
                MPI_UINT64_T, 0, comm_);
    return all;
}

void MpiLink::abort(const std::string& message, int status) {
    std::fprintf(stderr, "%s\n", message.c_str());
    std::fflush(stderr);
    MPI_Abort(comm_, status);
    std::_Exit(status);
}

}  // namespace grundy::mpi
