// Fuzzes the job files of `grundy run` (src/app/job_file.cpp, and each section's options as
// the command reads them, src/app/command.cpp): the input is the .ini file. Each section is
// parsed as its command would parse it, without running the command. Refusals are
// grundy::Error (exit 2 from the program); anything else escaping, or a crash, is a finding.
#include <boost/program_options.hpp>

#include "app/command.hpp"
#include "app/job_file.hpp"
#include "fuzz_support.hpp"
#include "grundy/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace grundy;
    const std::string path = fuzz::write_input(data, size, "job.ini");
    try {
        for (const app::JobFileSection& s : app::read_job_file(path)) {
            boost::program_options::variables_map values;
            try {
                app::parse_command_options(*app::find_command(s.name), {}, &s.job, values);
            } catch (const Error&) {
            }
        }
    } catch (const Error&) {
    }
    return 0;
}
