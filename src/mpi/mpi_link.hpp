// MpiLink: the RankLink of a strip swept by the ranks of an MPI communicator (grundy-mpi).
//
// Point-to-point messages go up only, from rank r to rank r + 1, as non-blocking sends from a
// pool of kStripMessagesInFlight buffers; everything else is a collective. The strip's tiles
// call it from any OpenMP thread, so every MPI call is made under one mutex (MPI_THREAD_SERIALIZED
// is enough) and a wait is a loop of MPI_Test that lets go of the mutex between tries.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "strip/ranks/rank_link.hpp"

namespace grundy::mpi {

class MpiLink final : public strip::RankLink {
  public:
    explicit MpiLink(MPI_Comm comm);
    ~MpiLink() override;  // waits for the sends still in flight
    MpiLink(const MpiLink&) = delete;
    MpiLink& operator=(const MpiLink&) = delete;

    int rank() const override { return rank_; }
    int ranks() const override { return ranks_; }
    void send_up(const uint64_t* words, uint64_t count) override;
    void receive_from_below(uint64_t* words, uint64_t count) override;
    void min_each(std::vector<uint32_t>& v) override;
    uint64_t max_of(uint64_t v) override;
    uint64_t sum_of(uint64_t v) override;
    void all_or(std::vector<uint64_t>& words) override;
    std::vector<uint64_t> exchange(const std::vector<uint64_t>& words,
                                   const std::vector<uint64_t>& counts,
                                   std::vector<uint64_t>& received) override;
    std::string first_error(const std::string& error) override;
    std::vector<uint64_t> gather(const std::vector<uint64_t>& mine) override;
    [[noreturn]] void abort(const std::string& message, int status) override;
    uint64_t bytes_sent() const override { return bytes_sent_.load(); }
    double wait_seconds() const override { return wait_us_.load() / 1e6; }

  private:
    struct Outgoing {
        std::vector<uint64_t> words;
        MPI_Request request = MPI_REQUEST_NULL;
    };
    void wait(MPI_Request& request);  // polls, adding the time to wait_us_
    uint64_t reduce(uint64_t v, MPI_Op op);

    MPI_Comm comm_;
    int rank_ = 0, ranks_ = 1;
    std::mutex mutex_;
    std::vector<Outgoing> out_;
    size_t next_out_ = 0;
    std::atomic<uint64_t> bytes_sent_{0}, wait_us_{0};
};

}  // namespace grundy::mpi
