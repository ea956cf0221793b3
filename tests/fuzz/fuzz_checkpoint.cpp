// Fuzzes the checkpoint loader of `grundy periods` (src/strip/certify/checkpoint.cpp): the input is
// a file given to --resume. It is read as the checkpoint of one process of 6 rows, as the part of
// a rank holding rows 2..5, and, when it starts as one, as a rank manifest. Refusals are
// grundy::Error; anything else escaping, or a crash, is a finding.
#include "fuzz_support.hpp"
#include "grundy/error.hpp"
#include "strip/certify/checkpoint.hpp"
#include "strip/sweep/strip.hpp"

namespace {

using namespace grundy;

constexpr uint64_t kRows = 6;
uint64_t state_words = 0;

template <class Load>
void refused_or_read(Load&& load) {
    try {
        load();
    } catch (const Error&) {
    }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    state_words = strip::Strip(kRows, MexKernel::Auto).state_words();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string path = fuzz::write_input(data, size, "periods.checkpoint");
    refused_or_read([&] { strip::load_checkpoint(path, kRows, state_words, 0, kRows); });
    refused_or_read([&] { strip::load_checkpoint(path, kRows, state_words, 2, kRows); });
    if (strip::is_manifest(path)) refused_or_read([&] { strip::read_manifest(path); });
    return 0;
}
